/**
 * Runs inside a role's device process (the orchestrator's entry for every scenario role):
 * loads the spec in collect mode, finds the role's body and runs it with a ScenarioContext,
 * plus its worker threads if it declared `threads`.
 */
import type { RoleContext } from '../orchestrator';
import { createScenarioContext } from './context';
import { collectScenarios } from './scenario';
import { runRoleThreads } from './threads';
import type { PlannedRole, RoleEntryArgs, RoleEnvelope, ScenarioPlan } from './types';

export async function runScenarioRole(base: RoleContext, args: RoleEntryArgs): Promise<RoleEnvelope> {
  const startedAt = Date.now();
  const { plan, role } = findRole(args);
  const deadline = startedAt + plan.timeoutMs;
  const { ctx, cleanup } = createScenarioContext(base, plan, role, deadline);
  try {
    // Worker threads only call setDevice; aclInit must already have happened in this process.
    if (role.thread) void base.acl;
    const [value, threads] = await Promise.all([
      role.run ? role.run(ctx) : undefined,
      role.thread ? runRoleThreads({ args, device: base.device, index: base.index, dir: base.dir, threads: role.threads, deadline }) : undefined,
    ]);
    const envelope: RoleEnvelope = { __scenarioEnvelope: 1, threadMarks: threads?.marks ?? [] };
    if (value !== undefined) envelope.value = value;
    if (threads) envelope.threadValues = threads.values;
    return envelope;
  } finally {
    cleanup();
  }
}

export function findRole(args: RoleEntryArgs): { plan: ScenarioPlan<any>; role: PlannedRole<any> } {
  if (!args || typeof args.specFile !== 'string' || typeof args.scenario !== 'string' || typeof args.role !== 'string') {
    throw new TypeError(`runScenarioRole: args must be { specFile, scenario, role }, got ${JSON.stringify(args)}`);
  }
  const plans = collectScenarios(args.specFile);
  const plan = plans.get(args.scenario);
  if (!plan) {
    throw new Error(
      `scenario ${JSON.stringify(args.scenario)} is not declared in ${args.specFile} (found: ${[...plans.keys()].map((n) => JSON.stringify(n)).join(', ') || 'none'}); ` +
        'declarations must be the same in every process: do not build scenario names or roles from random or time-dependent values',
    );
  }
  const role = plan.roles.find((r) => r.name === args.role);
  if (!role) {
    throw new Error(
      `role ${JSON.stringify(args.role)} is not part of scenario ${JSON.stringify(args.scenario)} (roles: ${plan.roles.map((r) => r.name).join(', ')})`,
    );
  }
  return { plan, role };
}
