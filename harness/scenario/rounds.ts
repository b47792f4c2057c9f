/**
 * Soak rounds inside a role's device process (README "Soak rounds"): the process starts once,
 * runs the role's `setup` body, then its `run` body `rounds` times. Every round:
 *  - ends at the round barrier (a futex shared by every role, src/acl/round-barrier.ts), in one
 *    crossing that also starts the next round (round 1 starts at a crossing of its own);
 *  - gets a fresh ctx (ctx.round, ctx.setup) whose shared names are namespaced by the round and
 *    whose IPC events, latches, memory and names are released at its end; ctx.stream is the
 *    role's one stream for the whole run, drained at the end of every round;
 *  - with jitter, reseeds the stub with the round's own seed (src/scenario/round-seed.ts);
 *  - with the schedule explorer (ACL_STUB_EXPLORE), gets its own schedule: every party blocks
 *    before the barrier, and the first role, holding the crossing, starts the next round's schedule
 *    and wakes them; a failing role leaves its round's schedule for the replay command;
 *  - is checked: the body's own assertions here, and, by the first role while it holds the
 *    crossing between two rounds, the happens-before check of that round's trace (read as a
 *    stream: src/trace/trace-tail.ts).
 * A failing round breaks the barrier, so every other role stops at once; the failing role's error
 * names the round, its seed and how many rounds passed.
 */
import * as path from 'node:path';
import { RoundBarrier, RoundBarrierMismatchError, explorer, reseedStubJitter, type Crossing, type Stream } from '../../src/acl';
import { writeFailedSchedule } from '../../src/wire/explore-file';
import type { RoleContext } from '../../src/wire/types';
import { ROUND_BARRIER_FILE } from '../../src/wire/round-barrier-file';
import { roundsUnsupported } from '../../src/scenario/rounds-plan';
import { nextRoundSeed } from '../../src/scenario/round-seed';
import type { PlannedRole, RoleEntryArgs, RoleEnvelope, RoundsArgs, RoundsCheckedStats, ScenarioMark, ScenarioPlan } from '../../src/scenario/types';
import { checkHappensBefore, formatHappensBefore } from '../../src/trace/happens-before';
import { TraceTail } from '../../src/trace/trace-tail';
import { ENV, envOff } from '../../src/env';
import { noteRoleFailure, noteRoleFailureError } from '../failure-time';
import { assertSendable } from '../../src/wire/json-value';
import { endSetup, runBody } from './body/run-body';
import { mismatchText } from './body/round-mismatch';
import { roundRendezvous } from './body/round-rendezvous';
import { createScenarioContext, type RoleBasics } from './context/context';
import { waitBoundMs } from './context/deadline';
import { quietly } from './context/quietly';
import { RoundThreads, threadFailureWhat } from './threads/round-threads';

/** What every party of the schedule explorer blocks on at the round barrier (woken by the crossing's holder). */
const BARRIER_WHAT = 'round barrier';
/** Name under which each role publishes its pid once, so the trace check can name roles. */
const PID_NAME = (role: string) => `rounds-pid.${role}`;
/** How often the first role reports progress (rounds done, rounds per second). */
const PROGRESS_EVERY_MS = 500;
/** In rounds, a wait is reported to the orchestrator once it lasted this long (RoleContext.reportWaitsAfter). */
const REPORT_WAITS_AFTER_MS = 50;

export type RoundsProgress = (done: number, total: number) => void;

const fmt = (n: number) => n.toLocaleString('en-US');

export async function runScenarioRounds(
  base: RoleContext,
  plan: ScenarioPlan<any>,
  role: PlannedRole<any>,
  rounds: RoundsArgs,
  deadline: number,
  progress?: RoundsProgress,
  /** The role's job: what its worker threads (if any) load (threads/round-threads.ts). */
  args?: RoleEntryArgs,
): Promise<RoleEnvelope> {
  const unsupported = roundsUnsupported(role);
  if (unsupported) throw new Error(unsupported);
  if (!role.run && !role.thread) throw new Error(`role ${role.name} has no run or thread body to repeat`);
  const party = plan.roles.findIndex((r) => r.name === role.name) + 1;
  const checker = party === 1;
  const total = rounds.total;
  const waitMs = () => waitBoundMs(deadline);

  const acl = base.acl; // every round uses ACL: load it before round 1
  // The schedule explorer, when the stub explores (its parties are named in role-context.ts).
  const ex = acl.library.mode === 'stub' ? explorer(acl.library.path) : null;
  const barrier = RoundBarrier.attach(path.join(base.dir, ROUND_BARRIER_FILE));
  if (barrier.parties !== plan.roles.length) {
    barrier.close();
    throw new Error(`the round barrier was made for ${barrier.parties} roles, but scenario "${plan.name}" has ${plan.roles.length}`);
  }
  // Worker threads: started once, each a party of ctx.barrier() (threads/round-threads.ts).
  const threads = role.thread ? new RoundThreads({ args: args!, mode: acl.library.mode, device: base.device, index: base.index, dir: base.dir, threads: role.threads, deadline }, role) : undefined;
  // Every crossing is tagged with what this role meets there (the round, its k-th ctx.barrier() or
  // the round's end): a role that calls ctx.barrier() fewer times than another is caught at once.
  let round = 0; // 0: setup
  let barrierCalls = 0;
  const at = (crossing: Crossing) => ({ crossing, party });
  const cross = (what: string, crossing: Crossing) => {
    ex?.block(BARRIER_WHAT);
    barrier.wait(what, waitMs(), at(crossing));
  };
  const meet = (what: string) => {
    const crossing: Crossing = { round, call: ++barrierCalls };
    return threads ? threads.meet(what, waitMs(), () => cross(what, crossing)) : cross(what, crossing);
  };
  let stream: Stream | undefined;
  const runStream = () => (stream && !stream.destroyed ? stream : (stream = acl.createStream()));

  // setup: once, with names and objects that live for the whole run.
  const setupOwned = createScenarioContext(base, plan, role, deadline, {
    round: 0,
    rounds: total,
    setup: undefined,
    barrier: () => meet('setup: ctx.barrier()'),
    stream: runStream,
  });
  const rdv = roundRendezvous(base.rendezvous);
  // Marks of the current round only: the result (and verify) gets the last round's, so memory
  // stays flat and mark-order checks compare within one round.
  let marks: ScenarioMark[] = [];
  const roundBase: RoleBasics = Object.create(base, {
    rendezvous: { value: rdv.rendezvous },
    mark: {
      value: (name: string) => {
        if (typeof name !== 'string' || name === '') throw new TypeError('mark(name): name must be a non-empty string');
        marks.push({ name, tNs: process.hrtime.bigint().toString() });
      },
    },
  });
  const hbWanted = checker && acl.library.mode === 'stub' && !envOff(ENV.hbCheck);
  const pids = new Map<number, string>();
  const tail = hbWanted ? new TraceTail(path.join(base.dir, 'trace'), (pid) => pids.get(pid) ?? null) : undefined;

  let seed = rounds.jitter?.seed;
  let value: unknown;
  let threadResult: { values: unknown[]; marks: ScenarioMark[] } | undefined;
  const fail = (e: unknown, what: string): never => {
    const mismatch = e instanceof RoundBarrierMismatchError ? e : undefined;
    // Before the barrier breaks: the roles it stops fail after this one. The role that called
    // ctx.barrier() fewer times failed when it went on to the wrong crossing.
    noteRoleFailure(mismatch?.selfBehind ? mismatch.arrivedAtNs.toString() : undefined);
    // The order this round ran in, for the replay command (the orchestrator reads it back).
    if (ex) quietly(() => writeFailedSchedule(base.dir, role.name, ex.schedule() ?? ''));
    if (mismatch) e = new Error(mismatchText(mismatch, (p) => plan.roles[p - 1]?.name ?? `party ${p}`));
    barrier.break(party);
    const err = e instanceof Error ? e : new Error(String(e));
    const seedText = seed !== undefined ? `, jitter seed ${seed}` : '';
    err.message = `${fmt(round - 1)} of ${fmt(total)} rounds passed, round ${fmt(round)} failed${seedText} (${threadFailureWhat(e) ?? what}): ${err.message}`;
    noteRoleFailureError(err);
    throw err;
  };
  /**
   * The checker's end of a round: it holds the crossing, so every other role sleeps in it, having
   * drained its streams (runOneRound), and so has written all of this round's trace and none of
   * the next's: the files hold exactly this round while the checker takes them. Only then may the
   * others start the next round; a violation breaks the barrier instead, as any failure does.
   */
  const checked: RoundsCheckedStats = { rounds: 0, tasks: 0, waits: 0, blockedWaits: 0, noopWaits: 0, syncs: 0 };
  const checkRoundEnd = (t: TraceTail | undefined) => {
    try {
      ex?.block(BARRIER_WHAT);
      barrier.hold(`round ${round} end`, waitMs(), at({ round, call: 'end' }));
    } catch (e) {
      fail(e, 'round end');
    }
    if (!t) return startNextSchedule();
    let report: ReturnType<typeof checkHappensBefore>;
    try {
      report = checkHappensBefore(t.take());
    } catch (e) {
      return fail(e, 'reading the stub trace');
    }
    if (!report.ok) fail(new Error(formatHappensBefore(report)), 'happens-before check of the stub trace');
    // Checked: a failing round's trace stays in the files instead, and so does the last round's
    // (the report's timeline and the run's own check show it; the figures of the others add up here).
    if (round < total) {
      t.discard();
      checked.rounds++;
      for (const k of ['tasks', 'waits', 'blockedWaits', 'noopWaits', 'syncs'] as const) checked[k] += report.stats[k];
    }
    startNextSchedule();
  };
  /** The holder of a crossing, every other party asleep in it: the next round's schedule starts, then they wake. */
  const startNextSchedule = () => {
    if (ex) {
      ex.round(round + 1);
      ex.wake(BARRIER_WHAT);
    }
    barrier.release();
  };
  try {
    let state: unknown;
    try {
      if (hbWanted || !checker) await base.rendezvous.publish(PID_NAME(role.name), String(process.pid));
      [state] = await Promise.all([role.setup ? role.setup(setupOwned.ctx) : undefined, threads?.setupsDone(waitMs())]);
      if (tail) {
        for (const r of plan.roles) {
          const pid = Number((await base.rendezvous.await(PID_NAME(r.name), { timeoutMs: waitMs(), from: r.name })).toString());
          pids.set(pid, r.name);
        }
      }
    } catch (e) {
      noteRoleFailure();
      barrier.break(party);
      const err = e instanceof Error ? e : new Error(String(e));
      err.message = `setup failed (before round 1): ${err.message}`;
      noteRoleFailureError(err);
      throw err;
    }
    if (total > 1) base.reportWaitsAfter?.(REPORT_WAITS_AFTER_MS);
    let lastReport = Date.now();
    for (round = 1; round <= total; round++) {
      if (round > 1 && seed !== undefined) seed = nextRoundSeed(seed);
      if (seed !== undefined && !reseedStubJitter(acl.library.path, seed)) {
        fail(new Error(`could not reseed the stub's jitter (is ${ENV.stubJitter} set, and is this the stub?)`), 'jitter');
      }
      if (round === 1) {
        try {
          if (ex && checker) {
            ex.block(BARRIER_WHAT);
            barrier.hold('round 1 start', waitMs(), at({ round: 0, call: 'end' }));
            round = 0;
            startNextSchedule(); // round 1's
            round = 1;
          } else cross('round 1 start', { round: 0, call: 'end' });
        } catch (e) {
          fail(e, 'round start');
        }
      }
      rdv.setRound(round);
      barrierCalls = 0;
      marks = [];
      // The thread bodies (opened first: the run body may block in ctx.barrier() at once) and the run body, together.
      const threadsDone = threads?.runRound(round, waitMs());
      const runDone = role.run ? runOneRound(roundBase, plan, role, deadline, round, total, state, () => meet(`round ${round}: ctx.barrier()`), runStream) : undefined;
      // Waiting for its worker threads, the main thread is outside the explored points.
      const mainDone = threadsDone && ex ? Promise.resolve(runDone).then((v) => (ex.block('worker threads'), v)) : runDone;
      [value] = await Promise.all([mainDone, threadsDone]).catch((e) => fail(e, 'the role body'));
      // One crossing ends this round and starts the next (each role reseeds its own stub after it).
      // Every body of this role has drained its streams by now: its threads wait for runRound.
      if (tail || (ex && checker)) checkRoundEnd(tail);
      else {
        try {
          cross(`round ${round} end`, { round, call: 'end' });
        } catch (e) {
          fail(e, 'round end');
        }
      }
      rdv.removeRoundNames();
      if (checker && progress && (Date.now() - lastReport >= PROGRESS_EVERY_MS || round === total)) {
        lastReport = Date.now();
        progress(round, total);
      }
    }
    rdv.removeRoundNames(true);
    if (threads) ex?.block('worker threads'); // as in every round: waiting for them, outside the points
    threadResult = await threads?.stop(waitMs());
  } finally {
    await threads?.close();
    endSetup(setupOwned, deadline);
    if (stream && !stream.destroyed) quietly(() => stream!.destroy());
    tail?.close();
    barrier.close();
  }
  assertSendable(value, `the value returned by role ${role.name} (last round)`);
  const envelope: RoleEnvelope = { __scenarioEnvelope: 1, threadMarks: threadResult ? [...marks, ...threadResult.marks] : marks };
  envelope.rounds = { done: total, total, ...(tail ? { checked } : {}) };
  const degraded = checker ? base.exploreDegraded?.() : null;
  if (degraded?.rounds) envelope.exploreDegraded = degraded;
  if (value !== undefined) envelope.value = value;
  if (threadResult) envelope.threadValues = threadResult.values;
  return envelope;
}

/** One round of the run body: a fresh ctx, the body, then its device work drained and what it made released. */
function runOneRound(
  base: RoleBasics,
  plan: ScenarioPlan<any>,
  role: PlannedRole<any>,
  deadline: number,
  round: number,
  rounds: number,
  setup: unknown,
  barrier: () => void,
  runStream: () => Stream,
): Promise<unknown> {
  const owned = createScenarioContext(base, plan, role, deadline, { round, rounds, setup, barrier, stream: runStream });
  return runBody({ owned, label: role.name, who: 'the body', deadline, round: { stream: runStream } }, role.run!);
}
