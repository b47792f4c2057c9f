/**
 * Finds a role's plan in its spec file, loaded again in collect mode in a device process or one of
 * its worker threads: the same scenario, params and role as the process that declared it, or an
 * error naming what differs and how to fix it.
 */
import { paramsFingerprint } from './plan';
import { collectScenarios } from './scenario';
import type { PlannedRole, RoleEntryArgs, ScenarioPlan } from './types';

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

export function findRole(args: RoleEntryArgs): { plan: ScenarioPlan<any>; role: PlannedRole<any> } {
  if (!args || typeof args.specFile !== 'string' || typeof args.scenario !== 'string' || typeof args.role !== 'string') {
    throw new TypeError(`runScenarioRole: args must be { specFile, scenario, role }, got ${JSON.stringify(args)}`);
  }
  const plans = collectScenarios(args.specFile);
  const plan = plans.get(args.scenario);
  if (!plan) {
    throw new Error(
      `scenario ${JSON.stringify(args.scenario)} is not declared in ${args.specFile} ` +
        `(found: ${[...plans.keys()].map((n) => JSON.stringify(n)).join(', ') || 'none'}); ` +
        'declarations must be the same in every process: do not build scenario names or roles from random or time-dependent values',
    );
  }
  if (args.paramsJson !== undefined && paramsFingerprint(plan.params) !== args.paramsJson) {
    throw new Error(
      `scenario ${JSON.stringify(args.scenario)}: params differ between the process that declared it and this device process ` +
        `(${clip(args.paramsJson)} there, ${clip(paramsFingerprint(plan.params) ?? '?')} here): ` +
        'spec files are loaded again in every process, ' +
        'so params must not come from Math.random(), Date.now() or other per-process values; use fixed values (e.g. a fixed seed) ' +
        'or pass a run-wide value through an environment variable set before the run',
    );
  }
  const role = plan.roles.find((r) => r.name === args.role);
  if (!role) {
    throw new Error(
      `role ${JSON.stringify(args.role)} is not part of scenario ${JSON.stringify(args.scenario)} ` +
        `(roles: ${plan.roles.map((r) => r.name).join(', ')})`,
    );
  }
  return { plan, role };
}
