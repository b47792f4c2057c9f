/**
 * hold(ms) and latch() block a stream (and every stream waiting on an event recorded behind them)
 * until the time is up / release() is called. Runs in a child process; see fixtures/latch-checks.ts.
 */
import { checks } from './fixtures/latch-checks';
import { runChecks, runFixture, valueOf, type ChecksRun, type FixtureRun } from './helpers';

let run: ChecksRun;
// Every child process of this file starts at once (they are independent); each test checks its own.
let leftAtExit: Promise<FixtureRun<{ pending: boolean }>>;
let runningAtExit: Promise<FixtureRun<{ returned: boolean }>[]>;
beforeAll(async () => {
  // With ACL_STUB_LOG=warn the stub reports streams still blocked in a host function at exit.
  leftAtExit = runFixture<{ pending: boolean }>('latch-left-at-exit', [], { ACL_STUB_LOG: 'warn' });
  // Three processes: the crash this guards against depended on timing at exit.
  runningAtExit = Promise.all(Array.from({ length: 3 }, () => runFixture<{ returned: boolean }>('host-func-running-at-exit', [])));
  run = await runChecks('latch-checks');
});

test.each(Object.keys(checks))('%s', (name) => {
  expect(run.check(name)).toMatchObject({ ok: true });
});

test('the waiting stream finished after the release (CLOCK_MONOTONIC timestamps)', () => {
  const v = run.check('latch: a stream waiting on an event recorded behind the latch blocks until release').value as {
    releasedAt: string;
    doneAt: string;
  };
  expect(BigInt(v.doneAt)).toBeGreaterThanOrEqual(BigInt(v.releasedAt));
});

test('a latch still pending at process exit is released by the binding, not abandoned on a runtime thread', async () => {
  const child = await leftAtExit;
  expect(valueOf(child)).toEqual({ pending: true });
  expect(child.stderr).not.toContain('still running a host function');
});

test('a host function still running at exit: the libraries stay mapped until the process ends (no SIGSEGV)', async () => {
  for (const child of await runningAtExit) {
    expect({ code: child.code, signal: child.signal }).toEqual({ code: 0, signal: null });
    expect(valueOf(child)).toEqual({ returned: true });
  }
});
