/**
 * One worker thread of a role: loads its own ACL binding and the spec (base.ts) and runs
 * the thread body with its own stream. Marks are timestamped here and merged into the role's
 * result. In soak rounds the thread instead runs every round (round-loop.ts).
 */
import { createThreadContext } from '../context/context';
import { loadThreadBase } from './base';
import type { ThreadOutcome, ThreadTask } from './pool';
import type { ScenarioMark } from '../../../src/scenario/types';
import { toRoleError } from '../../../src/wire/wire-error';

export async function runScenarioThread(task: ThreadTask): Promise<ThreadOutcome> {
  if (task.gate) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('./round-loop') as typeof import('./round-loop')).runThreadRounds(task);
  }
  const marks: ScenarioMark[] = [];
  let cleanup = () => {};
  let leave = () => {};
  try {
    // process.hrtime is CLOCK_MONOTONIC, the clock of the main thread's marks (harness/role-context.ts).
    const { acl, plan, role, base } = loadThreadBase(task, (name) => marks.push({ name, tNs: process.hrtime.bigint().toString(), thread: task.thread }));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { explorer } = require('../../../src/acl') as typeof import('../../../src/acl');
    const ex = acl.library.mode === 'stub' ? explorer(acl.library.path) : null;
    leave = () => ex?.leave();
    const owned = createThreadContext(base, plan, role, task.deadline, task.thread);
    cleanup = owned.cleanup;
    const value = await role.thread!(owned.ctx, task.thread);
    return { ok: true, value, marks };
  } catch (err) {
    return { ok: false, error: toRoleError(err instanceof Error ? err : new Error(String(err))), marks };
  } finally {
    cleanup();
    leave(); // the schedule explorer: this thread (idle in the pool from now on) reaches no more points
  }
}
