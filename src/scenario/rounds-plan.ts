/**
 * Declaration checks of soak rounds (`rounds` on a scenario, `setup` and `threadSetup` on a role),
 * kept out of plan.ts so that the rounds feature is one module: every problem names the fix.
 */
import { roundsProblem } from '../env/rounds';
import type { PlannedRole } from './types';

export function roundsProblems(rounds: unknown, roles: PlannedRole<any>[]): string[] {
  const problems: string[] = [];
  if (rounds !== undefined) {
    const p = roundsProblem(rounds, 'rounds', 'e.g. rounds: 1000 (or `cann-harness run --rounds 1000`)');
    if (p) problems.push(p);
  }
  for (const r of roles) {
    if (r.setup !== undefined && typeof r.setup !== 'function') {
      problems.push(`role ${r.name}: setup must be a function (got ${typeof r.setup}): setup: async (ctx) => { ...; return state }`);
    }
    if (r.threadSetup !== undefined && typeof r.threadSetup !== 'function') {
      problems.push(`role ${r.name}: threadSetup must be a function (got ${typeof r.threadSetup}): threadSetup: async (ctx, t) => { ...; return state }`);
    }
    if (rounds !== undefined && r.exec) problems.push(roundsUnsupported(r)!);
    if (r.setup !== undefined && r.run === undefined) {
      problems.push(
        `role ${r.name}: setup needs a run body that uses it: run: async (ctx) => { ctx.setup ... }` +
          (r.thread ? ' (its state stays in the main thread; for state of each worker thread use threadSetup: async (ctx, t) => { ...; return state })' : ''),
      );
    }
    if (r.threadSetup !== undefined && r.thread === undefined) {
      problems.push(`role ${r.name}: threadSetup needs worker threads that use it: threads: 2, thread: async (ctx, t) => { ctx.setup ... } (for the main thread use setup)`);
    }
  }
  return problems;
}

/**
 * Why a role cannot run in rounds, or null. A native role (exec) is a program that runs once from
 * start to exit, so it has no body to repeat. (Worker threads run in rounds: harness/scenario/threads/round-threads.ts.)
 */
export function roundsUnsupported(role: PlannedRole<any>): string | null {
  return role.exec
    ? `role ${role.name} runs a program (exec: ${role.exec[0]}), which runs once from start to exit and cannot run in rounds: run this scenario without rounds (e.g. select other scenarios with -t when using --rounds)`
    : null;
}
