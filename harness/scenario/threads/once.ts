/**
 * Worker threads of one role run once (`threads: k`, no rounds): k tasks on a pool of k threads,
 * each running the thread body once (entry.ts); their values and marks, or the first failure.
 */
import { callRecordTableAddress } from '../../../src/acl/call-record';
import type { ScenarioMark } from '../../../src/scenario/types';
import { firstThreadFailure, startThreadPool, type ThreadOutcome, type ThreadTask } from './pool';

export type OnceThreadsOptions = Omit<ThreadTask, 'thread' | 'callRecords'>;

export async function runRoleThreads(opts: OnceThreadsOptions): Promise<{ values: unknown[]; marks: ScenarioMark[] }> {
  const pool = startThreadPool(opts.threads);
  try {
    const outcomes: ThreadOutcome[] = await Promise.all(
      Array.from({ length: opts.threads }, (_, thread) => {
        const task: ThreadTask = { ...opts, thread, callRecords: callRecordTableAddress() };
        return pool.run(task);
      }),
    );
    const marks = outcomes.flatMap((o) => o.marks);
    const failure = firstThreadFailure(outcomes);
    if (failure) throw failure;
    return { values: outcomes.map((o) => (o.ok ? o.value : undefined)), marks };
  } finally {
    await pool.destroy();
  }
}
