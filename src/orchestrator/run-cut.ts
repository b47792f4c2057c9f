/**
 * Where the timelines (the HTML page's, trace.json, the failure report's text) end a run that
 * failed or timed out, and which tasks did not end by themselves (issue 33 item 7). A role the
 * harness stops still writes "end" lines: at exit it releases its latches (a host function then
 * returns) and the stub abandons its pending waits. Those ends come at the stop, up to seconds after
 * the deadline; drawn as they are, they tell of work that finished by itself after the run was over.
 */
import type { RunResult } from './types';

export interface RunCut {
  /** CLOCK_MONOTONIC ns where unfinished tasks are drawn up to. */
  endNs: number;
  /** What endNs is: 'the deadline', 'the first failure' or 'the end of the run'. */
  label: string;
  /** From when a process's task ends were the harness stopping it (undefined: none were). */
  stoppedAt: (pid: number) => number | undefined;
}

export type CutInputs = Pick<RunResult, 'deadlineNs' | 'firstFailure' | 'startNs' | 'durationMs'> & {
  roles: Pick<RunResult['roles'][number], 'name' | 'pid' | 'status' | 'failedAtNs' | 'stoppedAtNs'>[];
};

const ns = (s: string | undefined): number | undefined => (s === undefined ? undefined : Number(BigInt(s)));

/**
 * A timeout ends at its deadline: every process's task still running then is unfinished, whenever
 * the stop that followed ended it. A failure ends at the first failure: the roles that failed, from
 * their failure, and the roles stopped because of it, from their stop. A run where nothing failed
 * ends at its end, and no task there ended by a stop.
 */
export function runCut(run: CutInputs): RunCut | undefined {
  const deadline = ns(run.deadlineNs);
  if (deadline !== undefined) return { endNs: deadline, label: 'the deadline', stoppedAt: () => deadline };
  const firstRole = run.firstFailure ? run.roles.find((r) => r.name === run.firstFailure!.role) : undefined;
  const failure = ns(firstRole?.failedAtNs ?? run.firstFailure?.atNs);
  if (failure !== undefined) {
    const from = new Map<number, number>();
    for (const r of run.roles) {
      if (r.pid === null) continue;
      // A record without stoppedAtNs (written before it existed): the failure line.
      const failed = r.status === 'failed' || r.status === 'crashed';
      const at = r.status === 'stopped' ? (ns(r.stoppedAtNs) ?? failure) : failed ? ns(r.failedAtNs) : undefined;
      if (at !== undefined) from.set(r.pid, at);
    }
    return { endNs: failure, label: 'the first failure', stoppedAt: (pid) => from.get(pid) };
  }
  if (run.startNs === undefined) return undefined;
  // Nothing failed (a passing run, or a happens-before violation): only tasks that never ended.
  const runEnd = Number(BigInt(run.startNs) + BigInt(Math.round(run.durationMs * 1e6)));
  return { endNs: runEnd, label: 'the end of the run', stoppedAt: () => undefined };
}
