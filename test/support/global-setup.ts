/** The repository's Jest globalSetup: the preset's, then the stub gate of this run (./stub-gate.ts). */
import { mkdtempSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import presetGlobalSetup from '../../src/jest/global-setup';
import { STUB_GATE_ENV } from './stub-gate';

export default async function globalSetup(): Promise<void> {
  await presetGlobalSetup();
  // Workers inherit this process's environment.
  process.env[STUB_GATE_ENV] = mkdtempSync(path.join(os.tmpdir(), 'cann-test-stub-gate-'));
}
