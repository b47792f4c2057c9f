/**
 * Worker threads of one role (`threads: k`), run with piscina inside the role's device process.
 * Each task gets its own thread (k threads for k tasks), its own koffi instance and its own stream.
 */
import * as path from 'node:path';
import type { RoleEntryArgs, ScenarioMark } from './types';
import { SRC_DIR } from '../paths';

export interface ThreadTask {
  args: RoleEntryArgs;
  device: number;
  index: number;
  dir: string;
  thread: number;
  threads: number;
  deadline: number;
}

/** What a worker returns; errors travel as plain data so their ACL fields survive the copy. */
export type ThreadOutcome =
  | { ok: true; value?: unknown; marks: ScenarioMark[] }
  | { ok: false; error: { name: string; message: string; stack?: string; fields: Record<string, unknown> }; marks: ScenarioMark[] };

const WORKER_SHIM = path.join(SRC_DIR, 'scenario', 'thread-worker.js');

export async function runRoleThreads(opts: Omit<ThreadTask, 'thread'>): Promise<{ values: unknown[]; marks: ScenarioMark[] }> {
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
      Array.from({ length: opts.threads }, (_, thread) => pool.run({ ...opts, thread } satisfies ThreadTask)),
    );
    const marks = outcomes.flatMap((o) => o.marks);
    const failed = outcomes.findIndex((o) => !o.ok);
    if (failed >= 0) throw rebuildError(failed, outcomes[failed] as Extract<ThreadOutcome, { ok: false }>);
    return { values: outcomes.map((o) => (o.ok ? o.value : undefined)), marks };
  } finally {
    await pool.destroy();
  }
}

function rebuildError(thread: number, outcome: Extract<ThreadOutcome, { ok: false }>): Error {
  const e = new Error(`thread ${thread}: ${outcome.error.message}`);
  // Keep code/codeName/call/args/recentErrMsg: the orchestrator recognises ACL errors by shape.
  Object.assign(e, outcome.error.fields);
  e.name = outcome.error.name;
  if (outcome.error.stack) e.stack = `${e.name}: thread ${thread}: ${outcome.error.stack.replace(/^[^\n]*\n?/, '')}`;
  return e;
}
