/** The repository's Jest globalTeardown: removes this run's stub gate, then the preset's teardown. */
import { rmSync } from 'node:fs';
import presetGlobalTeardown from '../../src/jest/global-teardown';
import { STUB_GATE_ENV } from './stub-gate';

export default function globalTeardown(): void {
  const gate = process.env[STUB_GATE_ENV];
  if (gate) rmSync(gate, { recursive: true, force: true });
  presetGlobalTeardown();
}
