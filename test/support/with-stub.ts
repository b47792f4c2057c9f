/**
 * Tests that need the built CPU stub (`npm run build:stub`, which `npm ci` runs): one place that
 * knows where it is, and skips them, saying why, when it is not there.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';

/** The stub's libascendcl.so in this checkout. */
export const STUB_LIBRARY = path.resolve(__dirname, '..', '..', 'native-stub', 'build', 'lib64', 'libascendcl.so');

export const haveStub = existsSync(STUB_LIBRARY);

if (!haveStub) console.warn(`skipping the tests that need the stub: ${STUB_LIBRARY} is missing (run npm run build:stub)`);

/** `describe`, or `describe.skip` without the stub. */
export const describeWithStub = haveStub ? describe : describe.skip;

/** `test`, or `test.skip` without the stub. */
export const testWithStub = haveStub ? test : test.skip;
