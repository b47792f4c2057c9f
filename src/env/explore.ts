/**
 * The schedule explorer's settings (`run --explore [seed] --explore-depth d --explore-replay
 * <token>`, CANN_HARNESS_EXPLORE / _DEPTH / _REPLAY, the config's `explore` and `exploreDepth`):
 * parsing and the problems, each naming the fix. The replay token itself is decoded in
 * src/wire/explore-file.ts.
 */
import { ENV } from './index';

export const DEFAULT_EXPLORE_DEPTH = 2;
export const MAX_EXPLORE_DEPTH = 8;
/** Seeds are whole numbers 1 .. 2^31-1 (like the jitter's). */
const MAX_SEED = 2 ** 31 - 1;

/** `fresh`: a new seed per scenario test (printed); a number: that seed. */
export type ExploreSeed = number | 'fresh';

export function exploreSeedProblem(value: unknown, what: string): string | null {
  if (value === 'fresh' || value === true) return null;
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_SEED) return null;
  return (
    `${what} ${JSON.stringify(value)} is invalid: give a seed, a whole number from 1 to ${MAX_SEED}, ` +
    `or "fresh" for a new seed per scenario (e.g. ${what} 42)`
  );
}

export function parseExploreSeed(value: unknown, what: string): ExploreSeed {
  const problem = exploreSeedProblem(value, what);
  if (problem) throw new Error(problem);
  return value === 'fresh' || value === true ? 'fresh' : Number(value);
}

export function exploreDepthProblem(value: unknown, what: string): string | null {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_EXPLORE_DEPTH) return null;
  return (
    `${what} ${JSON.stringify(value)} is invalid: give the PCT depth, a whole number from 1 to ${MAX_EXPLORE_DEPTH} ` +
    `(the number of ordering constraints a bug needs; default ${DEFAULT_EXPLORE_DEPTH})`
  );
}

export function parseExploreDepth(value: unknown, what: string): number {
  const problem = exploreDepthProblem(value, what);
  if (problem) throw new Error(problem);
  return Number(value);
}

/** What the environment asks of the explorer: nothing, a search, or a replay (the token still encoded). */
export type ExploreRequest = { kind: 'search'; seed: ExploreSeed; depth: number } | { kind: 'replay'; token: string };

export function exploreFromEnv(env: NodeJS.ProcessEnv = process.env): ExploreRequest | null {
  const replay = env[ENV.exploreReplay];
  const seed = env[ENV.explore];
  if (replay && seed) {
    const why = 'a replay forces one recorded schedule, a search draws new ones; unset one of them';
    throw new Error(`${ENV.explore} and ${ENV.exploreReplay} are both set: ${why}`);
  }
  if (replay) return { kind: 'replay', token: replay };
  if (!seed) return null;
  const depthText = env[ENV.exploreDepth];
  const depth = depthText ? parseExploreDepth(depthText, ENV.exploreDepth) : DEFAULT_EXPLORE_DEPTH;
  return { kind: 'search', seed: parseExploreSeed(seed, ENV.explore), depth };
}
