/**
 * Issue 33 item 10 end to end: device memory a C role exported and shared with the C API
 * (cannharness_share_memory, native-stub/harness/api/shared.c) is opened by a TypeScript role's
 * ctx.openSharedMemory and read back: the one record format, both sides.
 */
import * as path from 'node:path';
import { collectScenarios, runScenario } from '../../src/scenario';
import { testWithStub } from '../support/with-stub';

const FIXTURES = path.join(__dirname, 'fixtures', 'c-shared-memory-scenarios.ts');

testWithStub('a TypeScript role opens the memory a C role shared, and reads its bytes', async () => {
  const plan = [...collectScenarios(FIXTURES).values()][0];
  const r = await runScenario(plan, { specFile: FIXTURES, mode: 'stub', keepDir: false });
  expect(r.summary).toContain('passed');
  expect(r.role('importer').value).toEqual({ size: 4096, bytes: new Array(16).fill(0x5a) });
}, 60_000);
