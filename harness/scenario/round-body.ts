/**
 * One round of one body (a role's `run` or a worker thread's `thread`) in soak rounds: the body
 * with a fresh ctx, then the checks and clean-up every round ends with, the same for both.
 */
import type { Stream } from '../../src/acl';
import { guardAfterReturn } from './after-return';
import type { OwnedContext } from './context';

/** How long the end of a round may take to run the device work its body queued. */
export const ROUND_DRAIN_MS = 2000;

/**
 * Runs `body` on `owned`'s ctx; fails when it returned with ctx calls still in progress or its
 * device work did not drain in time. Its stream is synchronized too: the next round (and the
 * trace check) must find it idle. What the round made through ctx is released either way.
 */
export async function runRoundBody<C extends object>(
  owned: OwnedContext<C>,
  label: string,
  body: (ctx: C) => unknown,
  stream: () => Stream,
  deadline: number,
  bodyName = 'the body',
): Promise<unknown> {
  const guarded = guardAfterReturn(owned.ctx, label);
  try {
    const value = await body(guarded.ctx);
    const pending = guarded.pending();
    if (pending.length > 0) throw new Error(`${bodyName} returned while ${pending.join(', ')} ${pending.length === 1 ? 'was' : 'were'} still in progress: await every ctx call`);
    const bound = Math.min(ROUND_DRAIN_MS, Math.max(1, deadline - Date.now()));
    const undrained = owned.drain?.(bound) ?? [];
    stream().synchronize(bound);
    if (undrained.length > 0) throw new Error(`${undrained.join(', ')} did not drain within ${bound} ms at the end of the round`);
    return value;
  } finally {
    guarded.close();
    owned.cleanup();
  }
}
