/**
 * Where `scenario()` sends what it declared: a "currently loading" sink, set by whoever loads
 * the spec file (as Playwright's loader sets its current suite around `require`). The DSL does
 * not know its loaders; the loaders depend on the DSL, never the other way round:
 *  - Jest: src/jest/setup.ts installs a sink that turns each plan into a Jest test;
 *  - device processes and worker threads: collectScenarios() installs a collector around the
 *    `require` of the spec file.
 * Kept on globalThis (under a registered symbol) so that every copy of this module in one
 * realm (Jest's per-file module registry, a package and its source) sees the same sink.
 */
import type { ScenarioPlan } from './types';

export type ScenarioFocus = 'normal' | 'only' | 'skip';

export interface ScenarioSink {
  /** Receives one validated plan; throws to reject it (e.g. a duplicate name). */
  declare(plan: ScenarioPlan<any>, focus: ScenarioFocus): void;
}

const SINK = Symbol.for('cann-ipc-harness.scenario-sink');
type GlobalWithSink = typeof globalThis & { [SINK]?: ScenarioSink };

export function currentScenarioSink(): ScenarioSink | undefined {
  return (globalThis as GlobalWithSink)[SINK];
}

/** Makes `sink` current until the returned function is called (which restores the previous one). */
export function installScenarioSink(sink: ScenarioSink): () => void {
  const g = globalThis as GlobalWithSink;
  const previous = g[SINK];
  g[SINK] = sink;
  return () => {
    g[SINK] = previous;
  };
}
