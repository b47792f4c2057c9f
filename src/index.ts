/**
 * cann-ipc-harness: what spec authors import.
 *
 *   import { scenario, replicate, oneToMany, attempt, AclErrorCode } from 'cann-ipc-harness';
 *
 * Importing this never loads koffi: native code runs only in the device processes.
 */
export { scenario, replicate, ScenarioDeclarationError, pingPong, oneToMany, pipeline, fanIn, multiThreadConsumer } from './scenario';
export { handoff, HANDOFF_FRESH, HANDOFF_STALE } from './scenario';
export type { HandoffRead, DataContext, ShareOptions } from './scenario';
export type {
  ScenarioDeclaration,
  RoleDeclaration,
  ScenarioContext,
  ThreadContext,
  ScenarioResult,
  ScenarioRoleResult,
  ScenarioMark,
  RoleInfo,
  AwaitOptions,
} from './scenario';
export { AclError, AclErrorCode, aclErrorName, attempt, EventFlag, EventRecordedStatus, EventStatus, EventWaitStatus, IpcEventHandle } from './acl';
export type { Acl, Event, Stream, Latch } from './acl';
export type { DeviceBuffer, Notify } from './acl';
export { formatScenarioFailure } from './report/failure';
export { scenarioMatchers } from './jest/matchers';
export { defineConfig } from './config';
export type { HarnessConfig } from './config';
