/**
 * Worker threads of one role (`threads: k`), run with piscina inside the role's device process.
 * Each task gets its own thread (k threads for k tasks), its own koffi instance and its own stream.
 */
import * as path from 'node:path';
import { callRecordTableAddress } from '../../src/acl/call-record';
import type { RoleEntryArgs, ScenarioMark } from '../../src/scenario/types';
import type { RoleError } from '../../src/wire/types';
import type { ResolvedMode } from '../../src/env';
import { parseRoleError, protocolError, reviveError } from '../../src/wire/wire-error';
import { HARNESS_DIR } from '../../src/paths';

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
  /** Soak rounds: the gate shared with the main thread (thread-gate.ts); the thread then runs every round. */
  gate?: SharedArrayBuffer;
}

/** What a worker returns; errors travel in the wire format (wire-error.ts) so their ACL fields survive the copy. */
export type ThreadOutcome = { ok: true; value?: unknown; marks: ScenarioMark[] } | { ok: false; error: RoleError; marks: ScenarioMark[] };

export const WORKER_SHIM = path.join(HARNESS_DIR, 'scenario', 'thread-worker.js');

export async function runRoleThreads(opts: Omit<ThreadTask, 'thread' | 'callRecords'>): Promise<{ values: unknown[]; marks: ScenarioMark[] }> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Piscina } = require('piscina') as typeof import('piscina');
  const pool = new Piscina({
    filename: WORKER_SHIM,
    minThreads: opts.threads,
    maxThreads: opts.threads,
    // One task per thread at a time, so k concurrent tasks occupy k distinct threads.
    concurrentTasksPerWorker: 1,
    idleTimeout: Infinity,
  });
  try {
    const outcomes: ThreadOutcome[] = await Promise.all(
      Array.from({ length: opts.threads }, (_, thread) => pool.run({ ...opts, thread, callRecords: callRecordTableAddress() } satisfies ThreadTask)),
    );
    const marks = outcomes.flatMap((o) => o.marks);
    const failed = outcomes.findIndex((o) => !o.ok);
    if (failed >= 0) throw rebuildError(failed, outcomes[failed] as Extract<ThreadOutcome, { ok: false }>);
    return { values: outcomes.map((o) => (o.ok ? o.value : undefined)), marks };
  } finally {
    await pool.destroy();
  }
}

/** The thread's error, thrown again in the role's main thread (ACL fields kept: the orchestrator recognises them by shape). */
export function rebuildError(thread: number, outcome: Extract<ThreadOutcome, { ok: false }>): Error {
  const parsed = parseRoleError(outcome.error);
  if (!parsed.ok) return new Error(protocolError(`worker thread ${thread}`, parsed.problem).message);
  return reviveError(parsed.value, `thread ${thread}`);
}
