/**
 * The orchestrator with the real binding on the CPU stub: precheck, roles that use ctx.acl,
 * ACL errors and native crashes in results, and no shared-memory objects left behind.
 * Needs the stub (`npm run build:stub`); koffi is only ever loaded in child processes.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { precheck, runRoles, type RoleResult, type RoleSpec, type RunEvent, type RunResult } from '../../src/orchestrator';
import { formatScenarioFailure } from '../../src/report/failure';
import { leakedShmOf, shmObjectsOfRun, survivors, waitUntil } from '../support/leftovers';
import { expireWhenStuck } from '../support/stuck';
import { describeWithStub as withStub, STUB_LIBRARY as STUB } from '../support/with-stub';

const ACL_ROLES = path.join(__dirname, 'fixtures', 'acl-roles.ts');
const role = (name: string, device: number, exp: string): RoleSpec => ({
  name,
  device,
  entry: { module: ACL_ROLES, export: exp },
  env: { ACL_STUB_DEVICE_COUNT: '2' },
});
const byName = (r: RunResult) => Object.fromEntries(r.roles.map((x) => [x.name, x])) as Record<string, RoleResult>;

// What this file's runs created; leftovers are checked for these only (other test files create
// scenario directories and stub objects of their own at the same time).
const ownDirs = new Set<string>();
const ownPids = new Set<number>();
const track = (e: RunEvent) => {
  if (e.type !== 'started') return;
  ownDirs.add(e.dir);
  ownPids.add(e.pid);
};

// A failing test must not make the next ones fail too: remove what it may have left.
afterEach(() => {
  for (const pid of ownPids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone, as it should be */
    }
  }
  for (const d of ownDirs) rmSync(d, { recursive: true, force: true });
  ownDirs.clear();
  ownPids.clear();
});

async function expectNothingLeft(result: RunResult) {
  const pids = result.roles.map((r) => r.pid);
  const shm = shmObjectsOfRun(result.traces);
  await waitUntil(() => survivors(pids).length === 0 && leakedShmOf(shm).length === 0, 10_000);
  expect(survivors(pids)).toEqual([]);
  if (result.kept) rmSync(result.dir, { recursive: true, force: true });
  expect(existsSync(result.dir)).toBe(false);
  expect([...ownDirs].filter((d) => existsSync(d))).toEqual([]);
  expect(leakedShmOf(shm)).toEqual([]);
}

withStub('precheck', () => {
  test('reports the stub and its device count (ACL_STUB_DEVICE_COUNT=3), with IPC events', async () => {
    const r = await precheck({ mode: 'stub', env: { ACL_STUB_DEVICE_COUNT: '3' } });
    expect(r).toMatchObject({ ok: true, mode: 'stub', library: STUB, deviceCount: 3, ipcSupported: true });
    expect(r.error).toBeUndefined();
  });

  test('a runtime that refuses to start gives ok: false and says why', async () => {
    const r = await precheck({ mode: 'stub', env: { ACL_STUB_DEVICE_COUNT: 'bogus' } });
    expect(r).toMatchObject({ ok: false, deviceCount: 0, ipcSupported: false });
    expect(r.error).toMatch(/aclInit failed.*ACL_STUB_DEVICE_COUNT/);
  });
});

test('precheck in real mode without CANN installed says what is missing', async () => {
  if (process.env.ASCEND_HOME_PATH || process.env.ASCEND_TOOLKIT_HOME) return; // a real CANN install
  const r = await precheck({ mode: 'real' });
  expect(r).toMatchObject({ ok: false, mode: 'real', deviceCount: 0, ipcSupported: false });
  expect(r.error).toMatch(/libascendcl\.so was not found/);
});

test('precheck with a deadline too short reports the timeout', async () => {
  const r = await precheck({ mode: 'stub', timeoutMs: 1 });
  expect(r.ok).toBe(false);
  expect(r.error).toMatch(/precheck child timed out after 1 ms without a report/);
});

withStub('roles using ctx.acl', () => {
  test('an IPC event shared across two device processes; finalize on exit leaves no shm objects', async () => {
    const result = await runRoles({
      mode: 'stub',
      timeoutMs: 120_000,
      collectTraces: true,
      onEvent: track,
      roles: [role('producer', 0, 'ipcProducer'), role('consumer', 1, 'ipcConsumer')],
    });
    expect(result.summary).toMatch(/passed/);
    expect(result.ok).toBe(true);
    const r = byName(result);
    expect(r.producer.value).toEqual({ deviceCount: 2, device: 0 });
    expect(r.consumer.value).toEqual({ device: 1 });
    // The consumer's stream was released only by the producer's latch.
    expect(BigInt(r.consumer.marks[0].tNs) > BigInt(r.producer.marks[0].tNs)).toBe(true);
    // Each device process left a stub trace (ACL_STUB_TRACE=<dir>/trace), tagged with its role.
    const traced = result.traces!.filter((t) => t.role !== null);
    expect(traced.map((t) => t.role).sort()).toEqual(['consumer', 'producer']);
    for (const t of traced) expect(t.jsonl.trim().split('\n').length).toBeGreaterThan(0);
    expect(traced.find((t) => t.role === 'producer')!.pid).toBe(r.producer.pid);
    // The traces name the IPC event's shm object, so the leftover check below covers it.
    expect(shmObjectsOfRun(result.traces).length).toBeGreaterThan(0);
    await expectNothingLeft(result);
  }, 240_000);

  test('ACL errors, native crashes and roles stopped while holding IPC events', async () => {
    // The deadline comes once "bad" and "crash" ended and "hold" holds its event (a fixed one
    // would have to outlast their start-up under load); "hold" runs into it.
    const stuck = expireWhenStuck({ bad: 'exits', crash: 'exits', hold: { marked: 'holding' } });
    const result = await runRoles({
      mode: 'stub',
      timeoutMs: 120_000,
      expireOn: stuck.signal,
      graceMs: 1000,
      collectTraces: true,
      onEvent: (e) => (track(e), stuck.onEvent(e)),
      failFast: false,
      roles: [role('bad', 0, 'setsBadDevice'), role('crash', 0, 'nativeCrash'), role('hold', 1, 'holdsIpcEventForever')],
    });
    const r = byName(result);
    expect(r.bad.status).toBe('failed');
    expect(r.bad.error?.acl).toMatchObject({ code: 107001, name: 'ACL_ERROR_RT_INVALID_DEVICEID', call: 'aclrtSetDevice' });
    expect(r.crash).toMatchObject({ status: 'crashed', signal: 'SIGSEGV' });
    expect(r.hold.status).toBe('timeout');
    expect(result.timedOut).toBe(true);
    await expectNothingLeft(result);
  }, 240_000);
  test('the first failure is blamed by its own clock, even when it reaches the parent last', async () => {
    const consumers = Array.from({ length: 7 }, (_, i) => role(`consumer-${i}`, 1, 'failsOnceShared'));
    const result = await runRoles({
      mode: 'stub',
      timeoutMs: 120_000,
      collectTraces: true,
      onEvent: track,
      roles: [role('producer', 0, 'sharesThenThrows'), ...consumers],
    });
    const r = byName(result);
    expect(result.firstFailure).toMatchObject({ role: 'producer', status: 'failed' });
    expect(r.producer).toMatchObject({ status: 'failed', error: { message: 'producer failed right after sharing its event' } });
    expect(r.producer.consequenceOf).toBeUndefined();
    for (const c of consumers.map((x) => r[x.name])) {
      expect(c.consequenceOf).toBe('producer');
      if (c.status === 'stopped') expect(c.error!.message).toBe('stopped because role "producer" failed first');
      else expect(c).toMatchObject({ status: 'failed', error: { acl: { name: 'ACL_ERROR_RT_INVALID_HANDLE', call: 'aclrtIpcOpenEventHandle' } } });
    }
    const report = formatScenarioFailure('blame', result);
    expect(report).toMatch(/^scenario "blame" failed after \d+ ms\nfirst failure: role producer \(failed\)/);
    expect(report).toMatch(/\nrole producer \(device 0, pid \d+\) failed: (exit code 1|killed by SIGTERM)\n {2}error: producer failed right after sharing its event/);
    // Stopped while its 16 MiB were still being read: the report says that its stdout is cut off.
    // (When more than 8 MiB arrived before the stop, the first part was also not kept: both are said.)
    if (r.producer.signal) expect(report).toMatch(/stdout is incomplete: (the first \d+ characters were not kept [^;\n]*; )?the last \d+ bytes \(at most[^)]*\) were never flushed/);
    expect(report).toMatch(/role consumer-\d \(device 1, pid \d+\) failed: exit code 1 \(after role producer failed first: probably a consequence\)/);
    await expectNothingLeft(result);
  }, 240_000);

  test('a role SIGKILLed while holding an IPC event leaves nothing in /dev/shm once runRoles returns', async () => {
    const result = await runRoles({
      mode: 'stub',
      timeoutMs: 15_000,
      collectTraces: true,
      onEvent: track,
      roles: [role('killed', 0, 'killedHoldingIpcEvent')],
    });
    expect(byName(result).killed).toMatchObject({ status: 'crashed', signal: 'SIGKILL' });
    const shm = shmObjectsOfRun(result.traces);
    expect(shm.length).toBe(1); // the event it created, seen in its trace
    // No waiting here: the orchestrator reclaims what a killed role could not release.
    expect(leakedShmOf(shm)).toEqual([]);
    // The kept directory has the merged timeline, with the record the role executed before dying.
    expect(result.kept).toBe(true);
    const timeline = JSON.parse(readFileSync(path.join(result.dir, 'trace.json'), 'utf8'));
    expect(timeline.traceEvents).toContainEqual(expect.objectContaining({ ph: 'X', cat: 'ipc_record' }));
    await expectNothingLeft(result);
  }, 60_000);
});
