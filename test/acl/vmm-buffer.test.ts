/**
 * VMM memory used as a DeviceBuffer (src/acl/vmm-buffer.ts), in a child process (koffi never
 * loads in Jest): the checks live in fixtures/vmm-buffer-checks.ts and run in order in one child.
 */
import { checks } from './fixtures/vmm-buffer-checks';
import { runChecks, type ChecksRun } from './helpers';

let run: ChecksRun;
beforeAll(async () => {
  run = await runChecks('vmm-buffer-checks');
});

test('the child ran every check on the stub and exited cleanly (no native crash)', () => {
  expect(run.value().library.mode).toBe('stub');
  expect(Object.keys(run.value().results)).toEqual(Object.keys(checks));
});

test.each(Object.keys(checks))('%s', (name) => {
  expect(run.check(name)).toMatchObject({ ok: true });
});
