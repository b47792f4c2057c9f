/**
 * What differs between kinds of role: RoleProcess (role-process.ts) hosts every kind the same way
 * (own process group, output capture, messages, deadline TERM -> KILL, status, blame) and asks its
 * kind only what this interface names. The kinds today: TypeScriptRole (typescript-role.ts, a
 * device process running the role's body) and NativeRole (native-role.ts, a user's program).
 * role-kinds.ts chooses the kind of a RoleSpec, once; a new kind is a class implementing this
 * interface and one line there (CONTRIBUTING.md, "Checklist: add a role kind").
 */
import type { ChildProcess } from 'node:child_process';
import type { ToChild } from '../wire/protocol';
import type { RoleError, RoleResult } from './types';

/** The started process, as its kind sees it right after the start. */
export interface StartedRole {
  readonly pid: number;
  /** Whether the process is still running (read it when a callback runs, not before). */
  readonly alive: boolean;
  /** A message on the process's message pipe (fd 3); `onError` when it could not be written. */
  send(message: ToChild, onError: (err: Error) => void): void;
  /** A `[harness] ...` line in the role's stderr. */
  note(text: string): void;
}

/** A process that ended by itself (no result sent, not stopped, no signal), for its kind's verdict. */
export interface EndedRole {
  readonly pid: number | null;
  readonly exitCode: number | null;
  readonly spawnError?: Error;
  /** CLOCK_MONOTONIC ns when the parent saw it end. */
  readonly endedAtNs: bigint | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The environment it was started with (computed again: RoleProcess's childEnv). */
  env(): NodeJS.ProcessEnv;
}

/** A kind's own judgement of an ended role: it counts as the result the role reported. */
export type Verdict = { ok: true } | { ok: false; error: RoleError };

export interface RoleKind {
  /**
   * A Node event loop runs the role: its main thread answers a hang request with a diagnostic
   * report (hang-watch.ts) and its waits are the harness's. False for a program: no report to wait
   * for, and its waits are C API calls (cannharness.h), as the wait-for graph words them.
   */
  readonly eventLoop: boolean;
  /**
   * What it forks is not the harness's code: after the run, wait until its group is empty and
   * reclaim the stub's objects of whatever it forked (run-roles.ts).
   */
  readonly forksOutsideHarness: boolean;
  /** Starts the process as the leader of its own process group, with `env`. */
  spawn(env: NodeJS.ProcessEnv): ChildProcess;
  /** Its environment: `base` (the device process's: role, device, index, dir, mode, ...) plus its own. */
  env(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** Right after the start (before the 'started' event): send the job, start watching, ... */
  afterStart(role: StartedRole): void;
  /** Marks it left outside the message pipe, read once everything it sent is in. */
  marksAtEnd(): RoleResult['marks'];
  /**
   * The verdict on a role that ended by itself without sending a result, or null when the kind has
   * none (then it failed: "exited with code N before reporting a result").
   */
  verdict(end: EndedRole): Verdict | null;
  /** RoleResult.library: the libascendcl.so it loaded (null: none seen), or undefined when not watched. */
  loadedLibrary(): string | null | undefined;
}
