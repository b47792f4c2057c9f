/**
 * One worker thread of a role: loads its own ACL binding (no aclInit: the process did that),
 * sets the role's device on this thread, loads the spec in collect mode and runs the thread body
 * with its own stream. Marks are timestamped here and merged into the role's result.
 */
import { createThreadContext } from './context';
import { findRole } from './role-entry';
import type { ThreadOutcome, ThreadTask } from './threads';
import type { ScenarioMark } from '../../src/scenario/types';
import { toRoleError } from '../../src/orchestrator/wire-error';

export async function runScenarioThread(task: ThreadTask): Promise<ThreadOutcome> {
  const marks: ScenarioMark[] = [];
  let cleanup = () => {};
  try {
    // Loaded here, inside the try: importing this module never loads koffi, and a binding that
    // fails to load becomes this thread's reported error.
    // Calls of this thread go to its slot of the process's table, which the native watchdog reads.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { useThreadCallRecord } = require('../../src/acl/watchdog') as typeof import('../../src/acl/watchdog');
    if (task.callRecords !== undefined) useThreadCallRecord(task.callRecords, task.thread);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { loadAcl } = require('../../src/acl') as typeof import('../../src/acl');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Rendezvous } = require('../../src/rendezvous') as typeof import('../../src/rendezvous');
    const acl = loadAcl({ mode: task.mode });
    acl.setDevice(task.device);
    const { plan, role } = findRole(task.args);
    const label = `${role.name}.t${task.thread}`;
    const owned = createThreadContext(
      {
        acl,
        device: task.device,
        role: role.name,
        index: task.index,
        dir: task.dir,
        rendezvous: new Rendezvous(task.dir, label),
        log: (...args) => console.log(`[t${task.thread}]`, ...args),
        // process.hrtime is CLOCK_MONOTONIC, the clock of the main thread's marks (harness/role-context.ts).
        mark: (name) => marks.push({ name, tNs: process.hrtime.bigint().toString(), thread: task.thread }),
      },
      plan,
      role,
      task.deadline,
      task.thread,
    );
    cleanup = owned.cleanup;
    const value = await role.thread!(owned.ctx, task.thread);
    return { ok: true, value, marks };
  } catch (err) {
    return { ok: false, error: toRoleError(err instanceof Error ? err : new Error(String(err))), marks };
  } finally {
    cleanup();
  }
}
