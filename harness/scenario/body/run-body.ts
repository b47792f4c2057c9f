/**
 * The one body runner: a body (a role's `run`, a worker thread's `thread`) on a fresh ctx, then
 * the checks and clean-up every body ends with. Once is one round without a barrier:
 *  - a body that returned with ctx calls still in progress fails (such a call may never happen);
 *  - the device work it queued through ctx runs before it ends (drained, bounded by the deadline);
 *  - what it made through ctx is released, and ctx refuses any use after that, whatever happened.
 * In rounds, undrained work fails the round and the round's stream is synchronized too: the next
 * round (and the trace check) must find it idle. Once, undrained work is reported and dropped.
 */
import type { Stream } from '../../../src/acl';
import { guardAfterReturn } from '../context/after-return';
import type { ContextWithCleanup } from '../context/context';
import { DRAIN_BOUND_MS, drainBoundMs } from '../context/deadline';

export interface BodyRun<C extends object, T> {
  owned: ContextWithCleanup<C>;
  /** Names ctx in the error about its use after the body returned: the role, or "<role> thread <t>". */
  label: string;
  /** What returned, in the "still in progress" error: "role <name>", "the body", "the thread body". */
  who: string;
  deadline: number;
  /** Soak rounds: the body's stream for the run, synchronized at the end of every round. */
  round?: { stream: () => Stream };
  /** Checks the body's value before the clean-up (once: that JSON can carry it to the parent). */
  check?(value: NoInfer<Awaited<T>>): void;
  /** Called on a failure before the clean-up (once: the moment the role failed, failure-time.ts). */
  onFailure?(): void;
}

/** What to do about ctx calls left in progress: once, the role ends with its body; in rounds, the round does. */
const ONCE_ADVICE = 'await every ctx call inside the body (the role ends when the body returns, so such a call may never happen)';
const ROUND_ADVICE = 'await every ctx call';

export async function runBody<C extends object, T>(run: BodyRun<C, T>, body: (ctx: C) => T): Promise<Awaited<T>> {
  const guarded = guardAfterReturn(run.owned.ctx, run.label);
  try {
    const value = await body(guarded.ctx);
    const pending = guarded.pending();
    if (pending.length > 0) {
      const advice = run.round ? ROUND_ADVICE : ONCE_ADVICE;
      const calls = `${pending.join(', ')} ${pending.length === 1 ? 'was' : 'were'}`;
      throw new Error(`${run.who} returned while ${calls} still in progress: ${advice}`);
    }
    if (run.round) endRound(run.owned, run.round.stream, run.deadline);
    else endOnce(run.owned, run.label, run.deadline);
    run.check?.(value);
    return value;
  } catch (e) {
    run.onFailure?.();
    throw e;
  } finally {
    guarded.close();
    run.owned.cleanup();
  }
}

/**
 * A deterministic end: queued work (e.g. a record behind a latch the body just released) runs
 * before the role ends, rather than racing with the process's exit. Only streams made through
 * ctx are drained; a body that made none never loads ACL here.
 */
function endOnce(owned: ContextWithCleanup<object>, label: string, deadline: number): void {
  const undrained = owned.drain?.(drainBoundMs(deadline, 0)) ?? [];
  if (undrained.length > 0) {
    process.stderr.write(
      `[harness] ${label} returned, but ${undrained.join(', ')} did not drain within ${DRAIN_BOUND_MS} ms: ` +
        'its queued work is dropped when the process exits\n',
    );
  }
}

function endRound(owned: ContextWithCleanup<object>, stream: () => Stream, deadline: number): void {
  const bound = drainBoundMs(deadline, 1);
  const undrained = owned.drain?.(bound) ?? [];
  stream().synchronize(bound);
  if (undrained.length > 0) throw new Error(`${undrained.join(', ')} did not drain within ${bound} ms at the end of the round`);
}

/** The end of a setup part (the role's `setup`, a thread's `threadSetup`): its work drained, what it made released. */
export function endSetup(owned: Pick<ContextWithCleanup<object>, 'drain' | 'cleanup'> | undefined, deadline: number): void {
  owned?.drain?.(drainBoundMs(deadline, 0));
  owned?.cleanup();
}
