/**
 * Every test file of the repository holds the stub gate shared while it runs (./stub-gate.ts),
 * except the static checks that never start a stub process (STUB_FREE in ./sequencer.js).
 */
import { STUB_FREE } from './sequencer';
import { enterShared, leaveShared } from './stub-gate';

if (!STUB_FREE.test(expect.getState().testPath ?? '')) {
  beforeAll(enterShared, 30 * 60_000); // a file holding it exclusively may run for minutes on a busy machine
  afterAll(leaveShared);
}
