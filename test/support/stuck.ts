/**
 * Hang tests bring a run's deadline forward (RunOptions.expireOn) once every role is where it
 * hangs, instead of giving the run a fixed deadline that must outlast the slowest start-up under
 * load (too short: flaky; long enough: slow).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { RunEvent } from '../../src/orchestrator';

/**
 * Where a role ends up: in a harness wait (the orchestrator sees it), blocked in native code
 * (after its `blocking` mark, once all its threads sleep), ended, or past a mark of its own
 * (e.g. `spinning` in a busy loop, or awaiting forever what the harness does not see).
 */
export type FinalState = 'waits' | 'blocks' | 'exits' | { marked: string };

/** A thread is off the CPU, in an interruptible or uninterruptible sleep (/proc/<pid>/task/<tid>/stat). */
export function threadAsleep(pid: number, tid = pid): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return /^[SD]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]);
  } catch {
    return false;
  }
}

/**
 * Every thread of the process is off the CPU. A role blocked in native code may still have work on
 * its way on another thread (a stream thread that is runnable but not yet running the task its
 * main thread synchronizes on): only when all of them sleep is the role where it hangs.
 */
export function processAsleep(pid: number): boolean {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return false;
  }
  return tids.length > 0 && tids.every((tid) => threadAsleep(pid, Number(tid)));
}

/**
 * Polls `asleep` every 10 ms until it holds (then calls `then`) or `gone` does. A role blocks right
 * after its mark, so the first sleep seen after the mark is the blocking call.
 */
export function whenAsleep(asleep: () => boolean, gone: () => boolean, then: () => void): void {
  const poll = () => {
    if (gone()) return;
    if (asleep()) then();
    else setTimeout(poll, 10);
  };
  poll();
}

/**
 * An expireOn signal that aborts once every role named in `finals` is in its final state, and the
 * onEvent callback that watches for it.
 */
export function expireWhenStuck(finals: Record<string, FinalState>): { signal: AbortSignal; onEvent: (e: RunEvent) => void } {
  const expire = new AbortController();
  const pending = new Set(Object.keys(finals));
  const pids = new Map<string, number>();
  const exited = new Set<string>();
  const settled = (role: string) => {
    pending.delete(role);
    if (pending.size === 0 && !expire.signal.aborted) expire.abort();
  };
  const onEvent = (e: RunEvent) => {
    if (e.type === 'started') pids.set(e.role, e.pid);
    if (e.type === 'exited') exited.add(e.role);
    const final = 'role' in e ? finals[e.role] : undefined;
    if (e.type === 'waiting' && final === 'waits' && e.waitingFor) settled(e.role);
    if (e.type === 'exited' && final === 'exits') settled(e.role);
    if (e.type === 'mark' && typeof final === 'object' && e.name === final.marked) settled(e.role);
    if (e.type === 'mark' && final === 'blocks' && e.name === 'blocking') {
      const role = e.role;
      whenAsleep(
        () => processAsleep(pids.get(role)!),
        () => exited.has(role) || expire.signal.aborted,
        () => settled(role),
      );
    }
  };
  return { signal: expire.signal, onEvent };
}
