/**
 * The worker threads of one role (`threads: k`): what each thread's task carries, what it returns,
 * and the piscina pool that runs them inside the role's device process. Each task gets its own
 * thread (k threads for k tasks), its own koffi instance and its own stream.
 */
import * as path from 'node:path';
import { callRecordTableAddress } from '../../../src/acl/call-record';
import type { RoleEntryArgs, ScenarioMark } from '../../../src/scenario/types';
import type { RoleError } from '../../../src/wire/types';
import type { ResolvedMode } from '../../../src/env';
import { parseRoleError, protocolError, reviveError } from '../../../src/wire/wire-error';
import { HARNESS_DIR } from '../../../src/paths';

/**
 * Everything a worker thread knows of its process's job, handed down by the main thread (never
 * read from the environment: the job is a device process's one channel for its settings).
 */
export interface ThreadTask {
  args: RoleEntryArgs;
  /** The library the main thread loaded (what the job's mode resolved to). */
  mode: ResolvedMode;
  device: number;
  index: number;
  dir: string;
  thread: number;
  threads: number;
  deadline: number;
  /** Address of the process's native call-record table (src/acl/call-record.ts), read by the watchdog. */
  callRecords?: bigint;
  /** Soak rounds: the gate shared with the main thread (gate.ts); the thread then runs every round. */
  gate?: SharedArrayBuffer;
}

/** What a worker returns; errors travel in the wire format (wire-error.ts) so their ACL fields survive the copy. */
export type ThreadOutcome = { ok: true; value?: unknown; marks: ScenarioMark[] } | { ok: false; error: RoleError; marks: ScenarioMark[] };
export type FailedOutcome = Extract<ThreadOutcome, { ok: false }>;

/** The worker's entry file (plain JavaScript: it installs the TypeScript hook, then loads entry.ts). */
export const WORKER_SHIM = path.join(HARNESS_DIR, 'scenario', 'threads', 'worker.js');

/** Thread `thread`'s task: the role's job, and the table its calls are recorded in (read by the native watchdog). */
export function threadTask(opts: Omit<ThreadTask, 'thread' | 'callRecords'>, thread: number): ThreadTask {
  return { ...opts, thread, callRecords: callRecordTableAddress() };
}

/** A pool of exactly `threads` threads, one task each at a time, so k concurrent tasks occupy k distinct threads. */
export function startThreadPool(threads: number): import('piscina').Piscina {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Piscina } = require('piscina') as typeof import('piscina');
  return new Piscina({
    filename: WORKER_SHIM,
    minThreads: threads,
    maxThreads: threads,
    concurrentTasksPerWorker: 1,
    idleTimeout: Infinity,
  });
}

/** The first failed thread's error, thrown again in the main thread; undefined when every thread succeeded. */
export function firstThreadFailure(outcomes: readonly ThreadOutcome[]): Error | undefined {
  const failed = outcomes.findIndex((o) => !o.ok);
  return failed >= 0 ? rebuildError(failed, outcomes[failed] as FailedOutcome) : undefined;
}

/** The thread's error, thrown again in the role's main thread (ACL fields kept: the orchestrator recognises them by shape). */
export function rebuildError(thread: number, outcome: FailedOutcome): Error {
  const parsed = parseRoleError(outcome.error);
  if (!parsed.ok) return new Error(protocolError(`worker thread ${thread}`, parsed.problem).message);
  return reviveError(parsed.value, `thread ${thread}`);
}
