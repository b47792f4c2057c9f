/**
 * The happens-before check: its rules on hand-written traces, then on real stub runs, where it
 * must pass a faithful run and catch every mutant of the stub in roles that check nothing themselves.
 */
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { runRoles, type RoleSpec, type RunEvent } from '../../src/orchestrator';
import { checkHappensBefore, formatHappensBefore } from '../../src/trace/happens-before';
import { killGroups, leakedShmOf, shmObjectsOfRun, survivors, waitUntil } from '../support/leftovers';
import { describeWithStub as withStub, STUB_LIBRARY as STUB } from '../support/with-stub';

const line = (o: Record<string, unknown>) =>
  JSON.stringify({ tid: 1, device: 0, stream: 1, task: null, event: 1, slot: null, gen: null, ipc: null, ...o });
const trace = (pid: number, role: string, lines: Record<string, unknown>[]) => ({
  pid,
  role,
  jsonl: lines.map((l) => line({ pid, ...l })).join('\n') + '\n',
});

/** Producer: a latch (task 1) then an IPC record (task 2) that takes effect at recordNs. */
const producer = (recordNs: number, recordStartNs = recordNs - 10) =>
  trace(10, 'producer', [
    { t: 100, op: 'submit', kind: 'host_func', task: 1, event: 0 },
    { t: 110, op: 'start', kind: 'host_func', task: 1, event: 0 },
    { t: 120, op: 'submit', kind: 'ipc_record', task: 2, slot: 3, gen: 7, ipc: 'ab' },
    { t: 5000, op: 'end', kind: 'host_func', task: 1, event: 0 },
    { t: recordStartNs, op: 'start', kind: 'ipc_record', task: 2, slot: 3, gen: 7, ipc: 'ab' },
    { t: recordNs, op: 'end', kind: 'ipc_record', task: 2, slot: 3, gen: 7, ipc: 'ab' },
    { t: 6000, op: 'cancel', kind: 'host_func', task: 3, event: 0 }, // dropped at exit: no submit line in this excerpt
  ]);
/** Consumer: a wait that captured slot 3 use 7 and ended at waitEndNs, then a stream synchronize. */
const consumer = (waitEndNs: number, syncNs = waitEndNs + 10) =>
  trace(20, 'consumer', [
    { t: 200, op: 'submit', kind: 'ipc_wait', device: 1, task: 1, slot: 3, gen: 7, ipc: 'ab' },
    { t: 210, op: 'start', kind: 'ipc_wait', device: 1, task: 1, slot: 3, gen: 7, ipc: 'ab' },
    { t: waitEndNs, op: 'end', kind: 'ipc_wait', device: 1, task: 1, slot: 3, gen: 7, ipc: 'ab' },
    { t: syncNs, op: 'sync', kind: 'stream', device: 1, task: 1, event: 0, rc: 0 },
  ]);

describe('checkHappensBefore on hand-written traces', () => {
  test('a wait that ends after its record took effect passes, and counts as blocked', () => {
    const r = checkHappensBefore([producer(5020), consumer(5030)]);
    expect(r.violations).toEqual([]);
    expect(r.stats).toEqual({ tasks: 3, waits: 1, blockedWaits: 1, noopWaits: 0, syncs: 1 });
  });

  test('a wait that ends before its record names both tasks with role, pid, device, stream, task, slot and times', () => {
    const r = checkHappensBefore([producer(5020), consumer(300)]);
    expect(r.ok).toBe(false);
    expect(r.violations.map((v) => v.rule)).toEqual(['ipc-wait']);
    const [v] = r.violations;
    expect(v.later).toMatchObject({ role: 'consumer', pid: 20, device: 1, stream: 1, task: 1, slot: 3, gen: 7, tNs: 300 });
    expect(v.earlier).toMatchObject({ role: 'producer', pid: 10, device: 0, stream: 1, task: 2, slot: 3, gen: 7, tNs: 5020 });
    expect(v.message).toContain('role consumer (pid 20, device 1, stream 1, task 1) ipc_wait ipc ab slot 3 use 7');
    expect(v.message).toContain('role producer (pid 10, device 0, stream 1, task 2) ipc_record ipc ab slot 3 use 7: submitted t=120 ns');
    expect(r.stats.blockedWaits).toBe(0); // ending early is not blocking
  });

  test('a wait is paired with the record of the same slot use, not an earlier use of that slot', () => {
    const earlierUse = trace(30, 'other', [{ t: 150, op: 'end', kind: 'ipc_record', task: 1, slot: 3, gen: 6, ipc: 'ab' }]);
    expect(checkHappensBefore([earlierUse, producer(5020), consumer(300)]).violations).toHaveLength(1);
    // and a record of another IPC event never counts
    const otherEvent = trace(31, 'other', [{ t: 150, op: 'end', kind: 'ipc_record', task: 1, slot: 3, gen: 7, ipc: 'cd' }]);
    expect(checkHappensBefore([otherEvent, producer(5020), consumer(300)]).violations).toHaveLength(1);
  });

  test('a wait whose record no process traced is a violation', () => {
    const r = checkHappensBefore([consumer(300)]);
    expect(r.violations.map((v) => [v.rule, v.earlier])).toEqual([['ipc-wait', null]]);
    expect(r.violations[0].message).toContain('no process traced the record');
  });

  test('a synchronize that returned 0 before the task it waited for ended is a violation', () => {
    const r = checkHappensBefore([producer(5020), consumer(5030, 250)]);
    expect(r.violations.map((v) => v.rule)).toEqual(['sync']);
    expect(r.violations[0].message).toContain('aclrtSynchronizeStream (up to task 1): returned 0 t=250 ns');
  });

  test('a task that starts before the one ahead of it on its stream ended is a violation', () => {
    const r = checkHappensBefore([producer(200, 130), consumer(5030)]);
    expect(r.violations.map((v) => v.rule)).toEqual(['stream-order']);
    expect(r.violations[0].later).toMatchObject({ task: 2, kind: 'ipc_record', startNs: 130 });
    expect(r.violations[0].earlier).toMatchObject({ task: 1, kind: 'host_func', tNs: 5000 });
  });

  test('local waits are released by a record or reset of the same or a later generation in that process', () => {
    const local = (effects: Record<string, unknown>[], waitEnd: number) =>
      trace(40, 'solo', [
        { t: 100, op: 'submit', kind: 'wait', stream: 2, task: 1, event: 5, gen: 2 },
        { t: 110, op: 'start', kind: 'wait', stream: 2, task: 1, event: 5, gen: 2 },
        { t: waitEnd, op: 'end', kind: 'wait', stream: 2, task: 1, event: 5, gen: 2 },
        ...effects,
      ]);
    const record = (gen: number, t: number) => ({ t, op: 'end', kind: 'record', stream: 3, task: gen, event: 5, gen });
    expect(checkHappensBefore([local([record(1, 50), record(2, 400)], 450)]).ok).toBe(true);
    expect(checkHappensBefore([local([record(1, 50), record(3, 300), record(2, 400)], 350)]).ok).toBe(true);
    expect(checkHappensBefore([local([{ t: 300, op: 'end', kind: 'reset', stream: 3, task: 1, event: 5, gen: 2 }], 350)]).ok).toBe(true);
    const early = checkHappensBefore([local([record(1, 50), record(2, 400)], 350)]);
    expect(early.violations.map((v) => v.rule)).toEqual(['local-wait']);
    // a timed-out wait did not wait for its record: not a violation
    const timedOut = trace(40, 'solo', [
      { t: 100, op: 'submit', kind: 'wait', task: 1, event: 5, gen: 2 },
      { t: 350, op: 'end', kind: 'wait', task: 1, event: 5, gen: 2, note: 'timeout' },
    ]);
    expect(checkHappensBefore([timedOut]).ok).toBe(true);
  });

  test('no-op waits are counted as no-ops, never as waits', () => {
    const noop = trace(20, 'consumer', [{ t: 200, op: 'submit', kind: 'ipc_wait', slot: 0, gen: 0, ipc: 'ab', note: 'noop' }]);
    const r = checkHappensBefore([noop]);
    expect(r.stats).toMatchObject({ waits: 0, blockedWaits: 0, noopWaits: 1 });
    expect(formatHappensBefore(r)).toBe('happens-before: 0 tasks, 0 waits (0 blocked, 1 no-op), 0 synchronizes checked: no violation');
  });

  test('without any trace (real mode) the check says it was skipped', () => {
    const r = checkHappensBefore([]);
    expect(r).toMatchObject({ ok: true, skipped: expect.stringContaining('real mode') });
    expect(formatHappensBefore(r)).toMatch(/^happens-before check skipped: /);
  });
});

const ROLES = path.join(__dirname, 'fixtures', 'unchecked-roles.ts');

withStub('the check on stub runs of roles that check nothing themselves', () => {
  const ownPids = new Set<number>();
  afterEach(() => killGroups(ownPids));

  async function run(mutant: string | null) {
    const env: Record<string, string> = { ACL_STUB_DEVICE_COUNT: '2' };
    if (mutant) env.ACL_STUB_MUTANT = mutant;
    const roles: RoleSpec[] = [
      { name: 'producer', device: 0, entry: { module: ROLES, export: 'producer' }, env },
      { name: 'consumer', device: 1, entry: { module: ROLES, export: 'consumer' }, env },
    ];
    const result = await runRoles({
      roles, timeoutMs: 20_000, mode: 'stub', label: `unchecked roles, mutant ${mutant}`,
      checkHappensBefore: true, collectTraces: true,
      onEvent: (e: RunEvent) => e.type === 'started' && ownPids.add(e.pid),
    });
    const shm = shmObjectsOfRun(result.traces);
    await waitUntil(() => survivors(result.roles.map((r) => r.pid)).length === 0 && leakedShmOf(shm).length === 0, 10_000);
    expect(leakedShmOf(shm)).toEqual([]);
    if (result.kept) rmSync(result.dir, { recursive: true, force: true });
    return result;
  }

  test('the faithful stub passes: the wait really blocked, nothing was a no-op', async () => {
    const result = await run(null);
    expect(result.roles.map((r) => r.status)).toEqual(['passed', 'passed']);
    expect(result.happensBefore?.violations).toEqual([]);
    expect(result.happensBefore?.stats).toMatchObject({ waits: 1, blockedWaits: 1, noopWaits: 0 });
    expect(result.ok).toBe(true);
  });

  test.each([
    ['wait-noop', 'ipc-wait'],
    ['record-instant', 'stream-order'],
    ['wait-latest', 'ipc-wait'],
    ['sync-noop', 'sync'],
  ])('mutant %s: every role returns normally, and the check fails the run (%s)', async (mutant, rule) => {
    const result = await run(mutant);
    expect(result.roles.map((r) => r.status)).toEqual(['passed', 'passed']);
    expect(result.ok).toBe(false);
    expect(result.happensBefore?.violations.map((v) => v.rule)).toContain(rule);
    expect(result.summary).toContain(`happens-before violation (${rule})`);
  });
});
