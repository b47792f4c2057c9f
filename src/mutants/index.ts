/**
 * The stub's mutants (ACL_STUB_MUTANT, native-stub/src/mutant.c): public names, used in users' CI
 * scripts and in scenario declarations (`audit: { expectSurvive: [...] }`). Keep in step with
 * mutant.c; the stub rejects any other name at aclInit.
 */
import { ENV } from '../env';
export const MUTANTS = ['wait-noop', 'record-instant', 'wait-latest', 'sync-noop'] as const;
export type MutantName = (typeof MUTANTS)[number];

export const MUTANT_DESCRIPTIONS: Record<MutantName, string> = {
  'wait-noop': 'IPC event, local event and notify waits never block',
  'record-instant': 'event and notify records complete at submission, ignoring stream order',
  'wait-latest': 'a wait binds, when it runs, to the latest record instead of the one pending when issued',
  'sync-noop': 'synchronize calls return at once',
};

export const MUTANT_ENV = ENV.stubMutant;
export const JITTER_ENV = ENV.stubJitter;

export function isMutantName(x: unknown): x is MutantName {
  return typeof x === 'string' && (MUTANTS as readonly string[]).includes(x);
}

/** Checks a list of mutant names (e.g. --mutants), naming the valid ones on error. */
export function parseMutantList(text: string, what: string): MutantName[] {
  const names = text.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = names.filter((n) => !isMutantName(n));
  if (names.length === 0 || bad.length > 0) {
    throw new Error(`${what}: ${bad.length ? `unknown mutant ${bad.map((b) => JSON.stringify(b)).join(', ')}` : 'no mutant given'}; use a comma-separated list of ${MUTANTS.join(', ')}`);
  }
  return [...new Set(names)] as MutantName[];
}

/**
 * One line for run headers and doctor when the environment turns a mutant or jitter on, so that
 * neither is ever active by accident. null when both are off.
 */
export function stubTamperingNotice(env: NodeJS.ProcessEnv = process.env): string | null {
  const parts: string[] = [];
  const mutant = env[MUTANT_ENV];
  if (mutant && mutant !== 'none') {
    parts.push(isMutantName(mutant)
      ? `mutant ${mutant} is active (${MUTANT_ENV}): scenarios are expected to fail`
      : `${MUTANT_ENV}=${mutant} is set but names no mutant, so aclInit will fail: unset it or use ${MUTANTS.join(', ')}`);
  }
  if (env[JITTER_ENV]) parts.push(`seeded jitter is on (${JITTER_ENV}=${env[JITTER_ENV]})`);
  return parts.length ? parts.join('; ') : null;
}
