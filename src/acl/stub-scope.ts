/**
 * Every run in a stub scope of its own (README "Environment variables", ACL_STUB_SCOPE): a run
 * whose environment sets no scope gets `harness-<pid of the run's owner>` (the CLI, Jest's main
 * process, or whoever calls runRoles first), set in this process's environment so that Jest
 * workers, device processes, native roles and the reclaim tool all inherit it. The stub then
 * names every object `cannstub-<kind>-<id>.harness-<pid>` and reclaims only that scope, so two CI
 * jobs on one runner never see (nor report, nor remove) each other's objects. What a killed run
 * left in its scope is removed by the next start once that pid is dead (orchestrator/dead-runs.ts).
 */
import { ENV } from '../env';

const DEFAULT_SCOPE = /^harness-(\d+)$/;

/** The scope of this run: the one set in `env`, else a new default one (written into `env`). */
export function ensureRunStubScope(env: NodeJS.ProcessEnv = process.env): string {
  const set = env[ENV.stubScope];
  if (set) return set;
  const scope = `harness-${process.pid}`;
  env[ENV.stubScope] = scope;
  return scope;
}

/** The pid of the run that owns a default scope (`harness-<pid>`), or null for any other scope. */
export function defaultScopeOwner(scope: string): number | null {
  const m = DEFAULT_SCOPE.exec(scope);
  return m ? Number(m[1]) : null;
}

/** The scope a stub object's name in /dev/shm carries (`cannstub-<kind>-<16 hex>.<scope>`), or null. */
export function scopeOfObject(name: string): string | null {
  return /^cannstub-[a-z]+-[0-9a-f]{16}\.([A-Za-z0-9_-]{1,24})$/.exec(name)?.[1] ?? null;
}
