/**
 * Per-round jitter seeds: round 1 uses the run's seed, and each later round's seed is a hash of
 * the round before's. So the seed of any round is also the start of a replay: running with
 * ACL_STUB_JITTER=<seed of round k>:<max_us> runs rounds with the seeds of k, k+1, ... again.
 */

/** The seed after `seed` (1 .. 2^31-1, like freshJitterSeed): murmur3's 32-bit finaliser. */
export function nextRoundSeed(seed: number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  return (h % 0x7ffffffe) + 1;
}

/** The seed of round `round` (1-based) of a run whose seed is `runSeed`. */
export function roundSeed(runSeed: number, round: number): number {
  let s = runSeed;
  for (let r = 1; r < round; r++) s = nextRoundSeed(s);
  return s;
}
