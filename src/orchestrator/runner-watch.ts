/**
 * A Jest worker process must not outlive the Jest runner that started it. SIGKILL of the runner
 * (`npx jest -w 2`, `cann-harness audit` with two or more spec files) runs no handler there, and the
 * device processes watch their own parent, the worker, which lives on: without this watch the
 * orphaned worker ran its scenario to the deadline with its roles and stub objects, and the next
 * start could not clean up (the owners were alive).
 *
 * The global setup (in the runner) puts its pid in CANN_HARNESS_RUNNER_PID; workers inherit it. A
 * worker is a process whose pid is not that one; while it hosts a scenario (live-runs.ts) it compares
 * getppid() with the runner's pid every 200 ms, as device processes do (harness/parent-watch.ts: a
 * child is re-parented the moment its parent exits, so a changed ppid is exact, unlike a liveness
 * probe of a pid that may be a zombie or reused). The event loop of a worker is free while it hosts
 * a scenario (the orchestrator only awaits its children), so a timer suffices. Node's own timers,
 * not the test sandbox's: a spec that fakes timers must not stop the watch. The parent pid is read
 * from /proc/self/stat: Jest's sandbox copy of `process` keeps the ppid of the moment it was made.
 */
import { setInterval as realSetInterval, clearInterval as realClearInterval } from 'node:timers';
import { readFileSync } from 'node:fs';
import { ENV } from '../env';

const POLL_MS = 200;

/** Our parent pid now (never a cached copy). */
function parentPid(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return process.ppid;
  }
}

/** For the global setup: this process is the runner its workers watch. */
export function markRunner(env: NodeJS.ProcessEnv = process.env): void {
  env[ENV.runnerPid] = String(process.pid);
}

/**
 * The runner's pid when this process is one of its Jest worker processes, else null: not the runner
 * itself (in band), and not any other process that merely inherited the variable (a program a test
 * or a role started, whose parent is the worker): a Jest worker is jest-worker's child script
 * (argv[1]) with JEST_WORKER_ID set.
 */
export function runnerOfWorker(
  env: NodeJS.ProcessEnv = process.env,
  pid: number = process.pid,
  argv: readonly string[] = process.argv,
): number | null {
  const runner = Number(env[ENV.runnerPid]);
  if (!Number.isInteger(runner) || runner <= 0 || runner === pid) return null;
  const isJestWorker = env.JEST_WORKER_ID !== undefined && /[\\/]jest-worker[\\/]build[\\/]processChild\.js$/.test(argv[1] ?? '');
  return isJestWorker ? runner : null;
}

/**
 * Calls `onOrphaned` once when this worker's runner is gone (already now, or later); returns what
 * stops the watch. A no-op outside a worker.
 */
export function watchRunner(onOrphaned: () => void, env: NodeJS.ProcessEnv = process.env): () => void {
  const runner = runnerOfWorker(env);
  if (runner === null) return () => {};
  if (parentPid() !== runner) {
    onOrphaned();
    return () => {};
  }
  const timer = realSetInterval(() => {
    if (parentPid() === runner) return;
    realClearInterval(timer);
    onOrphaned();
  }, POLL_MS);
  timer.unref();
  return () => realClearInterval(timer);
}
