/**
 * Every test file of the repository holds the stub gate while it runs (./stub-gate.ts): exclusively
 * the files that check /dev/shm as a whole or for leaks (EXCLUSIVE in ./sequencer.js), shared the
 * others, except the static checks that never start a stub process (STUB_FREE).
 */
import { EXCLUSIVE, STUB_FREE } from './sequencer';
import { enterExclusive, enterShared, leaveExclusive, leaveShared } from './stub-gate';

const testPath = expect.getState().testPath ?? '';
// a file holding the gate exclusively may run for minutes on a busy machine
if (EXCLUSIVE.test(testPath)) {
  beforeAll(enterExclusive, 30 * 60_000);
  afterAll(leaveExclusive);
} else if (!STUB_FREE.test(testPath)) {
  beforeAll(enterShared, 30 * 60_000);
  afterAll(leaveShared);
}
