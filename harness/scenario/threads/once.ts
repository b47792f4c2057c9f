/**
 * Worker threads of one role run once (`threads: k`, no rounds): k tasks on a pool of k threads,
 * each running the thread body once (entry.ts); their values and marks, or the first failure.
 */
import type { ScenarioMark } from '../../../src/scenario/types';
import { firstThreadFailure, startThreadPool, threadTask, type ThreadOutcome, type ThreadTask } from './pool';

export type OnceThreadsOptions = Omit<ThreadTask, 'thread' | 'callRecords'>;

export async function runRoleThreads(opts: OnceThreadsOptions): Promise<{ values: unknown[]; marks: ScenarioMark[] }> {
  const pool = startThreadPool(opts.threads);
  try {
    const outcomes: ThreadOutcome[] = await Promise.all(
      Array.from({ length: opts.threads }, (_, thread) => pool.run(threadTask(opts, thread))),
    );
    const marks = outcomes.flatMap((o) => o.marks);
    const failure = firstThreadFailure(outcomes);
    if (failure) throw failure;
    return { values: outcomes.map((o) => (o.ok ? o.value : undefined)), marks };
  } finally {
    await pool.destroy();
  }
}
