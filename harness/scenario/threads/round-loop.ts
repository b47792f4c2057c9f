/**
 * One worker thread of a role in soak rounds: one piscina task for the whole run (started by
 * round-threads.ts). Once: ACL, device and spec (base.ts), the round barrier, the thread's
 * stream, and its `threadSetup` (its result is this thread's ctx.setup in every round). Then every
 * round the main thread opens through the gate (gate.ts): a fresh ctx with ctx.round and
 * per-round names, the thread body, the round's device work drained (the thread's stream too) and
 * what the round made released. A failure is written to the gate, then the round barrier is broken
 * so that every other role stops at once; the main thread reports it.
 */
import * as path from 'node:path';
import type { RoundBarrier, Stream } from '../../../src/acl';
import { ROUND_BARRIER_FILE } from '../../../src/wire/round-barrier-file';
import { toRoleError } from '../../../src/wire/wire-error';
import type { PlannedRole, ScenarioMark, ScenarioPlan } from '../../../src/scenario/types';
import { endSetup, runBody } from '../body/run-body';
import { roundRendezvous } from '../body/round-rendezvous';
import { mismatchText } from '../body/round-mismatch';
import { createThreadContext, type RoleBasics, type ContextWithCleanup, type RoundPart } from '../context/context';
import { waitBoundMs } from '../context/deadline';
import { quietly } from '../context/quietly';
import { loadThreadBase } from './base';
import { ThreadGate, threadParty, type FailedIn } from './gate';
import type { ThreadOutcome, ThreadTask } from './pool';

export async function runThreadRounds(task: ThreadTask): Promise<ThreadOutcome> {
  const t = task.thread;
  const total = task.args.rounds?.total ?? 1;
  const gate = ThreadGate.attach(task.gate!, task.args.role);
  const waitMs = () => waitBoundMs(task.deadline);
  let marks: ScenarioMark[] = [];
  const mark = (name: string) => marks.push({ name, tNs: process.hrtime.bigint().toString(), thread: t });
  let failedIn: FailedIn = 'start';
  let barrier: RoundBarrier | undefined;
  let party = 0;
  let stream: Stream | undefined;
  let setupOwned: ContextWithCleanup<unknown> | undefined;
  let round = 0;
  let roleNames: string[] = [];
  let MismatchError: typeof import('../../../src/acl').RoundBarrierMismatchError | undefined;
  let leave = () => {};
  try {
    const { acl, plan, role, base } = loadThreadBase(task, mark);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { RoundBarrier, RoundBarrierMismatchError, explorer } = require('../../../src/acl') as typeof import('../../../src/acl');
    // The schedule explorer: this thread waits outside its points in the gate (base.ts named its party).
    const ex = acl.library.mode === 'stub' ? explorer(acl.library.path) : null;
    leave = () => ex?.leave();
    MismatchError = RoundBarrierMismatchError;
    roleNames = plan.roles.map((r) => r.name);
    barrier = RoundBarrier.attach(path.join(task.dir, ROUND_BARRIER_FILE));
    party = plan.roles.findIndex((r) => r.name === role.name) + 1;
    // Tagged as ../rounds.ts tags the main thread's crossings: the k-th ctx.barrier() of the round.
    let calls = 0;
    const meet = (what: string) => {
      const at = { crossing: { round, call: ++calls }, party };
      ex?.block('thread gate');
      gate.meet(`thread ${t}: ${what}`, waitMs(), () => barrier!.wait(`thread ${t}: ${what}`, waitMs(), at));
    };
    const runStream = () => (stream && !stream.destroyed ? stream : (stream = acl.createStream()));

    failedIn = 'setup';
    // threadSetup: once, with names and objects that live for the whole run.
    const setupPart: RoundPart = { round: 0, rounds: total, setup: undefined, barrier: () => meet('threadSetup: ctx.barrier()'), stream: runStream };
    const setupCtx = createThreadContext(base, plan, role, task.deadline, t, setupPart);
    setupOwned = setupCtx;
    const state = role.threadSetup ? await role.threadSetup(setupCtx.ctx, t) : undefined;
    gate.done();

    failedIn = 'round';
    const rdv = roundRendezvous(base.rendezvous);
    const roundBase: RoleBasics = Object.create(base, { rendezvous: { value: rdv.rendezvous }, mark: { value: mark } });
    let value: unknown;
    for (;;) {
      ex?.block('thread gate');
      const next = gate.nextRound(round, `thread ${t}: waiting for round ${round + 1}`, waitMs());
      // Round `next` is open: every role passed the end of the round before, whose names nobody reads any more.
      rdv.removeRoundNames(next === null);
      if (next === null) break;
      round = next;
      calls = 0;
      rdv.setRound(round);
      marks = [];
      const part: RoundPart = { round, rounds: total, setup: state, barrier: () => meet(`round ${round}: ctx.barrier()`), stream: runStream };
      value = await runThreadRound(roundBase, plan, role, task.deadline, t, part);
      gate.done();
    }
    return { ok: true, value, marks };
  } catch (e) {
    // Unequal ctx.barrier() calls: the verdict names the role that called it fewer times, which
    // failed when it went on to the wrong crossing.
    const mismatch = MismatchError && e instanceof MismatchError ? e : undefined;
    const thrown = mismatch ? new Error(mismatchText(mismatch, (p) => roleNames[p - 1] ?? `party ${p}`)) : e;
    const error = toRoleError(thrown instanceof Error ? thrown : new Error(String(thrown)));
    // The error first (the main thread reads it as soon as the gate breaks), then the other roles.
    if (gate.fail(threadParty(t), failedIn, error, mismatch?.selfBehind ? mismatch.arrivedAtNs.toString() : undefined)) barrier?.break(party);
    return { ok: false, error, marks };
  } finally {
    leave(); // this thread reaches no more explored points
    endSetup(setupOwned, task.deadline);
    if (stream && !stream.destroyed) quietly(() => stream!.destroy());
    barrier?.close();
  }
}

/** One round of the thread body: a fresh ctx, the body, its device work drained, what it made released. */
function runThreadRound(base: RoleBasics, plan: ScenarioPlan<any>, role: PlannedRole<any>, deadline: number, thread: number, part: RoundPart): Promise<unknown> {
  const owned = createThreadContext(base, plan, role, deadline, thread, part);
  const run = { owned, label: `${role.name} thread ${thread}`, who: 'the thread body', deadline, round: { stream: part.stream! } };
  return runBody(run, (ctx) => role.thread!(ctx, thread));
}
