/**
 * The types a device process and its parent share: the job's entry and mode, an error as it
 * crosses a process or thread boundary, and the context a role body receives in its device
 * process. The orchestrator re-exports them as part of its public types (../orchestrator/types.ts).
 */
import type { Acl } from '../acl';
import type { Rendezvous } from '../rendezvous';
import type { AclErrorInfo } from '../acl/errors';
import type { ExploreDegraded } from '../acl/explore';

export interface RoleEntry {
  /** Absolute path of the module that exports the role body. */
  module: string;
  export: string;
  /** JSON value passed as the body's second argument. */
  args?: unknown;
}

/** An AclError as JSON (AclError.toJSON()); the type lives with AclError, which never loads koffi. */
export type { AclErrorInfo };

/** An error as it crosses a process or thread boundary (wire-error.ts: toRoleError / parseRoleError). */
export interface RoleError {
  message: string;
  stack?: string;
  /** The thrown error's class name when it was not a plain Error (e.g. 'TypeError', 'AclError'). */
  name?: string;
  acl?: AclErrorInfo;
  /** CLOCK_MONOTONIC ns (decimal string) in the device process when the error was caught there. */
  tNs?: string;
}

/**
 * The `ctx` the orchestrator hands a role body (a plain role module's `(ctx, args)` function) in its
 * device process: identity, ACL, rendezvous, log and marks. Scenario bodies get a ScenarioContext
 * built on it (harness/scenario/context).
 */
export interface RoleContext {
  /** Loaded on first access: aclInit done and this role's device set on the calling thread. */
  readonly acl: Acl;
  device: number;
  role: string;
  index: number;
  dir: string;
  /** Bound to the scenario directory and to this role's name. */
  rendezvous: Rendezvous;
  /** Writes one line to this role's stdout (the parent prefixes it when echoing). */
  log(...args: unknown[]): void;
  /** Records a CLOCK_MONOTONIC timestamp, returned in RoleResult.marks. */
  mark(name: string): void;
  /** Soak rounds: tells the orchestrator how many rounds are done (live progress). */
  roundsDone?(done: number, total: number): void;
  /**
   * Soak rounds: from now on, tell the orchestrator of a wait only once it has lasted `ms` (a stop,
   * a hang request and the end still send the current one at once): a round's waits end within
   * milliseconds, and each message wakes the orchestrator (issue #35).
   */
  reportWaitsAfter?(ms: number): void;
  /**
   * Under the schedule explorer (stub mode, ACL loaded): the rounds so far whose order was not fully
   * controlled, a party having left the explored points; null when not exploring.
   */
  exploreDegraded?(): ExploreDegraded | null;
}

export type RoleBody = (ctx: RoleContext, args: unknown) => unknown | Promise<unknown>;
