/**
 * Runs inside a role's device process (the orchestrator's entry for every scenario role):
 * loads the spec in collect mode, finds the role's body and runs it with a ScenarioContext,
 * plus its worker threads if it declared `threads`.
 */
import type { RoleContext } from '../../src/wire/types';
import { noteRoleFailure } from '../failure-time';
import { unsendablePart } from '../../src/wire/json-value';
import { guardAfterReturn } from './after-return';
import { createScenarioContext } from './context';
import { paramsFingerprint } from '../../src/scenario/plan';
import { collectScenarios } from '../../src/scenario/scenario';
import { runRoleThreads } from './threads';
import { runScenarioRounds } from './rounds';
import { type ROLE_ENTRY_EXPORT, type PlannedRole, type RoleEntryArgs, type RoleEnvelope, type ScenarioPlan } from '../../src/scenario/types';

/** How long a role that returned may take to run the device work it queued (never past the deadline). */
export const DRAIN_BOUND_MS = 2000;

export async function runScenarioRole(base: RoleContext, args: RoleEntryArgs): Promise<RoleEnvelope> {
  const startedAt = Date.now();
  const { plan, role } = findRole(args);
  const deadline = startedAt + plan.timeoutMs;
  if (args.rounds) return runScenarioRounds(base, plan, role, args.rounds, deadline, base.roundsDone?.bind(base), args);
  const owned = createScenarioContext(base, plan, role, deadline);
  const { cleanup } = owned;
  const guarded = guardAfterReturn(owned.ctx, role.name);
  try {
    // Worker threads only call setDevice; aclInit must already have happened in this process.
    // (base.acl also tells the threads which library to load.)
    if (role.thread) void base.acl;
    const [value, threads] = await Promise.all([
      role.run ? role.run(guarded.ctx) : undefined,
      role.thread ? runRoleThreads({ args, mode: base.acl.library.mode, device: base.device, index: base.index, dir: base.dir, threads: role.threads, deadline }) : undefined,
    ]);
    const pending = guarded.pending();
    if (pending.length > 0) {
      throw new Error(
        `role ${role.name} returned while ${pending.join(', ')} ${pending.length === 1 ? 'was' : 'were'} still in progress: ` +
          'await every ctx call inside the body (the role ends when the body returns, so such a call may never happen)',
      );
    }
    // A deterministic end: queued work (e.g. a record behind a latch the body just released) runs
    // before the role ends, rather than racing with the process's exit.
    // (Only streams made through ctx are drained; a body that made none never loads ACL here.)
    const undrained = owned.drain?.(Math.min(DRAIN_BOUND_MS, Math.max(0, deadline - Date.now()))) ?? [];
    if (undrained.length > 0) {
      process.stderr.write(`[harness] ${role.name} returned, but ${undrained.join(', ')} did not drain within ${DRAIN_BOUND_MS} ms: its queued work is dropped when the process exits\n`);
    }
    const unsendable = unsendablePart(value, `the value returned by role ${role.name}`);
    if (unsendable) throw new Error(`${unsendable}, which JSON cannot carry to the parent: return plain data (numbers, strings, arrays, objects)`);
    const envelope: RoleEnvelope = { __scenarioEnvelope: 1, threadMarks: threads?.marks ?? [] };
    if (value !== undefined) envelope.value = value;
    if (threads) envelope.threadValues = threads.values;
    return envelope;
  } catch (e) {
    // The moment of failure is now, before the clean-up below destroys the role's IPC events: other
    // roles that then fail to open them must be blamed after this role, never before it.
    noteRoleFailure();
    throw e;
  } finally {
    guarded.close();
    cleanup();
  }
}

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
      `scenario ${JSON.stringify(args.scenario)} is not declared in ${args.specFile} (found: ${[...plans.keys()].map((n) => JSON.stringify(n)).join(', ') || 'none'}); ` +
        'declarations must be the same in every process: do not build scenario names or roles from random or time-dependent values',
    );
  }
  if (args.paramsJson !== undefined && paramsFingerprint(plan.params) !== args.paramsJson) {
    throw new Error(
      `scenario ${JSON.stringify(args.scenario)}: params differ between the process that declared it and this device process ` +
        `(${clip(args.paramsJson)} there, ${clip(paramsFingerprint(plan.params) ?? '?')} here): spec files are loaded again in every process, ` +
        'so params must not come from Math.random(), Date.now() or other per-process values; use fixed values (e.g. a fixed seed) ' +
        'or pass a run-wide value through an environment variable set before the run',
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

// The DSL forks this module by path and names its entry by ROLE_ENTRY_EXPORT: renaming either breaks the build here.
const entryByName: Record<typeof ROLE_ENTRY_EXPORT, typeof runScenarioRole> = { runScenarioRole };
void entryByName;
