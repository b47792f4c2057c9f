/**
 * The scenario deadline, one home for all of it: the default, the limit, the one error text for
 * a bad value (a scenario's `timeoutMs`, the config file's, CANN_HARNESS_TIMEOUT_MS), and the one
 * margin Jest's own timeout of a scenario test adds to it. The config file's `timeoutMs` reaches
 * every process as CANN_HARNESS_TIMEOUT_MS (src/config), so defaultTimeoutMs() is the default
 * wherever a scenario, template included, leaves `timeoutMs` out.
 */
import { ENV } from './index';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const MAX_TIMEOUT_MS = 600_000;
/**
 * Jest's timeout of a scenario test is its deadline plus this: the orchestrator's grace period
 * (SIGTERM, then SIGKILL), the hang report and the failure report all fit before Jest gives up,
 * so a hung scenario is reported by the harness, not by Jest.
 */
export const JEST_TIMEOUT_MARGIN_MS = 30_000;

/** What is wrong with a deadline, or null. `what` names where it came from ("timeoutMs", a variable). */
export function timeoutProblem(value: unknown, what: string, fix: string): string | null {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_TIMEOUT_MS) return null;
  return `${what} must be a whole number of milliseconds between 1 and ${MAX_TIMEOUT_MS} (got ${describe(value)}): ${fix}`;
}

/** The default deadline: CANN_HARNESS_TIMEOUT_MS (set from the config file's timeoutMs), else 30 s. */
export function defaultTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[ENV.timeoutMs];
  if (text === undefined || text === '') return DEFAULT_TIMEOUT_MS;
  const ms = /^\d+$/.test(text) ? Number(text) : text;
  const problem = timeoutProblem(ms, ENV.timeoutMs, 'fix it or unset it');
  if (problem) throw new Error(problem);
  return ms as number;
}

/** Jest's timeout for a test that runs a scenario with this deadline. */
export function jestTimeoutMs(scenarioTimeoutMs: number): number {
  return scenarioTimeoutMs + JEST_TIMEOUT_MARGIN_MS;
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v);
  return JSON.stringify(v) ?? String(v);
}
