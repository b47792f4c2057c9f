/**
 * What every worker thread of a role does first (once, also in soak rounds): writes its calls to
 * its slot of the process's call-record table, loads its own ACL binding (no aclInit: the process
 * did that), sets the role's device on this thread, loads the spec in collect mode and builds the
 * base of its contexts.
 */
import type { Acl } from '../../../src/acl';
import type { PlannedRole, ScenarioPlan } from '../../../src/scenario/types';
import type { RoleBasics } from '../context/role-basics';
import { findRole } from '../../../src/scenario/find-role';
import type { ThreadTask } from './pool';

export interface ThreadBase {
  acl: Acl;
  plan: ScenarioPlan<any>;
  role: PlannedRole<any>;
  base: RoleBasics;
}

/** `mark` gets each mark's name (the caller timestamps and keeps it). Throws what failed to load. */
export function loadThreadBase(task: ThreadTask, mark: (name: string) => void): ThreadBase {
  // Loaded here, not at import: importing this module never loads koffi, and a binding that fails
  // to load becomes the calling thread's reported error.
  // Calls of this thread go to its slot of the process's table, which the native watchdog reads.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { useThreadCallRecord } = require('../../../src/acl/watchdog') as typeof import('../../../src/acl/watchdog');
  if (task.callRecords !== undefined) useThreadCallRecord(task.callRecords, task.thread);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadAcl, installExplorePoints } = require('../../../src/acl') as typeof import('../../../src/acl');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Rendezvous } = require('../../../src/rendezvous') as typeof import('../../../src/rendezvous');
  const acl = loadAcl({ mode: task.mode });
  // The schedule explorer's party of this worker thread (aclInit ran in the main thread).
  if (acl.library.mode === 'stub') installExplorePoints(acl.library.path, `thread${task.thread}`);
  acl.setDevice(task.device);
  const { plan, role } = findRole(task.args);
  const base: RoleBasics = {
    acl,
    device: task.device,
    role: role.name,
    index: task.index,
    dir: task.dir,
    rendezvous: new Rendezvous(task.dir, `${role.name}.t${task.thread}`),
    log: (...args) => console.log(`[t${task.thread}]`, ...args),
    mark,
  };
  return { acl, plan, role, base };
}
