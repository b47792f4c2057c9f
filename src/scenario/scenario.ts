/**
 * `scenario(name, declaration)`: the one call a spec makes per scenario.
 *
 * The same spec file is loaded in two places, each of which installs the sink that receives the
 * validated plans (./sink.ts):
 *  - in Jest, where each scenario becomes a test (src/jest/setup.ts, src/jest/register.ts);
 *  - in a device process or worker thread (collect mode, collectScenarios below), where it only
 *    records the plans so role-entry can find its role's body. Collect mode never touches Jest.
 */
import * as path from 'node:path';
import { planScenario } from './plan';
import { currentScenarioSink, installScenarioSink, type ScenarioFocus } from './sink';
import type { Params, ScenarioDeclaration, ScenarioPlan } from './types';

export type { ScenarioFocus } from './sink';

function declare<P extends Params>(name: string, declaration: ScenarioDeclaration<P>, focus: ScenarioFocus): void {
  const plan = planScenario(name, declaration);
  const sink = currentScenarioSink();
  if (!sink) {
    throw new Error(
      typeof (globalThis as { test?: unknown }).test === 'function'
        ? `scenario(${JSON.stringify(name)}): this Jest run does not load the harness's setup file: add ` +
            'src/jest/setup.ts to setupFilesAfterEnv (and src/jest/global-setup.ts as globalSetup), as jest.config.ts does'
        : `scenario(${JSON.stringify(name)}) was called outside Jest: run spec files with \`npx jest\` or \`npx cann-harness run\`, ` +
            'not with node directly',
    );
  }
  sink.declare(plan, focus);
}

/** Declare a scenario: one Jest test, one process per role. */
export function scenario<P extends Params = Params>(name: string, declaration: ScenarioDeclaration<P>): void {
  declare(name, declaration, 'normal');
}
/** Run only this scenario (and other .only ones) in its spec file, like test.only. */
scenario.only = <P extends Params = Params>(name: string, declaration: ScenarioDeclaration<P>): void =>
  declare(name, declaration, 'only');
/** Declare but do not run, like test.skip (the declaration is still validated). */
scenario.skip = <P extends Params = Params>(name: string, declaration: ScenarioDeclaration<P>): void =>
  declare(name, declaration, 'skip');

/**
 * Parametrized scenarios, like test.each: `scenario.each(table)(name, (row, index) => declaration)`
 * declares one scenario per row. In the name, `$key` is a property of an object row, `%#` the row's
 * index, and `%s` / `%d` / `%j` take the row's items in turn (the row itself when it is not an array).
 * The table must be the same in every process that loads the spec (no Math.random()).
 */
scenario.each = <Row>(table: readonly Row[]) => {
  if (!Array.isArray(table) || table.length === 0) {
    throw new Error(`scenario.each(table): table must be a non-empty array of rows, e.g. scenario.each([{ consumers: 1 }, { consumers: 3 }]) (got ${JSON.stringify(table)})`);
  }
  return <P extends Params = Params>(name: string, declaration: (row: Row, index: number) => ScenarioDeclaration<P>): void => {
    table.forEach((row, index) => scenario(scenarioTitle(name, row, index), declaration(row, index)));
  };
};

/** test.each's title placeholders, for one row. */
export function scenarioTitle(name: string, row: unknown, index: number): string {
  const items = Array.isArray(row) ? [...row] : [row];
  const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  return name
    .replace(/%#/g, String(index))
    .replace(/%[sdij]/g, (p) => {
      if (items.length === 0) return p;
      const v = items.shift();
      return p === '%j' ? JSON.stringify(v) : p === '%d' || p === '%i' ? String(Number(v)) : text(v);
    })
    .replace(/\$([A-Za-z_][\w]*)/g, (whole, key: string) => (row !== null && typeof row === 'object' && key in row ? text((row as Record<string, unknown>)[key]) : whole));
}

export function duplicateScenario(name: string, specFile: string): Error {
  return new Error(
    `duplicate scenario name ${JSON.stringify(name)} in ${path.basename(specFile)}: ` +
      'each scenario in a spec file needs its own name (its roles find their body by it)',
  );
}

/**
 * Load `specFile` in collect mode and return its scenarios. Used in device processes and worker
 * threads, where the spec's role bodies must run.
 */
export function collectScenarios(specFile: string): Map<string, ScenarioPlan<any>> {
  const plans = new Map<string, ScenarioPlan<any>>();
  const uninstall = installScenarioSink({
    declare(plan) {
      if (plans.has(plan.name)) throw duplicateScenario(plan.name, specFile);
      plans.set(plan.name, plan);
    },
  });
  // Specs may group scenarios with describe(): outside Jest it just runs the block.
  const withDescribe = globalThis as { describe?: unknown };
  const hadDescribe = 'describe' in withDescribe;
  if (!hadDescribe) withDescribe.describe = (_name: string, block: () => void) => block();
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require(specFile);
  } finally {
    uninstall();
    if (!hadDescribe) delete withDescribe.describe;
  }
  return plans;
}
