/** runRoles: statuses for every way a role can end, and nothing left behind afterwards. */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { runRoles, RunOptionsError, type RoleResult, type RunEvent, type RunOptions, type RunResult, type RoleSpec } from '../../src/orchestrator';
import { formatScenarioFailure } from '../../src/report/failure';
import { Rendezvous } from '../../src/rendezvous';
import { leakedShmOf, shmObjectsOfRun, survivors, waitUntil } from '../support/leftovers';

const ROLES = path.join(__dirname, 'fixtures', 'roles.ts');
const role = (name: string, exp: string, extra: Partial<RoleSpec> = {}): RoleSpec => ({
  name,
  device: 0,
  entry: { module: ROLES, export: exp },
  ...extra,
});
const byName = (r: RunResult) => Object.fromEntries(r.roles.map((x) => [x.name, x])) as Record<string, RoleResult>;

// Runs are slow to start under load (other test files run in parallel, each role is a fresh Node
// process compiling TypeScript): deadlines are generous wherever speed is not what is tested.
const GENEROUS_MS = 120_000;
const TEST_TIMEOUT_MS = 240_000;

/**
 * What this test's runs created: scenario directories and role processes. Leftovers are checked
 * for these only: other test files (in other Jest workers, or earlier in this one) create
 * cann-harness-* directories and stub objects of their own at the same time.
 */
const own = { dirs: new Set<string>(), pids: new Set<number>() };

/** runRoles with traces (to know our own shm objects) and bookkeeping of what it started. */
function run(opts: RunOptions): Promise<RunResult> {
  return runRoles({
    collectTraces: true,
    ...opts,
    onEvent: (e) => {
      if (e.type === 'started') {
        own.dirs.add(e.dir);
        own.pids.add(e.pid);
      }
      opts.onEvent?.(e);
    },
  });
}

// A failing test must not make the next ones fail too: remove what it may have left.
afterEach(() => {
  for (const pid of own.pids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone, as it should be */
    }
  }
  for (const d of own.dirs) rmSync(d, { recursive: true, force: true });
  own.dirs.clear();
  own.pids.clear();
});

/** After a run: no process, no process group, no directory (unless kept), no shm object of its own. */
async function expectNothingLeft(result: RunResult, extraPids: number[] = []) {
  const pids = [...result.roles.map((r) => r.pid), ...extraPids];
  await waitUntil(() => survivors(pids).length === 0, 10_000);
  expect(survivors(pids)).toEqual([]);
  if (result.kept) {
    expect(existsSync(result.dir)).toBe(true);
    rmSync(result.dir, { recursive: true, force: true });
  } else {
    expect(existsSync(result.dir)).toBe(false);
  }
  // Nothing re-creates a directory once it is removed (e.g. a straggler's mkdir -p of its trace dir):
  // checked once every process of the run is gone (above), so none is left that could.
  expect([...own.dirs].filter((d) => existsSync(d))).toEqual([]);
  expect(leakedShmOf(shmObjectsOfRun(result.traces))).toEqual([]);
}

test('passing roles: values, marks, environment, events, echo; directory removed', async () => {
  const events: RunEvent[] = [];
  const echoed: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    echoed.push(chunk.toString());
    return true;
  });
  const result = await run({
    label: 'happy',
    timeoutMs: GENEROUS_MS,
    echo: true,
    onEvent: (e) => events.push(e),
    roles: [
      role('producer', 'producer'),
      role('consumer', 'consumer', { device: 1 }),
      role('env', 'passes', { device: 2, index: 7, env: { EXTRA_VAR: 'extra' }, entry: { module: ROLES, export: 'passes', args: { n: 1 } } }),
    ],
  }).finally(() => spy.mockRestore());
  expect(result.ok).toBe(true);
  expect(result.kept).toBe(false);
  // echo: every line of a role, live, prefixed with [role@devN]
  // eslint-disable-next-line no-control-regex
  expect(echoed.join('').replace(/\x1b\[[0-9;]*m/g, '')).toContain('[env@dev2] hello from env on device 2\n');
  expect(result.timedOut).toBe(false);
  const r = byName(result);
  expect(r.producer).toMatchObject({ status: 'passed', exitCode: 0, signal: null, value: 'producer ok', device: 0, index: 0 });
  expect(r.consumer).toMatchObject({ status: 'passed', value: 'from producer', device: 1, index: 1 });
  expect(r.consumer.error).toBeUndefined();
  // Marks are CLOCK_MONOTONIC ns, comparable across processes: receiving follows publishing.
  const published = BigInt(r.producer.marks[0].tNs);
  const received = BigInt(r.consumer.marks[0].tNs);
  expect(r.producer.marks[0].name).toBe('publish');
  expect(received > published).toBe(true);
  expect(r.env.value).toEqual({
    args: { n: 1 },
    env: { role: 'env', device: '2', index: '7', dir: result.dir, mode: 'auto', trace: path.join(result.dir, 'trace'), extra: 'extra' },
    ctx: { role: 'env', device: 2, index: 7, dir: result.dir },
  });
  expect(r.env.stdout).toBe('hello from env on device 2\n');
  expect(r.env.marks.map((m) => m.name)).toEqual(['begin', 'end']);
  expect(r.env.marks.every((m) => /^\d+$/.test(m.tNs))).toBe(true);
  // Progress events: every role starts and exits once; the consumer was seen waiting.
  for (const name of ['producer', 'consumer', 'env']) {
    expect(events.filter((e) => e.type === 'started' && e.role === name)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'exited' && e.role === name && e.status === 'passed')).toHaveLength(1);
  }
  expect(events).toContainEqual({ type: 'waiting', role: 'consumer', waitingFor: { what: 'handle "payload"', from: 'producer' } });
  expect(events).toContainEqual(expect.objectContaining({ type: 'mark', role: 'env', name: 'begin' }));
  expect(result.summary).toMatch(/^happy: passed in \d+ ms/);
  await expectNothingLeft(result);
}, TEST_TIMEOUT_MS);

test('each way of failing gets its own status and reason (failFast off)', async () => {
  const result = await run({
    label: 'failures',
    timeoutMs: GENEROUS_MS,
    failFast: false,
    roles: [
      role('throws', 'throws'),
      role('rejects', 'rejectsLater'),
      role('acl', 'throwsAclLike'),
      role('exit3', 'exits3'),
      role('early', 'exitsEarlyZero'),
      role('segv', 'segfaults'),
      role('noexport', 'doesNotExist'),
      role('notfn', 'notAFunction'),
      role('bigint', 'returnsBigInt'),
      role('fn', 'returnsFunction'),
    ],
  });
  expect(result.ok).toBe(false);
  expect(result.timedOut).toBe(false);
  expect(result.kept).toBe(true);
  const r = byName(result);
  expect(r.throws).toMatchObject({ status: 'failed', exitCode: 1, error: { message: 'role body failed on purpose' } });
  expect(r.throws.error!.stack).toMatch(/roles\.ts/);
  expect(r.throws.stdout).toBe('about to throw\n');
  expect(r.rejects).toMatchObject({ status: 'failed', error: { message: 'async failure' } });
  expect(r.acl.error!.acl).toEqual({
    code: 107017,
    name: 'ACL_ERROR_RT_INVALID_HANDLE',
    call: 'aclrtRecordEvent',
    args: 'event=0x0',
    recentErrMsg: 'bad handle',
  });
  expect(r.exit3).toMatchObject({ status: 'failed', exitCode: 3, signal: null });
  expect(r.exit3.error!.message).toBe('exited with code 3 before reporting a result');
  expect(r.early).toMatchObject({ status: 'failed', exitCode: 0 });
  expect(r.early.error!.message).toBe('exited with code 0 before reporting a result');
  expect(r.segv).toMatchObject({ status: 'crashed', signal: 'SIGSEGV', exitCode: null });
  expect(r.segv.error!.message).toMatch(/killed by signal SIGSEGV/);
  expect(r.noexport.error!.message).toMatch(/has no exported function "doesNotExist" \(exported functions: .*passes/);
  expect(r.notfn).toMatchObject({ status: 'failed' });
  expect(r.bigint.error!.message).toMatch(/cannot be sent as JSON/);
  expect(r.fn).toMatchObject({ status: 'failed' });
  expect(r.fn.error!.message).toMatch(/the value\.handler is a function, which JSON cannot carry to the parent: return plain data/);
  expect(result.summary).toMatch(/CRASH segv@dev0 crashed \(signal SIGSEGV/);
  expect(result.summary).toMatch(/acl: aclrtRecordEvent\(event=0x0\) -> ACL_ERROR_RT_INVALID_HANDLE \(107017\): bad handle/);
  // A kept directory holds the logs and the result for a post-mortem.
  expect(readFileSync(path.join(result.dir, 'logs', 'throws.stdout.log'), 'utf8')).toBe('about to throw\n');
  expect(JSON.parse(readFileSync(path.join(result.dir, 'result.json'), 'utf8')).ok).toBe(false);
  await expectNothingLeft(result);
}, TEST_TIMEOUT_MS);

test('deadline: hung roles are reported with what they waited for and their last lines, then killed', async () => {
  const grandchildren: number[] = [];
  // The deadline is brought forward (expireOn) once every role is in its final state: a fixed
  // deadline would have to outlast the slowest start-up under load.
  const expire = new AbortController();
  const pending = new Set(['waits', 'stubborn', 'parent', 'quick']);
  const settled = (name: string) => pending.delete(name) && pending.size === 0 && expire.abort();
  const result = await run({
    label: 'scenario "deadline"',
    timeoutMs: GENEROUS_MS,
    expireOn: expire.signal,
    graceMs: 300,
    roles: [
      role('waits', 'hangsOnHandle'),
      role('stubborn', 'ignoresSigterm', { device: 1 }),
      role('parent', 'spawnsGrandchildAndHangs', { device: 2 }),
      role('quick', 'sleeps', { entry: { module: ROLES, export: 'sleeps', args: { ms: 10 } } }),
    ],
    onEvent: (e) => {
      if (e.type === 'started' && e.role === 'parent') {
        void new Rendezvous(e.dir)
          .await('grandchild-parent', { timeoutMs: 60_000 })
          .then((b) => (grandchildren.push(Number(b.toString())), settled('parent')), () => undefined);
      }
      if (e.type === 'waiting' && e.role === 'waits' && e.waitingFor) settled('waits');
      if (e.type === 'mark' && e.role === 'stubborn' && e.name === 'ignoring SIGTERM') settled('stubborn');
      if (e.type === 'exited' && e.role === 'quick') settled('quick');
    },
  });
  expect(result.ok).toBe(false);
  expect(result.timedOut).toBe(true);
  const r = byName(result);
  expect(r.quick).toMatchObject({ status: 'passed', value: 'slept' });
  expect(r.waits).toMatchObject({ status: 'timeout', signal: 'SIGTERM', waitingFor: { what: 'handle "never-published"', from: 'ghost' } });
  expect(r.waits.error!.message).toMatch(
    /still running when the deadline of scenario "deadline" was brought forward \(RunOptions\.expireOn\); it was waiting for handle "never-published" from role "ghost"/,
  );
  // Ignoring SIGTERM only buys the grace period.
  expect(r.stubborn).toMatchObject({ status: 'timeout', signal: 'SIGKILL' });
  expect(r.parent.status).toBe('timeout');
  expect(result.summary).toMatch(/TIME  waits@dev0 timeout/);
  expect(result.summary).toMatch(/waiting for: handle "never-published" from role "ghost"/);
  expect(result.summary).toMatch(/\| waiting for a handle that never comes/);
  expect(grandchildren).toHaveLength(1);
  await expectNothingLeft(result, grandchildren);
}, TEST_TIMEOUT_MS);

test('the deadline\'s own timer: a role still running when it expires is stopped as timeout, and the reason names the deadline', async () => {
  // Whether the role is up yet at 1.5 s does not matter: it never ends by itself.
  const result = await run({ label: 'scenario "timer"', timeoutMs: 1500, graceMs: 300, roles: [role('waits', 'hangsOnHandle')] });
  expect(result.timedOut).toBe(true);
  expect(result.roles[0].status).toBe('timeout');
  expect(result.roles[0].error!.message).toMatch(/^still running when the 1500 ms deadline of scenario "timer" expired/);
  await expectNothingLeft(result);
}, TEST_TIMEOUT_MS);

test('fail-fast: one failure stops the others, which are reported as stopped', async () => {
  const result = await run({
    timeoutMs: GENEROUS_MS,
    graceMs: 500,
    roles: [
      role('waits', 'hangsOnHandle'),
      role('sleeper', 'sleeps', { entry: { module: ROLES, export: 'sleeps', args: { ms: GENEROUS_MS } } }),
      role('bad', 'failsAfterSignal', {
        device: 1,
        entry: { module: ROLES, export: 'failsAfterSignal', args: { signals: ['hanging-waits', 'transforming-transforming'] } },
      }),
      // Stopped while loading TypeScript in a loop. On a transform-cache miss the group SIGTERM
      // also kills esbuild's service and the dying role reports "The service was stopped"; on a hit
      // it is a synchronous loop that only the SIGKILL after the grace period ends. Either way it
      // is "stopped", not "failed".
      role('transforming', 'transformsUntilStopped', { device: 2 }),
    ],
  });
  expect(result.timedOut).toBe(false);
  const r = byName(result);
  expect(r.bad.status).toBe('failed');
  expect(r.waits).toMatchObject({ status: 'stopped', waitingFor: { what: 'handle "never-published"', from: 'ghost' } });
  expect(r.waits.error!.message).toBe('stopped because role "bad" failed first');
  expect(r.sleeper.status).toBe('stopped');
  expect(r.transforming.status).toBe('stopped');
  expect(r.transforming.error!.message).toBe('stopped because role "bad" failed first');
  await expectNothingLeft(result);
}, TEST_TIMEOUT_MS);

test('output is never cut off silently: flushed before exit, and a capped stream says how much is missing', async () => {
  const result = await run({
    timeoutMs: GENEROUS_MS,
    failFast: false,
    roles: [
      role('chatty', 'printsThenThrows', { entry: { module: ROLES, export: 'printsThenThrows', args: { mib: 2 } } }),
      role('flood', 'printsThenThrows', { entry: { module: ROLES, export: 'printsThenThrows', args: { mib: 9 } } }),
    ],
  });
  const r = byName(result);
  // Everything the role wrote before failing reached the parent, last words included.
  expect(r.chatty.status).toBe('failed');
  expect(r.chatty.stdout.length).toBe(2 * 1024 * 1024 + 'last words\n'.length);
  expect(r.chatty.stdout.endsWith('.\nlast words\n')).toBe(true);
  expect(r.chatty.outputLoss).toBeUndefined();
  // Beyond the 8 MiB kept per stream, the head goes, and the result and the report say so.
  expect(r.flood.stdout.endsWith('.\nlast words\n')).toBe(true);
  expect(r.flood.outputLoss).toEqual([{ stream: 'stdout', notKeptChars: expect.any(Number), unflushedBytes: 0 }]);
  expect(r.flood.outputLoss![0].notKeptChars).toBeGreaterThanOrEqual(1024 * 1024);
  const report = formatScenarioFailure('chatty', result);
  expect(report).toMatch(
    / {4}\| last words\n {2}stdout is incomplete: the first \d+ characters were not kept here \(the harness keeps the last 8 MiB in memory, and a kept directory's logs\/flood\.stdout\.log has the full log\)/,
  );
  // The kept directory has the whole stream, byte for byte, streamed while the role ran (it had the last 8 MiB only).
  expect(result.kept).toBe(true);
  const whole = Buffer.from(`${`${'.'.repeat(1023)}\n`.repeat(9 * 1024)}last words\n`);
  const log = readFileSync(path.join(result.dir, 'logs', 'flood.stdout.log'));
  expect(log.length).toBe(whole.length);
  expect(log.equals(whole)).toBe(true);
  expect(readFileSync(path.join(result.dir, 'logs', 'chatty.stdout.log'), 'utf8')).toBe(r.chatty.stdout);
  expect(result.postMortemProblems).toBeUndefined();
  await expectNothingLeft(result);
}, TEST_TIMEOUT_MS);

// Two runs at the same time with the same role name: one keeps its directory (keepDir), the other
// not, and neither sees the other's. (One pair of runs for both checks: each is a device process.)
test('two runs at the same time stay apart; keepDir and CANN_HARNESS_KEEP=1 keep a passing run\'s directory', async () => {
  const [kept, plain] = await Promise.all([
    run({ timeoutMs: GENEROUS_MS, keepDir: true, roles: [role('same', 'passes')] }),
    run({ timeoutMs: GENEROUS_MS, roles: [role('same', 'passes')] }),
  ]);
  expect(kept).toMatchObject({ ok: true, kept: true });
  expect(plain).toMatchObject({ ok: true, kept: false });
  expect(kept.dir).not.toBe(plain.dir);
  // The kept one ran in the temp dir and was moved into the results folder (results-dir.ts).
  const ranIn = (kept.roles[0].value as { env: { dir: string } }).env.dir;
  expect(path.basename(kept.dir)).toBe(path.basename(ranIn));
  expect(path.dirname(kept.dir)).toBe(process.env.CANN_HARNESS_RESULTS_DIR);
  expect(existsSync(ranIn)).toBe(false);
  expect((plain.roles[0].value as { env: { dir: string } }).env.dir).toBe(plain.dir);
  expect(existsSync(path.join(kept.dir, 'logs', 'same.stdout.log'))).toBe(true);
  await expectNothingLeft(kept);
  await expectNothingLeft(plain);

  process.env.CANN_HARNESS_KEEP = '1';
  try {
    const viaEnv = await run({ timeoutMs: GENEROUS_MS, roles: [role('a', 'passes')] });
    expect(viaEnv).toMatchObject({ ok: true, kept: true });
    await expectNothingLeft(viaEnv);
  } finally {
    delete process.env.CANN_HARNESS_KEEP;
  }
}, TEST_TIMEOUT_MS);

describe('bad options are rejected before anything is started', () => {
  const ok = role('a', 'passes');
  test.each<[string, object, RegExp]>([
    ['no roles', { roles: [] }, /roles must be a non-empty array/],
    ['bad timeout', { timeoutMs: 0 }, /timeoutMs must be a positive finite number/],
    ['bad mode', { mode: 'fake' }, /mode must be one of auto, stub, real/],
    ['expireOn not a signal', { expireOn: 5000 }, /expireOn must be an AbortSignal \(new AbortController\(\)\.signal\), or left out/],
    ['bad name', { roles: [{ ...ok, name: '../x' }] }, /name must be 1-200 characters/],
    ['duplicate name', { roles: [ok, ok] }, /duplicate role name/],
    ['bad device', { roles: [{ ...ok, device: -1 }] }, /device must be an integer >= 0/],
    ['relative module', { roles: [{ ...ok, entry: { module: 'x.ts', export: 'a' } }] }, /entry.module must be an absolute path/],
    ['missing module', { roles: [{ ...ok, entry: { module: '/nonexistent/x.ts', export: 'a' } }] }, /does not exist/],
    ['reserved env', { roles: [{ ...ok, env: { CANN_HARNESS_ROLE: 'x' } }] }, /set by the harness itself/],
  ])('%s', async (_what, patch, message) => {
    // Nothing of this call's own: no scenario directory made (in /sys any attempt fails with another
    // error; the transform's module exports cannot be spied on), no process started.
    const before = process.env.CANN_HARNESS_TMPDIR;
    process.env.CANN_HARNESS_TMPDIR = '/sys';
    const events: RunEvent[] = [];
    try {
      const err = await runRoles({ roles: [ok], timeoutMs: 1000, ...patch, onEvent: (e: RunEvent) => events.push(e) } as never).catch((e) => e);
      expect(err).toBeInstanceOf(RunOptionsError);
      expect(err.message).toMatch(message);
      expect(events).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.CANN_HARNESS_TMPDIR;
      else process.env.CANN_HARNESS_TMPDIR = before;
    }
  });
});

test('a scenario base directory that cannot be written is a clear error naming CANN_HARNESS_TMPDIR and the fix', async () => {
  const before = process.env.CANN_HARNESS_TMPDIR;
  process.env.CANN_HARNESS_TMPDIR = '/sys'; // exists, but nothing can be created in it (EPERM / EROFS)
  try {
    const err = await runRoles({ roles: [role('a', 'passes')], timeoutMs: 1000 }).catch((e) => e);
    expect(err.message).toMatch(/^cannot create a scenario directory in CANN_HARNESS_TMPDIR=\/sys \((EPERM|EROFS|EACCES): .*\): set CANN_HARNESS_TMPDIR to a writable directory/);
  } finally {
    if (before === undefined) delete process.env.CANN_HARNESS_TMPDIR;
    else process.env.CANN_HARNESS_TMPDIR = before;
  }
});
