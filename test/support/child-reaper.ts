/**
 * After every test file: children that the command helpers (run-child.ts) started and that are
 * still running are killed with their process groups, and the file fails saying so. A test that
 * timed out while awaiting a command otherwise leaves it running after the whole Jest run.
 */
import { killLeftoverChildren } from './run-child';

afterAll(() => {
  const pids = killLeftoverChildren();
  if (pids.length > 0) {
    throw new Error(`killed ${pids.length} child process(es) this test file left running (pids ${pids.join(', ')}): a test stopped awaiting a command it started (timeout or failure)`);
  }
});
