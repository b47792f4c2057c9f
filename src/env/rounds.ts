/**
 * Soak rounds (docs/guide/soak-rounds.md): the one error text for a bad round count (a scenario's
 * `rounds`, the config file's, CANN_HARNESS_ROUNDS, `run --rounds`) and the run-wide count from
 * the environment, which wins over a scenario's own `rounds`.
 */
import { ENV } from './index';

export const MAX_ROUNDS = 10_000_000;

/** What is wrong with a round count, or null. `what` names where it came from. */
export function roundsProblem(value: unknown, what: string, fix: string): string | null {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_ROUNDS) return null;
  const got = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return `${what} must be a whole number of rounds from 1 to ${MAX_ROUNDS} (got ${got}): ${fix}`;
}

/** CANN_HARNESS_ROUNDS (set by `run --rounds N` or the config's `rounds`), or null when unset. */
export function roundsFromEnv(env: NodeJS.ProcessEnv = process.env): number | null {
  const text = env[ENV.rounds];
  if (text === undefined || text === '') return null;
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : text;
  const problem = roundsProblem(n, ENV.rounds, `e.g. ${ENV.rounds}=1000, or unset it`);
  if (problem) throw new Error(problem);
  return n as number;
}
