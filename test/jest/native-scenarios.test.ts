/**
 * Native scenarios through Jest, as a user runs them (a nested Jest run on
 * test/jest/fixtures/native): `build:` once per run and its failure with the compiler's output,
 * `precheck: { exec }` (0 runs, 2 skips with its last line, else fails with its output), a
 * missing program, and a native role next to a TypeScript role. Its own TMPDIR, removed after.
 */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { runFixtures, removeFixtureRuns, type NestedRun } from '../support/nested-jest';
import { STUB_DEVICES } from '../support/stub-devices';

jest.setTimeout(120_000);

const scratch: string[] = [];
let run: NestedRun;
beforeAll(async () => {
  run = await runFixtures('fixtures/native/', {}, scratch);
});
afterAll(() => removeFixtureRuns(scratch));

const byTitle = (title: string) => run.byTitle(title);

// The nested run inherits the stub's device count (8 unless ACL_STUB_DEVICE_COUNT says otherwise).
const devices = STUB_DEVICES;

test('precheck exit 2: a Jest skip whose reason is its last output line (JUnit too)', () => {
  expect(byTitle('precheck says skip')).toMatchObject({ title: `precheck says skip [skip: [SKIP] need 99 devices, ${devices} available]`, status: 'pending' });
  expect(run.junit).toMatch(new RegExp(`<testcase [^>]*name="[^"]*precheck says skip \\[skip: \\[SKIP\\] need 99 devices, ${devices} available\\]"[^>]*>\\s*<skipped/>`));
});

test('precheck exit 5: a failure with its exit code and output', () => {
  const t = byTitle('precheck fails');
  expect(t.status).toBe('failed');
  expect(t.failureMessages.join('\n')).toContain('exited with code 5 (0 runs the scenario, 2 skips it); its output:\nprecheck is broken here');
});

test('precheck exit 0: the scenario runs; a native role and a TypeScript role pass together', () => {
  expect(byTitle('precheck says run, native and TypeScript roles together').status).toBe('passed');
});

test('a failed build fails its scenarios with the output of the build', () => {
  const t = byTitle('a build that fails');
  expect(t.status).toBe('failed');
  expect(t.failureMessages.join('\n')).toMatch(/build "make -s no-such-target" \(in .*fixtures\/native\) exited with code 2; its output:\n.*No rule to make target 'no-such-target'/);
});

test('the build runs once per run, not once per scenario', () => {
  expect(run.stderr.match(/\[cann-harness\] build: make -s OUT=/g)).toHaveLength(1);
});

test('a program that is not there: a clear error naming the path and the fix', () => {
  const t = byTitle('a program that is not there');
  expect(t.status).toBe('failed');
  expect(t.failureMessages.join('\n')).toContain('role a: program "./not-built-yet" does not exist: looked for');
  expect(t.failureMessages.join('\n')).toContain("build it first (e.g. build: 'make -C native' on the scenario) or fix the path");
});

test('nothing of the harness is left in the scratch TMPDIR (Jest keeps its own cache there)', () => {
  expect(readdirSync(run.tmp).filter((n) => n.startsWith('cann-'))).toEqual([]);
});

test('a C API program signals a TypeScript role and back; its marks count in toHaveMarkOrder', () => {
  expect(byTitle('C API marks and signals beside a TypeScript role').status).toBe('passed');
});
