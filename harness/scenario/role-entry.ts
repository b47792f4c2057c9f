/**
 * Runs inside a role's device process (the orchestrator's entry for every scenario role): finds
 * the role in its spec (src/scenario/find-role.ts) and runs its body once (body/run-body.ts), with
 * its worker threads (threads/) if it declared `threads`, or in soak rounds (rounds.ts).
 * Layers, each importing only those below it: this entry and rounds.ts; threads/; body/; context/.
 */
import type { RoleContext } from '../../src/wire/types';
import { noteRoleFailure } from '../failure-time';
import { assertSendable } from '../../src/wire/json-value';
import { findRole } from '../../src/scenario/find-role';
import { explorer } from '../../src/acl';
import { createScenarioContext } from './context/context';
import { runBody } from './body/run-body';
import { runRoleThreads } from './threads/once';
import { runScenarioRounds } from './rounds';
import { type ROLE_ENTRY_EXPORT, type RoleEntryArgs, type RoleEnvelope, type ScenarioContext } from '../../src/scenario/types';

type ThreadsResult = Awaited<ReturnType<typeof runRoleThreads>>;

export async function runScenarioRole(base: RoleContext, args: RoleEntryArgs): Promise<RoleEnvelope> {
  const startedAt = Date.now();
  const { plan, role } = findRole(args);
  const deadline = startedAt + plan.timeoutMs;
  if (args.rounds) return runScenarioRounds(base, plan, role, args.rounds, deadline, base.roundsDone?.bind(base), args);
  const startThreads = () => {
    const { device, index, dir } = base;
    return runRoleThreads({ args, mode: base.acl.library.mode, device, index, dir, threads: role.threads, deadline });
  };
  const [value, threads] = await runBody<ScenarioContext<any>, Promise<[unknown, ThreadsResult | undefined]>>(
    {
      owned: createScenarioContext(base, plan, role, deadline),
      label: role.name,
      who: `role ${role.name}`,
      deadline,
      check: ([v]) => assertSendable(v, `the value returned by role ${role.name}`),
      // The moment of failure is now, before the clean-up destroys the role's IPC events: other
      // roles that then fail to open them must be blamed after this role, never before it.
      onFailure: () => noteRoleFailure(),
    },
    (ctx) => {
      // Worker threads only call setDevice; aclInit must already have happened in this process.
      // (base.acl also tells the threads which library to load.) A failure here is the role's.
      if (role.thread) void base.acl;
      const runDone = role.run ? role.run(ctx) : undefined;
      // Waiting for its worker threads, the main thread is outside the explored points (as in rounds).
      const ex = role.thread && base.acl.library.mode === 'stub' ? explorer(base.acl.library.path) : null;
      const mainDone = ex ? Promise.resolve(runDone).then((v) => (ex.block('worker threads'), v)) : runDone;
      return Promise.all([mainDone, role.thread ? startThreads() : undefined]);
    },
  );
  const envelope: RoleEnvelope = { __scenarioEnvelope: 1, threadMarks: threads?.marks ?? [] };
  if (value !== undefined) envelope.value = value;
  if (threads) envelope.threadValues = threads.values;
  // Explored: whether its one schedule was fully controlled (every role reads the same run-wide figure).
  const degraded = base.index === 0 ? base.exploreDegraded?.() : null;
  if (degraded?.rounds) envelope.exploreDegraded = degraded;
  return envelope;
}

// The DSL forks this module by path and names its entry by ROLE_ENTRY_EXPORT: renaming either breaks the build here.
const entryByName: Record<typeof ROLE_ENTRY_EXPORT, typeof runScenarioRole> = { runScenarioRole };
void entryByName;
