/** The repository's Jest globalSetup: the preset's, then the stub gate of this run (./stub-gate.ts). */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import presetGlobalSetup from '../../src/jest/global-setup';
import { isRunning } from './leftovers';
import { STUB_GATE_ENV } from './stub-gate';

/** In the repository (not the shared temp dir): one folder per Jest run, named by its pid. */
const GATE_ROOT = path.resolve(__dirname, '..', '..', 'node_modules', '.cache', 'cann-test-stub-gate');

export default async function globalSetup(): Promise<void> {
  await presetGlobalSetup();
  mkdirSync(GATE_ROOT, { recursive: true });
  // Gates of runs that were killed before their teardown.
  for (const name of readdirSync(GATE_ROOT)) if (!isRunning(Number(name))) rmSync(path.join(GATE_ROOT, name), { recursive: true, force: true });
  const gate = path.join(GATE_ROOT, String(process.pid));
  rmSync(gate, { recursive: true, force: true });
  mkdirSync(gate);
  process.env[STUB_GATE_ENV] = gate; // workers inherit this process's environment
}
