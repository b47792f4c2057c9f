/**
 * Roles with worker threads in soak rounds (issue #22): the pool and its threads start once, each
 * thread body runs every round beside the run body, ctx.barrier() meets every body, and a failing
 * thread round fails its role with the round, stops the others at once and leaves nothing behind.
 */
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { collectScenarios, runScenario } from '../../src/scenario';
import { planScenario, ScenarioDeclarationError } from '../../src/scenario/plan';
import { roundsUnsupported } from '../../src/scenario/rounds-plan';
import type { RoundsArgs, ScenarioDeclaration, ScenarioResult } from '../../src/scenario/types';
import type { RunEvent } from '../../src/orchestrator';
import { MAIN_THREAD, ThreadGate, ThreadGateBrokenError, threadParty } from '../../harness/scenario/threads/gate';
import { leakedShm, shmEntries, shmObjectsOfRun, survivors, waitUntil } from '../support/leftovers';
import { testWithStub as withStub, STUB_LIBRARY as STUB } from '../support/with-stub';

const FIXTURES = path.join(__dirname, 'fixtures', 'thread-rounds-scenarios.ts');

let plans: ReturnType<typeof collectScenarios> | undefined;
async function run(name: string, rounds: RoundsArgs, env?: Record<string, string>, keepDir = false): Promise<{ r: ScenarioResult; dirs: string[] }> {
  plans ??= collectScenarios(FIXTURES); // a spec file is collected once per process
  const plan = [...plans.values()].find((p) => p.name.startsWith(name))!;
  const dirs: string[] = [];
  const onEvent = (e: RunEvent) => {
    if (e.type === 'started') dirs.push(e.dir);
  };
  const r = await runScenario(plan, { specFile: FIXTURES, mode: 'stub', rounds, env, keepDir, collectTraces: true, onEvent });
  return { r, dirs: [...new Set(dirs)] };
}
const removeAll = (dirs: string[]) => dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
const errorOf = (r: ScenarioResult, role: string) => r.role(role).error?.message ?? '';
const perRoundNames = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => /@r\d+$/.test(n)) : []);

withStub('200 rounds with 2 worker threads: each thread keeps its threadSetup state, meets the others at ctx.barrier() and checks the bytes of every step', async () => {
  const { r, dirs } = await run('a producer and consumer threads', { total: 200 }, undefined, true);
  try {
    expect(r.roles.map((x) => x.error?.message)).toEqual([undefined, undefined]);
    expect(r.ok).toBe(true);
    expect(r.happensBefore?.ok).toBe(true);
    expect(r.role('producer').value).toEqual({ round: 200, rounds: 200 });
    // The run body gets the role's setup, each thread its own threadSetup (made once: round 0), and
    // the same thread ran all 200 rounds (its state counted them).
    expect(r.role('consumer').value).toEqual({ round: 200, setup: { main: 'consumer', setupRound: 0 } });
    expect(r.role('consumer').threadValues).toEqual(
      [0, 1].map((t) => ({ round: 200, rounds: 200, thread: t, threads: 2, setupOf: t, setupRound: 0, roundsSeen: 200 })),
    );
    // Marks are the last round's: one per thread.
    expect(r.role('consumer').marks.map((m) => `${m.name}:${m.thread}`).sort()).toEqual(['checked:0', 'checked:1']);
    // The threads' per-round names (ready@r<round> opened, t<t>.checked@r<round> signalled) were removed.
    expect(perRoundNames(path.join(r.dir, 'handles'))).toEqual([]);
    expect(perRoundNames(path.join(r.dir, 'signals'))).toEqual([]);
  } finally {
    removeAll(dirs);
  }
}, 120_000);

withStub('a thread body that throws fails its role with the round, stops the other role at once (while the role\'s main thread is busy) and leaves nothing behind', async () => {
  const before = shmEntries();
  const { r, dirs } = await run('a thread that throws', { total: 1000 }, { ROUNDS_FAIL_AT: '7' }, true);
  try {
    expect(r.ok).toBe(false);
    expect(r.timedOut).toBe(false);
    expect(r.firstFailure?.role).toBe('faulty');
    expect(r.role('faulty').status).toBe('failed');
    expect(errorOf(r, 'faulty')).toBe("6 of 1,000 rounds passed, round 7 failed (thread 1's body): thread 1 gives up in round 7");
    expect(errorOf(r, 'steady')).toMatch(/^6 of 1,000 rounds passed, round 7 failed .*another role failed \(party 2 broke the round barrier\)/);
    // The failing thread broke the round barrier itself: the other role was gone while the role's
    // main thread was still spinning in its body (it never yielded to learn of the failure).
    expect(readFileSync(path.join(r.dir, 'steady-while-busy'), 'utf8')).toBe('gone');
    const pids = r.roles.map((x) => x.pid);
    await waitUntil(() => survivors(pids).length === 0, 10_000);
    expect(survivors(pids)).toEqual([]);
    // The threads' IPC events (made in threadSetup and in round 7) were released.
    const objects = shmObjectsOfRun(r.traces);
    expect(objects.length).toBeGreaterThanOrEqual(4);
    expect(objects.filter((o) => existsSync(`/dev/shm/${o}`))).toEqual([]);
    expect(leakedShm(before)).toEqual([]);
  } finally {
    removeAll(dirs);
  }
}, 120_000);

withStub('a run body that throws while its threads wait at ctx.barrier(): the threads stop at once and release what they made', async () => {
  const before = shmEntries();
  const { r, dirs } = await run('a run body that throws', { total: 1000 }, { ROUNDS_FAIL_AT: '7' });
  try {
    expect(r.ok).toBe(false);
    expect(r.timedOut).toBe(false);
    expect(r.firstFailure?.role).toBe('faulty');
    expect(errorOf(r, 'faulty')).toBe('6 of 1,000 rounds passed, round 7 failed (the role body): the run body gives up in round 7');
    // It ended by itself, and its threads waiting at ctx.barrier() left at once (else the role says
    // which are still running).
    expect(r.role('faulty').signal).toBeNull();
    expect(r.role('faulty').stderr).not.toContain('still running');
    const pids = r.roles.map((x) => x.pid);
    await waitUntil(() => survivors(pids).length === 0, 10_000);
    expect(survivors(pids)).toEqual([]);
    const objects = shmObjectsOfRun(r.traces);
    expect(objects.length).toBeGreaterThanOrEqual(4);
    expect(objects.filter((o) => existsSync(`/dev/shm/${o}`))).toEqual([]);
    expect(leakedShm(before)).toEqual([]);
  } finally {
    removeAll(dirs);
  }
}, 120_000);

withStub('a threadSetup that throws: the run stops before round 1, naming the thread', async () => {
  const { r, dirs } = await run('a threadSetup that throws', { total: 10 });
  try {
    expect(r.ok).toBe(false);
    expect(r.firstFailure?.role).toBe('faulty');
    expect(errorOf(r, 'faulty')).toBe("setup failed (before round 1): thread 0's threadSetup: thread 0 cannot set up");
    // Steady is blamed on faulty and never waits for the deadline: it fails at the broken round
    // barrier if it got there before the orchestrator stopped it for faulty's failure; still
    // starting then (a loaded machine: faulty fails early, in its setup), it is stopped.
    expect(r.timedOut).toBe(false);
    expect(r.role('steady').consequenceOf).toBe('faulty');
    expect(errorOf(r, 'steady')).toMatch(/another role failed \(party 2 broke the round barrier\)|^stopped because role "faulty" failed first$/);
  } finally {
    removeAll(dirs);
  }
}, 60_000);

withStub('a thread body that returns with a ctx call still in progress fails its round', async () => {
  const { r, dirs } = await run('a thread body that does not await', { total: 10 });
  try {
    expect(errorOf(r, 'solo')).toBe(
      '1 of 10 rounds passed, round 2 failed (thread 0\'s body): the thread body returned while ctx.awaitSignal("later", {…}) was still in progress: await every ctx call',
    );
  } finally {
    removeAll(dirs);
  }
}, 60_000);

withStub("the happens-before check covers the threads' device work: a stub whose records take effect at once fails a round", async () => {
  const clean = await run('threads fill then record', { total: 50 });
  removeAll(clean.dirs);
  expect(clean.r.ok).toBe(true);
  const { r, dirs } = await run('threads fill then record', { total: 50 }, { ACL_STUB_MUTANT: 'record-instant' });
  try {
    expect(r.ok).toBe(false);
    expect(errorOf(r, 'solo')).toMatch(/^[\d,]+ of 50 rounds passed, round [\d,]+ failed \(happens-before check of the stub trace\): happens-before violation/);
  } finally {
    removeAll(dirs);
  }
}, 60_000);

withStub('multiThreadConsumer accepts rounds', async () => {
  const { r, dirs } = await run('multiThreadConsumer in rounds', { total: 3 });
  try {
    expect(r.ok).toBe(true);
    expect(r.role('consumer').threadValues).toHaveLength(2);
  } finally {
    removeAll(dirs);
  }
}, 60_000);

function problems(decl: ScenarioDeclaration<any>): string[] {
  try {
    planScenario('s', decl);
  } catch (e) {
    if (e instanceof ScenarioDeclarationError) return e.problems;
    throw e;
  }
  return [];
}

test('thread roles in rounds: accepted, and bad threadSetup / setup declarations name the fix', () => {
  const body = async () => undefined;
  const plan = planScenario('s', { rounds: 5, roles: { a: { device: 0, threads: 2, thread: body, threadSetup: body, run: body, setup: body } } });
  expect(plan.roles[0]).toMatchObject({ threads: 2, threadSetup: body });
  expect(roundsUnsupported(plan.roles[0])).toBeNull();
  expect(problems({ roles: { a: { device: 0, threads: 2, thread: body, threadSetup: 1 as any } } })).toEqual([
    'role a: threadSetup must be a function (got number): threadSetup: async (ctx, t) => { ...; return state }',
  ]);
  expect(problems({ roles: { a: { device: 0, run: body, threadSetup: body } } })).toEqual([
    'role a: threadSetup needs worker threads that use it: threads: 2, thread: async (ctx, t) => { ctx.setup ... } (for the main thread use setup)',
  ]);
  expect(problems({ roles: { a: { device: 0, threads: 2, thread: body, setup: body } } })).toEqual([
    expect.stringMatching(/^role a: setup needs a run body that uses it: .* for state of each worker thread use threadSetup: async \(ctx, t\) =>/),
  ]);
  expect(problems({ roles: { a: { device: 0, threads: 2, thread: body, threadSetp: body } as any } })).toEqual([expect.stringMatching(/unknown key "threadSetp" \(did you mean "threadSetup"\?\)/)]);
});

test('the thread gate: the first failure is kept whole for the main thread, and every wait then stops', async () => {
  const gate = ThreadGate.create('r');
  const other = ThreadGate.attach(gate.buffer, 'r'); // as a worker thread sees it
  expect(other.fail(threadParty(1), 'round', { message: 'boom', stack: 'Error: boom\n    at x' }, '123')).toBe(true);
  expect(gate.fail(MAIN_THREAD, 'round', { message: 'later' })).toBe(false); // the first failure wins
  expect(gate.failure()).toEqual({ who: threadParty(1), failedIn: 'round', error: { message: 'boom', stack: 'Error: boom\n    at x' }, atNs: '123' });
  expect(() => gate.meet('round 3: ctx.barrier()', 1000, () => undefined)).toThrow(ThreadGateBrokenError);
  expect(() => gate.meet('round 3: ctx.barrier()', 1000, () => undefined)).toThrow('round 3: ctx.barrier(): worker thread 1 of this role failed; this body stops too');
  expect(other.nextRound(0, 'waiting for round 1', 1000)).toBeNull();
  await expect(gate.waitForCompletions(2, 'round 1 end', 1000)).rejects.toThrow(ThreadGateBrokenError);
});

test('the thread gate: a huge error is cut to fit, still readable', () => {
  const gate = ThreadGate.create('r');
  gate.fail(threadParty(0), 'setup', { message: 'x'.repeat(100_000), stack: 'y'.repeat(100_000), acl: { code: 1, name: 'N', call: 'c', args: 'a', recentErrMsg: null } });
  const f = gate.failure()!;
  expect(f.failedIn).toBe('setup');
  expect(f.error.stack).toBeUndefined();
  expect(f.error.message.length).toBeGreaterThan(1000);
  expect(f.error.message.length).toBeLessThan(100_000);
  expect(f.error.acl?.code).toBe(1);
});

test('the thread gate: rounds open and complete; ctx.barrier() meets the other roles once, by the last body to arrive', async () => {
  const gate = ThreadGate.create('r');
  gate.setParties(1);
  let crossings = 0;
  gate.meet('m', 1000, () => crossings++);
  expect(crossings).toBe(1);
  gate.openRound(1);
  expect(gate.nextRound(0, 'w', 1000)).toBe(1);
  gate.done();
  await gate.waitForCompletions(1, 'round 1 end', 1000);
  gate.stop();
  expect(gate.nextRound(1, 'w', 1000)).toBeNull();
  // Two bodies: the first waits for the second, and times out naming the count.
  gate.setParties(2);
  expect(() => gate.meet('round 2: ctx.barrier()', 50, () => crossings++)).toThrow(
    'round 2: ctx.barrier(): not every body of role r called ctx.barrier() within 50 ms (1 of 2): its run body and each of its worker threads must call it equally often',
  );
  expect(crossings).toBe(1);
  await expect(gate.waitForCompletions(5, 'round 2 end', 30)).rejects.toThrow('round 2 end: the worker threads of role r did not get there within 30 ms (1 of 5 completions)');
  const died = Promise.reject(new Error('worker thread 0 died'));
  await expect(gate.waitForCompletions(5, 'round 2 end', 5000, died)).rejects.toThrow('worker thread 0 died');
  gate.stop(); // wakes the wait that the rejection left behind: nothing keeps this process alive
});

withStub('threads that call ctx.barrier() once more in round 3: the role that called it fewer times is named, at once', async () => {
  const { r } = await run('threads call ctx.barrier() once more in one round', { total: 6 });
  expect(r.ok).toBe(false);
  expect(r.timedOut).toBe(false);
  expect(r.firstFailure?.role).toBe('steady');
  expect(r.role('steady').error?.message).toContain('this role called ctx.barrier() fewer times than role "extra" in round 3');
  // extra either saw the mismatch itself or was stopped first because of steady (seen under load): both say so.
  expect(r.role('extra').error?.message).toMatch(
    /role "steady" called ctx\.barrier\(\) fewer times than this role in round 3|stopped because role "steady" failed first/,
  );
}, 60_000);
