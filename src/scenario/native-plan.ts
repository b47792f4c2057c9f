/**
 * Validation of the native parts of a declaration: `exec` roles, `precheck: { exec }` and `build`.
 * Kept apart from plan.ts (which calls it) so the TypeScript-role rules stay readable there.
 */
import type { PrecheckDeclaration, RoleDeclaration, ScenarioDeclaration } from './types';

export const NATIVE_ROLE_KEYS = ['exec', 'expectOutput', 'expectExit'] as const;
export const NATIVE_SCENARIO_KEYS = ['precheck', 'build'] as const;
export const DEFAULT_PRECHECK_EXEC_TIMEOUT_MS = 30_000;
/** The placeholders an `exec` argument may contain. */
export const EXEC_PLACEHOLDERS = ['{device}', '{index}', '{dir}'] as const;

const EXEC_EXAMPLE = "exec: ['build/proc_b', '{device}', '1']";

/** Problems of `exec` as a list of strings (the program first); `what` names it in messages. */
function execProblems(exec: unknown, what: string): string[] {
  if (!Array.isArray(exec) || exec.length === 0 || exec.some((a) => typeof a !== 'string')) {
    return [`${what} must be a non-empty list of strings, the program first (got ${describe(exec)}): ${EXEC_EXAMPLE}`];
  }
  if ((exec[0] as string).trim() === '') return [`${what}[0] must name the program (got an empty string): ${EXEC_EXAMPLE}`];
  const unknown = exec.flatMap((a: string) => (a.match(/\{[a-z]+\}/g) ?? []).filter((p) => !(EXEC_PLACEHOLDERS as readonly string[]).includes(p)));
  return unknown.map((p) => `${what}: unknown placeholder ${p}; the known ones are ${EXEC_PLACEHOLDERS.join(', ')}`);
}

/** Checks a role's native keys; returns true when the role is a native one (has `exec`). */
export function checkNativeRole(name: string, decl: RoleDeclaration<any>, problems: string[]): boolean {
  const native = decl.exec !== undefined;
  if (native) {
    problems.push(...execProblems(decl.exec, `role ${name}: exec`));
    if (decl.run !== undefined || decl.thread !== undefined || decl.threads !== undefined) {
      problems.push(`role ${name}: give it either a program (exec) or a body (run / thread), not both`);
    }
  } else if (decl.expectOutput !== undefined || decl.expectExit !== undefined) {
    problems.push(`role ${name}: expectOutput and expectExit apply to native roles only: add exec: [...] or remove them (a body checks its own results)`);
  }
  if (decl.expectOutput !== undefined && !(decl.expectOutput instanceof RegExp)) {
    problems.push(`role ${name}: expectOutput must be a regular expression (got ${describe(decl.expectOutput)}): expectOutput: /finished successfully/`);
  }
  if (decl.expectExit !== undefined && (!Number.isInteger(decl.expectExit) || decl.expectExit < 0 || decl.expectExit > 255)) {
    problems.push(`role ${name}: expectExit must be an exit code from 0 to 255 (got ${describe(decl.expectExit)})`);
  }
  return native;
}

/** Checks `precheck` and `build`; returns their planned form. */
export function checkNativeScenario(
  decl: Pick<ScenarioDeclaration<any>, 'precheck' | 'build'>,
  problems: string[],
): { precheck?: { exec: string[]; timeoutMs: number }; build?: string } {
  const out: { precheck?: { exec: string[]; timeoutMs: number }; build?: string } = {};
  const pre = decl.precheck as PrecheckDeclaration | undefined;
  if (pre !== undefined) {
    if (typeof pre !== 'object' || pre === null || Array.isArray(pre)) {
      problems.push(`precheck must be an object (got ${describe(pre)}): precheck: { exec: ['build/precheck', '4'] }`);
    } else {
      for (const k of Object.keys(pre)) if (k !== 'exec' && k !== 'timeoutMs') problems.push(`precheck: unknown key ${JSON.stringify(k)}; known keys: exec, timeoutMs`);
      const bad = execProblems(pre.exec, 'precheck.exec');
      problems.push(...bad);
      const timeoutMs = pre.timeoutMs ?? DEFAULT_PRECHECK_EXEC_TIMEOUT_MS;
      if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
        problems.push(`precheck.timeoutMs must be a positive number of milliseconds (got ${describe(timeoutMs)})`);
      } else if (bad.length === 0) {
        out.precheck = { exec: [...pre.exec], timeoutMs };
      }
    }
  }
  if (decl.build !== undefined) {
    if (typeof decl.build !== 'string' || decl.build.trim() === '') {
      problems.push(`build must be a shell command (got ${describe(decl.build)}): build: 'make -C native'`);
    } else {
      out.build = decl.build;
    }
  }
  return out;
}

function describe(v: unknown): string {
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === undefined || v === null || typeof v !== 'object') return String(v);
  return Array.isArray(v) ? 'an array' : 'an object';
}
