/** Which processes watch the Jest runner (src/orchestrator/runner-watch.ts): its worker processes only. */
import { runnerOfWorker } from '../../src/orchestrator/runner-watch';

const worker = ['/usr/bin/node', '/x/node_modules/jest-worker/build/processChild.js'];

test('a Jest worker process watches the runner named in CANN_HARNESS_RUNNER_PID', () => {
  expect(runnerOfWorker({ CANN_HARNESS_RUNNER_PID: '100', JEST_WORKER_ID: '2' }, 200, worker)).toBe(100);
});

test('the runner itself (in band) and processes that only inherited the variable do not', () => {
  expect(runnerOfWorker({ CANN_HARNESS_RUNNER_PID: '100', JEST_WORKER_ID: '1' }, 100, worker)).toBeNull();
  // A program a test started (its parent is the worker, not the runner): watching would kill it at once.
  expect(runnerOfWorker({ CANN_HARNESS_RUNNER_PID: '100', JEST_WORKER_ID: '2' }, 300, ['/usr/bin/node', '/x/parent-script.js'])).toBeNull();
  expect(runnerOfWorker({ CANN_HARNESS_RUNNER_PID: '100' }, 300, worker)).toBeNull();
  expect(runnerOfWorker({ JEST_WORKER_ID: '2' }, 300, worker)).toBeNull();
  expect(runnerOfWorker({ CANN_HARNESS_RUNNER_PID: 'x', JEST_WORKER_ID: '2' }, 300, worker)).toBeNull();
});
