/**
 * Runs Jest on the fixture specs in a child process (as a user would) and checks what it reports:
 * skips with their reasons (JSON and JUnit XML), CANN_HARNESS_REQUIRE_DEVICES, failure reports,
 * and declarations rejected at collection. Every child runs with its own TMPDIR, removed after,
 * so kept scenario directories never outlive the test. Two nested runs, one per environment (the
 * real probe; a 2-device probe with CANN_HARNESS_REQUIRE_DEVICES=4), each over several fixture
 * folders: a test checks the results of its own folder's spec files.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { ENV } from '../../src/env';
import { runFixtures as runIn, removeFixtureRuns, type NestedRun } from '../support/nested-jest';
import { stubScope } from '../support/leftovers';
import { EIGHT_DEVICES } from '../support/stub-devices';

// Each test starts a whole Jest run (and its scenarios' processes) in a child.
jest.setTimeout(90_000);

const scratch: string[] = [];
afterAll(() => removeFixtureRuns(scratch));

// Each run in a stub scope of its own (the file's, plus a letter): the two run at the same time.
const runFixtures = (pattern: string, scope: string, env: Record<string, string> = {}): Promise<NestedRun> =>
  runIn(pattern, { [ENV.stubScope]: `${stubScope()}${scope}`, ...env }, scratch);

const twoDevices = JSON.stringify({ ok: true, mode: 'stub', library: 'fake', reason: 'test', deviceCount: 2, ipcSupported: true });

/** One nested run with the real probe (a stub of 8 devices, fewer than the 12 its skips need) over fixtures/skips and fixtures/notes. */
let withRealProbe: Promise<NestedRun> | undefined;
const runWithRealProbe = (): Promise<NestedRun> => (withRealProbe ??= runFixtures('fixtures/(skips|notes)/', 'r', EIGHT_DEVICES));

/**
 * One nested run with a 2-device probe and CANN_HARNESS_REQUIRE_DEVICES=4 over fixtures/skips and the
 * failing and bad-input fixtures (which need at most 2 devices: the requirement changes nothing for them).
 */
let withTwoDevices: Promise<NestedRun> | undefined;
const runWithTwoDevices = (): Promise<NestedRun> =>
  (withTwoDevices ??= runFixtures('fixtures/(skips|failing|invalid|bad-input)/', 't', { CANN_HARNESS_PROBE: twoDevices, CANN_HARNESS_REQUIRE_DEVICES: '4' }));

// Both runs start at once: each mostly waits for its scenarios' processes (the second used to start
// only when the first had ended). A failure stays with the tests that await the run.
beforeAll(() => {
  for (const started of [runWithRealProbe(), runWithTwoDevices()]) started.catch(() => undefined);
});

/** Passed, skipped and failed tests, and suites that failed to load, among the spec files whose path matches `files`. */
function countsIn(run: NestedRun, files: RegExp): { passed: number; pending: number; failed: number; loadErrors: number; suites: number } {
  const results = run.json.testResults.filter((t) => files.test(t.name));
  const statuses = results.flatMap((t) => t.assertionResults.map((a) => a.status));
  return {
    passed: statuses.filter((s) => s === 'passed').length,
    pending: statuses.filter((s) => s === 'pending').length,
    failed: statuses.filter((s) => s === 'failed').length,
    loadErrors: results.filter((t) => t.assertionResults.length === 0 && t.message !== '').length,
    suites: results.length,
  };
}

/** The <testsuite> element (jest-junit: one per spec file) that holds the test titled `title`. */
function junitSuiteOf(run: NestedRun, title: string): string {
  const suite = run.junit.split('<testsuite ').find((s) => s.includes(`name="${title}`) || s.includes(` ${title}`));
  if (!suite) throw new Error(`no <testsuite> with ${title} in the JUnit XML:\n${run.junit}`);
  return `<testsuite ${suite}`;
}

test('with the real probe (stub, 8 devices): the 12-device scenario is skipped with its reason, in JSON and JUnit XML', async () => {
  const run = await runWithRealProbe();
  expect(countsIn(run, /\/fixtures\/skips\//)).toMatchObject({ passed: 2, pending: 2, failed: 0, suites: 1 });
  expect(run.byTitle('runs here').status).toBe('passed');
  expect(run.byTitle('skipped on purpose')).toMatchObject({ title: 'skipped on purpose', status: 'pending' }); // scenario.skip
  expect(run.byTitle('needs four').status).toBe('passed');
  expect(run.byTitle('needs twelve')).toMatchObject({ title: 'needs twelve [skip: needs 12 devices, 8 available]', status: 'pending' });
  expect(junitSuiteOf(run, 'needs twelve')).toMatch(/^<testsuite [^>]*skipped="2"/);
  expect(run.junit).toMatch(/<testcase [^>]*name="[^"]*needs twelve \[skip: needs 12 devices, 8 available\]"[^>]*>\s*<skipped\/>/);
});

test('the end of the default output lists the skips with their reasons and warns of a pass whose waits were all no-ops', async () => {
  const run = await runWithRealProbe();
  expect(countsIn(run, /\/fixtures\/notes\//)).toMatchObject({ passed: 1, pending: 1, failed: 0, suites: 1 });
  // The list covers the run's two spec files (in the order they finished); scenario.skip is not in it.
  const list = /\[cann-harness\] (\d+) scenarios? skipped:\n((?: {2}.*\n)*)/.exec(run.stderr);
  expect(list?.[1]).toBe('2');
  expect(list![2].split('\n').filter(Boolean).sort()).toEqual([
    '  test/jest/fixtures/notes/notes.spec.ts › one role far away: needs 12 devices (role far is on device 11), 8 available',
    '  test/jest/fixtures/skips/skips.spec.ts › needs twelve: needs 12 devices, 8 available',
  ]);
  expect(run.stderr).toContain(
    '[cann-harness] warning: test/jest/fixtures/notes/notes.spec.ts › a wait that waits for nothing passed, but all its waits (1) were no-ops, nothing pending when queued: ' +
      'it proves no synchronization; check it with `npx cann-harness audit`',
  );
});

test('CANN_HARNESS_REQUIRE_DEVICES=4 turns the 4-device skip into a failure, and leaves the 12-device one skipped', async () => {
  const run = await runWithTwoDevices();
  expect(countsIn(run, /\/fixtures\/skips\//)).toMatchObject({ passed: 1, pending: 2, failed: 1, suites: 1 });
  const four = run.byTitle('needs four');
  expect(four.title).toBe('needs four');
  expect(four.failureMessages.join('\n')).toContain(
    'CANN_HARNESS_REQUIRE_DEVICES=4 says this runner must have 4 devices, but: needs 4 devices, 2 available',
  );
  expect(run.byTitle('needs twelve').status).toBe('pending');
});

describe('failure reports', () => {
  let run: NestedRun;
  beforeAll(async () => {
    run = await runWithTwoDevices();
  }, 150_000);

  test('every failing scenario fails', () => {
    expect(countsIn(run, /\/fixtures\/(failing|invalid)\//)).toEqual({ passed: 0, pending: 0, failed: 4, loadErrors: 1, suites: 2 });
  });

  test('an ACL failure names the role, exit code, ACL error and call, log lines, the other roles and the kept dir', () => {
    const msg = run.byTitle('an ACL call fails in one role').failureMessages.join('\n');
    expect(msg).toMatch(/role opener \(device 1, pid \d+\) failed: exit code 1/);
    expect(msg).toContain('ACL error: ACL_ERROR_RT_INVALID_HANDLE (107017) from aclrtIpcOpenEventHandle(');
    expect(msg).toMatch(/where: .*failing\.spec\.ts:\d+/);
    expect(msg).toContain('| opener step 1');
    expect(msg).toContain('| opener step 3');
    // The waiter is stopped because the opener failed (the fixture fails the opener only once the
    // waiter is waiting, so what it was waiting for is known).
    expect(msg).toMatch(/waiter\s+device 0 {2}stopped \(killed by SIG(TERM|KILL), \d+ ms\), waiting for signal "never-sent" from role opener/);
    expect(msg).not.toMatch(/role waiter .* failed/);
    const kept = /kept directory: (\S+)/.exec(msg)?.[1];
    expect(kept).toBeDefined();
    expect(kept!.startsWith(run.tmp)).toBe(true);
    expect(existsSync(path.join(kept!, 'logs', 'opener.stdout.log'))).toBe(true);
  });

  test('a failing worker thread reports its thread and the ACL error', () => {
    const msg = run.byTitle('an ACL call fails in a worker thread').failureMessages.join('\n');
    expect(msg).toMatch(/role pool \(device 0, pid \d+\) failed: exit code 1/);
    expect(msg).toContain('error: thread 1: aclrtIpcOpenEventHandle(');
    expect(msg).toContain('ACL error: ACL_ERROR_RT_INVALID_HANDLE (107017) from aclrtIpcOpenEventHandle(');
  });

  test('verify failures are ordinary expect failures', () => {
    const msg = run.byTitle('verify rejects the result').failureMessages.join('\n');
    expect(msg).toMatch(/Expected: 2\s+Received: 1/);
    // Kept like any other failure (docs/guide/failures-and-hangs.md promises it), with its logs and result.
    const kept = /scenario directory kept at (\S+)/.exec(msg)?.[1];
    expect(kept?.startsWith(run.tmp)).toBe(true);
    expect(existsSync(path.join(kept!, 'result.json'))).toBe(true);
    expect(existsSync(path.join(kept!, 'logs', 'a.stdout.log'))).toBe(true);
  });

  test('a timeout says so and names the role that was still running', () => {
    const msg = run.byTitle('a role outlives the timeout').failureMessages.join('\n');
    expect(msg).toMatch(/scenario "a role outlives the timeout" timed out after \d+ ms/);
    expect(msg).toMatch(/role sleeper \(device 0, pid \d+\) timeout: killed by SIG(TERM|KILL)/);
    // The wait-for graph heads the report: the sleeper awaits a signal nobody is named to send.
    expect(msg).toContain('wait-for graph at the deadline');
    expect(msg).toContain('chain: sleeper awaits signal "never-sent" (no role named as its source)');
  });

  test('an invalid declaration fails its spec file at collection, listing the problems', () => {
    const message = run.json.testResults.find((t) => t.name.endsWith('invalid.spec.ts'))!.message;
    expect(message).toContain('invalid scenario "broken"');
    expect(message).toContain('role a: missing body');
    expect(message).toContain('devices must be a whole number >= 1 (got 0)');
  });
});

describe('inputs that used to pass silently fail with the fix in the message', () => {
  let run: NestedRun;
  beforeAll(async () => {
    run = await runWithTwoDevices();
  }, 150_000);

  test.each([
    ['params differ per process', /params differ between the process that declared it and this device process .*must not come from Math\.random\(\)/],
    ['a role returns a function', /the value returned by role a\.callback is a function, which JSON cannot carry to the parent: return plain data/],
    ['a ctx call is left running when the body returns', /role a returned while ctx\.awaitSignal\("never-given", \{…\}\) was still in progress: await every ctx call inside the body/],
  ])('%s', (title, message) => {
    const result = run.byTitle(title);
    expect(result.status).toBe('failed');
    expect(result.failureMessages.join('\n')).toMatch(message);
  });

  test('work still queued when a role returns is cancelled, and the result and the report name it', () => {
    const result = run.byTitle('work still queued when a role returns is cancelled and named');
    expect(result.failureMessages).toEqual([]);
    expect(result.status).toBe('passed');
  });
});

