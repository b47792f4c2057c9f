/**
 * Device synchronize, stream query/id, value write/wait and the SoC name through the binding, in a
 * child process (koffi never loads in Jest): the checks live in fixtures/stream-ext-checks.ts.
 */
import { checks } from './fixtures/stream-ext-checks';
import { runChecks, type ChecksRun } from './helpers';

let run: ChecksRun;
beforeAll(async () => {
  run = await runChecks('stream-ext-checks', { ACL_STUB_SOC_NAME: 'Ascend910_9391' });
});

test('the child ran every check on the stub and exited cleanly (no native crash)', () => {
  expect(run.value().library.mode).toBe('stub');
  expect(Object.keys(run.value().results)).toEqual(Object.keys(checks));
});

test.each(Object.keys(checks))('%s', (name) => {
  expect(run.check(name)).toEqual({ ok: true, value: undefined });
});
