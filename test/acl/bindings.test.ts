/**
 * Every binding against the stub, in a child process (koffi never loads in Jest): the checks live
 * in fixtures/binding-checks.ts and run in order in one child; each becomes one test here.
 */
import { checks } from './fixtures/binding-checks';
import { runChecks, type ChecksRun } from './helpers';

let run: ChecksRun;
beforeAll(async () => {
  run = await runChecks('binding-checks');
});

test('the child ran every check on the stub and exited cleanly (no native crash)', () => {
  expect(run.value().library.mode).toBe('stub');
  expect(Object.keys(run.value().results)).toEqual(Object.keys(checks));
});

test.each(Object.keys(checks))('%s', (name) => {
  // On failure the received value shows the assertion message and stack from the child.
  expect(run.check(name)).toMatchObject({ ok: true });
});
