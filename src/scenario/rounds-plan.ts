/**
 * Declaration checks of soak rounds (`rounds` on a scenario, `setup` on a role), kept out of
 * plan.ts so that the rounds feature is one module: every problem names the fix.
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
    if (rounds !== undefined && r.exec) problems.push(roundsUnsupported(r)!);
    if (r.setup !== undefined && r.run === undefined) {
      problems.push(`role ${r.name}: setup needs a run body that uses it: run: async (ctx) => { ctx.setup ... }`);
    }
  }
  return problems;
}

/**
 * Why a role cannot run in rounds, or null. Worker threads do not run in rounds yet; a native role
 * (exec) is a program that runs once from start to exit, so it has no body to repeat.
 */
export function roundsUnsupported(role: PlannedRole<any>): string | null {
  if (role.exec) return `role ${role.name} runs a program (exec: ${role.exec[0]}), which runs once from start to exit and cannot run in rounds: run this scenario without rounds (e.g. select other scenarios with -t when using --rounds)`;
  return role.thread ? `role ${role.name} has worker threads (threads: ${role.threads}), which do not run in rounds yet: run it without rounds` : null;
}
