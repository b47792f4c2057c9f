/** runRoles: statuses for every way a role can end, and nothing left behind afterwards. */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { runRoles, RunOptionsError, type RoleResult, type RunEvent, type RunResult, type RoleSpec } from '../../src/orchestrator';
import { Rendezvous } from '../../src/rendezvous';
import { leakedShm, scenarioDirsOf, shmEntries, survivors, waitUntil } from './leftovers';

const ROLES = path.join(__dirname, 'fixtures', 'roles.ts');
const role = (name: string, exp: string, extra: Partial<RoleSpec> = {}): RoleSpec => ({
  name,
  device: 0,
  entry: { module: ROLES, export: exp },
  ...extra,
});
const byName = (r: RunResult) => Object.fromEntries(r.roles.map((x) => [x.name, x])) as Record<string, RoleResult>;

let shmBefore: Set<string>;
beforeEach(() => {
  shmBefore = shmEntries();
});

/** After every run: no process, no process group, no directory (unless kept), no shm object. */
// A failing test must not make the next ones fail too: remove what it may have kept.
afterEach(() => {
  for (const d of scenarioDirsOf(process.pid)) rmSync(d, { recursive: true, force: true });
});

async function expectNothingLeft(result: RunResult, extraPids: number[] = []) {
  const pids = [...result.roles.map((r) => r.pid), ...extraPids];
  await waitUntil(() => survivors(pids).length === 0, 3000);
  expect(survivors(pids)).toEqual([]);
  if (result.kept) {
    expect(existsSync(result.dir)).toBe(true);
    rmSync(result.dir, { recursive: true, force: true });
  } else {
    expect(existsSync(result.dir)).toBe(false);
  }
  expect(scenarioDirsOf(process.pid)).toEqual([]);
  expect(leakedShm(shmBefore)).toEqual([]);
}

test('passing roles: values, marks, environment, events, echo; directory removed', async () => {
  const events: RunEvent[] = [];
  const echoed: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    echoed.push(chunk.toString());
    return true;
  });
  const result = await runRoles({
    label: 'happy',
    timeoutMs: 30_000,
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
});

test('each way of failing gets its own status and reason (failFast off)', async () => {
  const result = await runRoles({
    label: 'failures',
    timeoutMs: 30_000,
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
  expect(result.summary).toMatch(/CRASH segv@dev0 crashed \(signal SIGSEGV/);
  expect(result.summary).toMatch(/acl: aclrtRecordEvent\(event=0x0\) -> ACL_ERROR_RT_INVALID_HANDLE \(107017\): bad handle/);
  // A kept directory holds the logs and the result for a post-mortem.
  expect(readFileSync(path.join(result.dir, 'logs', 'throws.stdout.log'), 'utf8')).toBe('about to throw\n');
  expect(JSON.parse(readFileSync(path.join(result.dir, 'result.json'), 'utf8')).ok).toBe(false);
  await expectNothingLeft(result);
});

test('deadline: hung roles are reported with what they waited for and their last lines, then killed', async () => {
  const grandchildren: number[] = [];
  const result = await runRoles({
    label: 'deadline',
    timeoutMs: 5000,
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
          .await('grandchild-parent', { timeoutMs: 10_000 })
          .then((b) => grandchildren.push(Number(b.toString())), () => undefined);
      }
    },
  });
  expect(result.ok).toBe(false);
  expect(result.timedOut).toBe(true);
  const r = byName(result);
  expect(r.quick).toMatchObject({ status: 'passed', value: 'slept' });
  expect(r.waits).toMatchObject({ status: 'timeout', signal: 'SIGTERM', waitingFor: { what: 'handle "never-published"', from: 'ghost' } });
  expect(r.waits.error!.message).toMatch(/5000 ms deadline of "deadline" expired; it was waiting for handle "never-published" from role "ghost"/);
  // Ignoring SIGTERM only buys the grace period.
  expect(r.stubborn).toMatchObject({ status: 'timeout', signal: 'SIGKILL' });
  expect(r.parent.status).toBe('timeout');
  expect(result.summary).toMatch(/TIME  waits@dev0 timeout/);
  expect(result.summary).toMatch(/waiting for: handle "never-published" from role "ghost"/);
  expect(result.summary).toMatch(/\| waiting for a handle that never comes/);
  expect(grandchildren).toHaveLength(1);
  await expectNothingLeft(result, grandchildren);
});

test('fail-fast: one failure stops the others, which are reported as stopped', async () => {
  const result = await runRoles({
    timeoutMs: 30_000,
    graceMs: 500,
    roles: [
      role('waits', 'hangsOnHandle'),
      role('sleeper', 'sleeps', { entry: { module: ROLES, export: 'sleeps', args: { ms: 25_000 } } }),
      role('bad', 'failsAfterSignal', { device: 1, entry: { module: ROLES, export: 'failsAfterSignal', args: { signal: 'hanging-waits' } } }),
    ],
  });
  expect(result.timedOut).toBe(false);
  const r = byName(result);
  expect(r.bad.status).toBe('failed');
  expect(r.waits).toMatchObject({ status: 'stopped', waitingFor: { what: 'handle "never-published"', from: 'ghost' } });
  expect(r.waits.error!.message).toBe('stopped because role "bad" failed');
  expect(r.sleeper.status).toBe('stopped');
  await expectNothingLeft(result);
});

test('keepDir and CANN_HARNESS_KEEP=1 keep a passing run\'s directory', async () => {
  const kept = await runRoles({ timeoutMs: 30_000, keepDir: true, roles: [role('a', 'passes')] });
  expect(kept).toMatchObject({ ok: true, kept: true });
  expect(existsSync(path.join(kept.dir, 'logs', 'a.stdout.log'))).toBe(true);
  await expectNothingLeft(kept);

  process.env.CANN_HARNESS_KEEP = '1';
  try {
    const viaEnv = await runRoles({ timeoutMs: 30_000, roles: [role('a', 'passes')] });
    expect(viaEnv).toMatchObject({ ok: true, kept: true });
    await expectNothingLeft(viaEnv);
  } finally {
    delete process.env.CANN_HARNESS_KEEP;
  }
});

test('two runs at the same time stay apart', async () => {
  const [a, b] = await Promise.all([
    runRoles({ timeoutMs: 30_000, roles: [role('same', 'passes')] }),
    runRoles({ timeoutMs: 30_000, roles: [role('same', 'passes')] }),
  ]);
  expect(a.ok && b.ok).toBe(true);
  expect(a.dir).not.toBe(b.dir);
  expect((a.roles[0].value as { env: { dir: string } }).env.dir).toBe(a.dir);
  expect((b.roles[0].value as { env: { dir: string } }).env.dir).toBe(b.dir);
  await expectNothingLeft(a);
  await expectNothingLeft(b);
});

describe('bad options are rejected before anything is started', () => {
  const ok = role('a', 'passes');
  test.each<[string, object, RegExp]>([
    ['no roles', { roles: [] }, /roles must be a non-empty array/],
    ['bad timeout', { timeoutMs: 0 }, /timeoutMs must be a positive finite number/],
    ['bad mode', { mode: 'fake' }, /mode must be one of auto, stub, real/],
    ['bad name', { roles: [{ ...ok, name: '../x' }] }, /name must be 1-200 characters/],
    ['duplicate name', { roles: [ok, ok] }, /duplicate role name/],
    ['bad device', { roles: [{ ...ok, device: -1 }] }, /device must be an integer >= 0/],
    ['relative module', { roles: [{ ...ok, entry: { module: 'x.ts', export: 'a' } }] }, /entry.module must be an absolute path/],
    ['missing module', { roles: [{ ...ok, entry: { module: '/nonexistent/x.ts', export: 'a' } }] }, /does not exist/],
    ['reserved env', { roles: [{ ...ok, env: { CANN_HARNESS_ROLE: 'x' } }] }, /set by the harness itself/],
  ])('%s', async (_what, patch, message) => {
    const err = await runRoles({ roles: [ok], timeoutMs: 1000, ...patch } as never).catch((e) => e);
    expect(err).toBeInstanceOf(RunOptionsError);
    expect(err.message).toMatch(message);
    expect(scenarioDirsOf(process.pid)).toEqual([]);
  });
});
