/**
 * cann-ipc-harness: what spec authors import.
 *
 *   import { scenario, replicate, oneToMany, attempt, AclErrorCode } from 'cann-ipc-harness';
 *
 * Importing this never loads koffi: native code runs only in the device processes. Every device
 * process loads it again (with the spec file), so what only Jest needs (the failure report and its
 * dependencies) is loaded on first use.
 */
import type { formatScenarioFailure as FormatScenarioFailure } from './report/failure';
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
export type { DeviceBuffer, MappedBuffer, Notify } from './acl';
/** The report Jest prints for a failed scenario (see src/report/failure.ts). */
export function formatScenarioFailure(...args: Parameters<typeof FormatScenarioFailure>): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./report/failure') as typeof import('./report/failure')).formatScenarioFailure(...args);
}
export { scenarioMatchers } from './jest/matchers';
export { defineConfig } from './config';
export type { HarnessConfig } from './config';
