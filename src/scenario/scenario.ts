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
