/**
 * The verdict on unequal ctx.barrier() calls in soak rounds (issue 33 item 9), for the run body
 * (rounds.ts) and worker-thread bodies (thread-round-loop.ts) alike.
 */
import { describeCrossing, type Crossing, type RoundBarrierMismatchError } from '../../../src/acl/round-barrier';

/** Which role called ctx.barrier() fewer times, in which round, and what each role met. */
export function mismatchText(e: RoundBarrierMismatchError, name: (party: number) => string): string {
  const other = name(e.otherParty);
  const where = e.mine.round === 0 ? 'setup' : `round ${e.mine.round}`;
  const calls = (c: Crossing) => (c.call === 'end' ? 'went on to' : 'was at');
  const head = e.selfBehind
    ? `this role called ctx.barrier() fewer times than role "${other}" in ${where}`
    : `role "${other}" called ctx.barrier() fewer times than this role in ${where}`;
  return (
    `${head}: this role ${calls(e.mine)} ${describeCrossing(e.mine)} while "${other}" ${calls(e.theirs)} ${describeCrossing(e.theirs)}. ` +
    'Every role must call ctx.barrier() the same number of times in each round (and in setup)'
  );
}

