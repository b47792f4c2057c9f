/**
 * The native steps of a spec file (`build:`, `precheck: { exec }`) run before Jest collects it, with
 * awaits. Jest collects a spec file synchronously (a skip can only be declared then), so the gate
 * (native-gate.ts) used to run them with spawnSync: the main thread was blocked for the whole build,
 * and a SIGINT or SIGTERM to the runner (in band, the process that collects) was handled only when
 * the build ended, up to its deadline later.
 *
 * Jest awaits a setupFilesAfterEnv module that exports a function before it loads the spec file
 * (src/jest/setup.ts exports this one): it loads the spec file once in a module registry of its own
 * (jest.isolateModules) with a sink that only collects the plans (spec files are side-effect free:
 * device processes load them too), runs their gates with awaits, and leaves the outcomes to the
 * collection that follows (nativeGate finds them). Meanwhile the event loop is free: the session
 * guard's signal handler runs at once and stops the build with everything else.
 *
 * Only a file whose text calls scenario() and has a `build:` or `precheck:` property is loaded twice
 * (the usual spec file is not); a declaration imported from another file is then still handled at
 * collection, synchronously. While it loads, Jest's globals (test, describe, hooks) do nothing: a
 * test file that also declares scenarios registers its tests once, in the real load.
 */
import { readFileSync } from 'node:fs';
import { installScenarioSink } from '../scenario/sink';
import type { ScenarioPlan } from '../scenario/types';
import { nativeGateAsync } from './native-gate';
import { currentProbe, requestedMode } from './probe';
import { shardFromEnv, shardOfScenario } from './repeat';

export async function prepareNativeSteps(
  testPath: string | undefined = (expect as unknown as { getState(): { testPath?: string } }).getState().testPath,
): Promise<void> {
  if (!testPath) return;
  let source: string;
  try {
    source = readFileSync(testPath, 'utf8');
  } catch {
    return;
  }
  if (!/\bscenario\s*\(/.test(source) || !/\b(?:build|precheck)\s*:\s+\S/.test(source)) return;
  const plans: ScenarioPlan<any>[] = [];
  const shard = shardFromEnv();
  const restore = installScenarioSink({
    declare(plan, focus) {
      // As register.ts: a skipped scenario, or one of another shard, is never built.
      if (focus === 'skip' || (shard && shardOfScenario(testPath, plan.name, shard.total) !== shard.index)) return;
      if (plan.build || plan.precheck) plans.push(plan);
    },
  });
  const unstub = stubJestGlobals();
  try {
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require(testPath);
    });
  } catch {
    /* the collection loads it again and reports what is wrong */
  } finally {
    unstub();
    restore();
  }
  if (plans.length === 0) return;
  const probe = currentProbe();
  const mode = probe.ok ? probe.mode : requestedMode();
  for (const plan of plans) {
    try {
      await nativeGateAsync(plan, testPath, mode);
    } catch {
      /* e.g. the worker that builds died: the collection runs the gate again and reports it */
    }
  }
}

const JEST_GLOBALS = [
  'test',
  'it',
  'describe',
  'fit',
  'fdescribe',
  'xit',
  'xtest',
  'xdescribe',
  'beforeAll',
  'beforeEach',
  'afterAll',
  'afterEach',
] as const;

/** Replaces Jest's test-declaring globals with ones that do nothing (test.each(...)(...), test.skip too); returns what restores them. */
function stubJestGlobals(): () => void {
  const g = globalThis as Record<string, unknown>;
  const saved = JEST_GLOBALS.filter((name) => name in g).map((name) => [name, g[name]] as const);
  const nothing = (): unknown => nothing;
  for (const key of ['each', 'only', 'skip', 'concurrent', 'todo', 'failing']) Object.assign(nothing, { [key]: nothing });
  for (const [name] of saved) g[name] = nothing;
  return () => {
    for (const [name, value] of saved) g[name] = value;
  };
}
