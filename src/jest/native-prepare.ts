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
 * A file whose text names neither `build` nor `precheck` is not loaded twice (the usual case); a
 * declaration imported from another file is then still handled at collection, synchronously.
 */
import { readFileSync } from 'node:fs';
import { installScenarioSink } from '../scenario/sink';
import type { ScenarioPlan } from '../scenario/types';
import { nativeGateAsync } from './native-gate';
import { currentProbe, requestedMode } from './probe';
import { shardFromEnv, shardOfScenario } from './repeat';

export async function prepareNativeSteps(testPath: string | undefined = (expect as unknown as { getState(): { testPath?: string } }).getState().testPath): Promise<void> {
  if (!testPath) return;
  let source: string;
  try {
    source = readFileSync(testPath, 'utf8');
  } catch {
    return;
  }
  if (!/\b(?:build|precheck)\b/.test(source)) return;
  const plans: ScenarioPlan<any>[] = [];
  const shard = shardFromEnv();
  const restore = installScenarioSink({
    declare(plan, focus) {
      // As register.ts: a skipped scenario, or one of another shard, is never built.
      if (focus === 'skip' || (shard && shardOfScenario(testPath, plan.name, shard.total) !== shard.index)) return;
      if (plan.build || plan.precheck) plans.push(plan);
    },
  });
  try {
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require(testPath);
    });
  } catch {
    /* the collection loads it again and reports what is wrong */
  } finally {
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
