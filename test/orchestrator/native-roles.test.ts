/**
 * Native roles (a program instead of a body) through runRoles on the CPU stub: exit codes,
 * expectExit / expectOutput, the environment and placeholders, the library it loads whatever its
 * rpath says, and nothing left behind when it crashes inside an ACL call, forks, or hangs.
 */
import { existsSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runRoles, type RoleResult, type RoleSpec, type RunEvent, type RunResult } from '../../src/orchestrator';
import type { NativeRoleSpec } from '../../src/orchestrator/native-role';
import { formatScenarioFailure } from '../../src/report/failure';
import { killGroups, leakedShmOf, shmObjectsOfRun, survivors, waitUntil } from '../support/leftovers';
import { fixtureBuild, STUB_LIB_DIR, type FixtureBuild } from '../support/native-fixture';
import { describeWithStub as withStub, haveStub } from '../support/with-stub';

const SOURCE = path.join(__dirname, 'fixtures', 'native', 'native_role.c');
/** The stub's object files: linked into a program, a statically linked copy of the library. */
const STUB_OBJ_DIR = path.join(STUB_LIB_DIR, '..', 'obj', 'src');

let build: FixtureBuild;
let program: string;
const ownPids = new Set<number>();
const ownDirs = new Set<string>();
const track = (e: RunEvent) => {
  if (e.type !== 'started') return;
  ownPids.add(e.pid);
  ownDirs.add(e.dir);
};

beforeAll(() => {
  if (!haveStub) return;
  build = fixtureBuild();
  program = build.compile(SOURCE, 'native_role');
});
afterAll(() => build?.remove());
afterEach(() => {
  killGroups(ownPids);
  // A failed run's directory is kept; a test that failed before removing it must not leave it.
  for (const d of ownDirs) rmSync(d, { recursive: true, force: true });
  ownDirs.clear();
});

const native = (name: string, args: string[], more: Partial<NativeRoleSpec> = {}, device = 0): RoleSpec => ({
  name,
  device,
  native: { program, args, ...more },
  env: { ACL_STUB_DEVICE_COUNT: '2' },
});
const run = (roles: RoleSpec[], timeoutMs = 20_000) => runRoles({ roles, timeoutMs, mode: 'stub', collectTraces: true, onEvent: track, keepDir: false });
const byName = (r: RunResult) => Object.fromEntries(r.roles.map((x) => [x.name, x])) as Record<string, RoleResult>;

async function expectNothingLeft(result: RunResult) {
  const pids = [...ownPids];
  const shm = shmObjectsOfRun(result.traces);
  await waitUntil(() => survivors(pids).length === 0 && leakedShmOf(shm).length === 0, 10_000);
  expect(survivors(pids)).toEqual([]);
  if (result.kept) rmSync(result.dir, { recursive: true, force: true });
  expect(existsSync(result.dir)).toBe(false);
  expect(leakedShmOf(shm)).toEqual([]);
}

withStub('native roles', () => {
  test('a program that exits 0 passes, loads the harness stub (no rpath of its own) and leaves nothing', async () => {
    const result = await run([native('producer', ['ok'])]);
    const r = byName(result).producer;
    expect(r.status).toBe('passed');
    expect(r.stdout).toContain('native role finished successfully');
    expect(r.library && realpathSync(r.library)).toBe(realpathSync(path.join(STUB_LIB_DIR, 'libascendcl.so')));
    expect(shmObjectsOfRun(result.traces).length).toBeGreaterThan(0); // the stub traced it: the run's objects are known
    await expectNothingLeft(result);
  });

  test('cwd is the scenario directory; placeholders and the contract environment are set', async () => {
    const result = await runRoles({
      roles: [{ ...native('consumer-1', ['env', '{device}', '{index}', '{dir}/x'], {}, 1), index: 1, env: { ACL_STUB_DEVICE_COUNT: '2', MY_VAR: 'mine' } }],
      timeoutMs: 20_000,
      mode: 'stub',
      onEvent: track,
      deferRemoval: true,
    });
    const out = byName(result)['consumer-1'].stdout;
    expect(result.ok).toBe(true);
    const dir = realpathSync(result.dir);
    expect(out).toContain(`cwd=${dir}\n`);
    expect(out).toContain(`arg=1\narg=1\narg=${result.dir}/x\n`);
    expect(out).toContain('CANN_HARNESS_ROLE=consumer-1\n');
    expect(out).toContain('CANN_HARNESS_DEVICE=1\n');
    expect(out).toContain('CANN_HARNESS_INDEX=1\n');
    expect(out).toContain(`CANN_HARNESS_DIR=${result.dir}\n`);
    expect(out).toContain(`ACL_STUB_TRACE=${path.join(result.dir, 'trace')}\n`);
    expect(out).toContain('MY_VAR=mine\n');
    const deadline = BigInt(/CANN_HARNESS_DEADLINE_NS=(\d+)/.exec(out)![1]);
    // After the harness's own deadline, hang report (3 s) and grace (2 s), plus 2 s for a late timer: the harness stops it first.
    expect(deadline - BigInt(result.startNs!)).toBe(27_000_000_000n);
    rmSync(result.dir, { recursive: true, force: true });
  });

  test('an rpath to another libascendcl.so is overridden: the harness chooses the library', async () => {
    const decoy = build.decoyLibrary('decoy');
    const rpathed = build.compile(SOURCE, 'native_role_rpath', ['-Wl,--disable-new-dtags', `-Wl,-rpath,${path.dirname(decoy)}`]); // DT_RPATH: searched before LD_LIBRARY_PATH
    const result = await runRoles({ roles: [{ name: 'p', device: 0, native: { program: rpathed, args: ['ok'] } }], timeoutMs: 20_000, mode: 'stub', onEvent: track });
    const r = byName(result).p;
    expect(r.status).toBe('passed');
    expect(realpathSync(r.library!)).toBe(realpathSync(path.join(STUB_LIB_DIR, 'libascendcl.so')));
  });

  test('a second libascendcl.so dlopen()ed by full path is seen and fails the role (it passed)', async () => {
    const second = build.decoyLibrary('second');
    const result = await run([native('p', ['dlopen-second', second])]);
    const r = byName(result).p;
    expect(r.stdout).toContain('initialised the second copy');
    expect(r.status).toBe('failed');
    expect(r.error?.message).toContain(`it also loaded ${second}`);
    await expectNothingLeft(result);
  });

  test('a statically linked copy of the library is seen: its calls do not reach the chosen one (it passed)', async () => {
    const objects = readdirSync(STUB_OBJ_DIR).filter((f) => f.endsWith('.o')).map((f) => path.join(STUB_OBJ_DIR, f));
    const linkedIn = build.compile(SOURCE, 'native_role_static', [...objects, '-pthread']);
    const result = await run([native('p', ['ok'])].map((r) => ({ ...r, native: { ...r.native!, program: linkedIn } })));
    const r = byName(result).p;
    expect(r.stdout).toContain('native role finished successfully');
    expect(r.status).toBe('failed');
    expect(r.error?.message).toContain('its ACL calls reached a copy in');
    expect(r.error?.message).toContain('linked into the program statically');
    await expectNothingLeft(result);
  });

  test('a bad exit code fails the role, naming the code; expectExit makes it a pass', async () => {
    const bad = await run([native('producer', ['exit', '3'])]);
    const r = byName(bad).producer;
    expect(r.status).toBe('failed');
    expect(r.error?.message).toBe('native_role exited with code 3 (expected 0)');
    expect(r.stdout).toContain('exiting with 3 as asked');
    expect(bad.firstFailure?.role).toBe('producer');
    expect(formatScenarioFailure('s', bad)).toContain('exiting with 3 as asked');
    expect(bad.summary).toContain(`library: ${r.library}`); // the report says which libascendcl.so it loaded
    expect(r.library).toMatch(/libascendcl\.so$/);
    rmSync(bad.dir, { recursive: true, force: true });
    const good = await run([native('producer', ['exit', '3'], { expectExit: 3 })]);
    expect(byName(good).producer.status).toBe('passed');
  });

  test('expectOutput: exit 0 without a matching line fails; a matching line passes', async () => {
    const miss = await run([native('producer', ['exit', '0'], { expectOutput: /finished successfully/ })]);
    expect(byName(miss).producer.status).toBe('failed');
    expect(byName(miss).producer.error?.message).toBe('native_role exited with code 0 but no line of its output matches expectOutput /finished successfully/');
    rmSync(miss.dir, { recursive: true, force: true });
    const hit = await run([native('producer', ['ok'], { expectOutput: /^native role finished successfully$/ })]);
    expect(byName(hit).producer.status).toBe('passed');
  });

  test('a crash inside an ACL call is blamed as crashed, with its output; the other role is stopped; nothing is left', async () => {
    const result = await run([native('crasher', ['crash-in-acl']), native('waiter', ['hang'], {}, 1)]);
    const roles = byName(result);
    expect(roles.crasher.status).toBe('crashed');
    expect(roles.crasher.signal).toBe('SIGSEGV');
    expect(roles.crasher.stdout).toContain('about to crash inside aclrtIpcGetEventHandle');
    expect(result.firstFailure?.role).toBe('crasher');
    expect(roles.waiter.status).toBe('stopped');
    expect(roles.waiter.error?.message).toContain('stopped because role "crasher" crashed');
    expect(shmObjectsOfRun(result.traces).length).toBeGreaterThan(0); // the crasher recorded its event before it crashed
    await expectNothingLeft(result);
  });

  test('what a native role forked dies with it, and its IPC objects are reclaimed', async () => {
    const result = await run([native('forker', ['fork'])]);
    const r = byName(result).forker;
    expect(r.status).toBe('passed');
    const child = Number(/forked child (\d+)/.exec(r.stdout)![1]);
    ownPids.add(child);
    const objects = shmObjectsOfRun(result.traces);
    expect(objects.length).toBeGreaterThan(0);
    // At once, not after a wait: any other stub process's aclInit would reclaim them later anyway.
    expect(leakedShmOf(objects)).toEqual([]);
    await expectNothingLeft(result);
  });

  test('a descendant that left the role\'s process group (setsid) is stopped at the end and fails the role, named', async () => {
    const result = await run([native('daemonizer', ['setsid-fork'])]);
    const r = byName(result).daemonizer;
    const child = Number(/forked child (\d+)/.exec(r.stdout)![1]);
    ownPids.add(child);
    expect(r.status).toBe('failed');
    expect(r.error?.message).toContain(`left process ${child} running outside its process group`);
    expect(result.ok).toBe(false);
    expect(result.summary).toContain(`left process ${child} running outside its process group`);
    await expectNothingLeft(result);
  });

  test('a hanging native role times out at the deadline (TERM, then KILL of its group) and leaves nothing', async () => {
    const result = await run([native('stuck', ['hang'])], 1500);
    expect(result.timedOut).toBe(true);
    const r = byName(result).stuck;
    expect(r.status).toBe('timeout');
    expect(r.stdout).toContain('holding an IPC event forever');
    expect(r.error?.message).toContain('still running when the 1500 ms deadline');
    await expectNothingLeft(result);
  });

  test('a program that cannot start fails with the reason', async () => {
    const result = await runRoles({ roles: [{ name: 'p', device: 0, native: { program: path.join(build.dir, 'nope'), args: [] } }], timeoutMs: 5000, mode: 'stub', onEvent: track });
    expect(byName(result).p.status).toBe('failed');
    expect(byName(result).p.error?.message).toMatch(/could not start .*nope: spawn .*ENOENT/);
    rmSync(result.dir, { recursive: true, force: true });
  });

  test('a script whose #! interpreter is missing says so (it was "spawn <program> ENOENT")', async () => {
    const script = path.join(build.dir, 'needs-missing-interpreter.sh');
    writeFileSync(script, '#!/nonexistent/bin/interp -x\necho hi\n', { mode: 0o755 });
    const result = await runRoles({ roles: [{ name: 'p', device: 0, native: { program: script, args: [] } }], timeoutMs: 5000, mode: 'stub', onEvent: track });
    expect(byName(result).p.status).toBe('failed');
    expect(byName(result).p.error?.message).toContain(`could not start ${script}: its #! interpreter /nonexistent/bin/interp is missing (first line of the script)`);
    rmSync(result.dir, { recursive: true, force: true });
  });
});
