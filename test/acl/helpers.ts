/** Jest-side helpers for test/acl: run a fixture in a child process (never koffi in Jest). */
import * as path from 'node:path';
import { runTsChild, type ChildRun } from '../support/run-child';

export interface FixtureRun<T> extends ChildRun {
  result: { ok: true; value: T } | { ok: false; error: { message: string; stack?: string; acl?: unknown } } | undefined;
}

/** Default env of the fixtures: stub mode, two emulated devices, and not marked as a Jest worker. */
export const fixtureEnv: NodeJS.ProcessEnv = {
  CANN_HARNESS_MODE: 'stub',
  ACL_STUB_DEVICE_COUNT: '2',
  JEST_WORKER_ID: undefined,
  ACL_STUB_TRACE: undefined,
};

export async function runFixture<T = unknown>(
  name: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
  // Only a guard against a hung child: test files start their children at once, and under load
  // (2 busy cores) each takes many times its CPU time to come up.
  timeoutMs = 60_000,
): Promise<FixtureRun<T>> {
  const run = await runTsChild(path.join(__dirname, 'fixtures', `${name}.ts`), args, {
    env: { ...fixtureEnv, ...env },
    timeoutMs,
  });
  return { ...run, result: run.json as FixtureRun<T>['result'] };
}

/** The fixture's value, or a failure that shows everything the child printed. */
export function valueOf<T>(run: FixtureRun<T>): T {
  if (run.result?.ok && run.code === 0) return run.result.value;
  throw new Error(
    `fixture failed (exit ${run.code}, signal ${run.signal}): ${run.result && !run.result.ok ? run.result.error.message : 'no JSON result'}\n` +
      `--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`,
  );
}

export interface ChecksResult {
  library: { mode: string; requested: string; path: string; reason: string };
  results: Record<string, { ok: boolean; error?: string; value?: unknown }>;
}

export interface ChecksRun {
  run: FixtureRun<ChecksResult>;
  /** Everything the child reported; throws with its output if it crashed or failed to start. */
  value(): ChecksResult;
  check(name: string): { ok: boolean; error?: string; value?: unknown };
}

/** Runs fixtures/<module>.ts's checks in one child via fixtures/run-checks.ts. */
export async function runChecks(module: string, env: NodeJS.ProcessEnv = {}): Promise<ChecksRun> {
  const run = await runFixture<ChecksResult>('run-checks', [module], env);
  const value = () => valueOf(run);
  return { run, value, check: (name) => value().results[name] ?? { ok: false, error: `check "${name}" did not run` } };
}
