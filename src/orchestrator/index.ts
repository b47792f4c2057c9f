export { runRoles, settleDeferredRun, DEFAULT_GRACE_MS } from './run-roles';
export { precheck } from './precheck';
export { RunOptionsError } from './validate';
export { scenarioBaseDir } from './scenario-dir';
export type {
  RoleEntry,
  RoleSpec,
  RunOptions,
  RunEvent,
  RoleStatus,
  RoleResult,
  RoleError,
  AclErrorInfo,
  RunResult,
  FirstFailure,
  OutputLoss,
  CancelledTask,
  TraceFile,
  PrecheckOptions,
  PrecheckResult,
  RoleContext,
  RoleBody,
} from './types';
