/**
 * A device process must not outlive the orchestrator. Three independent watches:
 *  - the IPC channel: when the parent dies it disconnects (main thread, needs a free event loop);
 *  - a tiny worker thread that polls our parent pid: it keeps working while the main thread is
 *    blocked inside a native call or spinning in a tight loop (where no JS event can be delivered);
 *  - the same poll on an unref'd main-thread timer, in case the worker could not start or died.
 * The worker also answers hang reports (hang-watch.ts): it is the thread that still runs when the
 * main thread does not.
 * Any of them removes the scenario directory (the parent can no longer do it; honours
 * CANN_HARNESS_KEEP=1) and then kills our whole process group, the role's own descendants included.
 *
 * "Is the parent gone" is decided by comparing getppid() with the orchestrator's pid, which the
 * orchestrator passes in CANN_HARNESS_PARENT_PID. It must never be a liveness probe of the parent
 * pid (kill(pid, 0), /proc/<pid>): a dead parent can linger as a zombie when nobody reaps it (pid 1
 * in some containers does not), and its pid can be reused. A child is re-parented the moment its
 * parent exits, zombie or not, so getppid() changing is exact. Capturing getppid() at start-up as
 * "the parent" is the bug this avoids: if the parent died while we were still starting, getppid()
 * is already the reaper's pid and never changes again, so an orphan spinning in its main thread
 * (no 'disconnect' delivered) would have lived on forever.
 */
import { rmSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { HANG_WATCH_SOURCE, hangWatchData } from './hang-watch';
import { ENV, envOn } from '../src/env';

const POLL_MS = 200;
/** How often a watchdog worker that failed to start or died is started again. */
const MAX_WATCHDOG_RESTARTS = 5;

interface Orphaned {
  pid: number;
  dir?: string;
  keep: boolean;
}

function dieWithGroup(o: Orphaned): void {
  if (o.dir && !o.keep) {
    try {
      rmSync(o.dir, { recursive: true, force: true });
    } catch {
      /* a sibling process may be removing it at the same moment */
    }
  }
  try {
    process.kill(-o.pid, 'SIGKILL'); // we lead our group (forked with detached: true)
  } catch {
    /* not a group leader (started by hand): fall through to ourselves */
  }
  process.kill(o.pid, 'SIGKILL');
}

/** The orchestrator's pid, from the environment (CANN_HARNESS_PARENT_PID), else our parent now. */
export function expectedParent(env: NodeJS.ProcessEnv = process.env): number {
  const fromEnv = Number(env[ENV.parentPid]);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : process.ppid;
}

function orphanedInfo(): Orphaned {
  return { pid: process.pid, dir: process.env[ENV.dir], keep: envOn(ENV.keep) };
}

// Plain JS run by the worker (eval): self-contained, and every step guarded so that nothing can
// end the thread before the kill: an exception in a timer callback would end the worker silently
// while the main thread is too busy to hear about it.
const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
const { rmSync } = require('node:fs');
const o = workerData.orphaned;
function check() {
  let ppid;
  try { ppid = process.ppid; } catch { return; }
  if (ppid === workerData.ppid) return;
  if (o.dir && !o.keep) { try { rmSync(o.dir, { recursive: true, force: true }); } catch {} }
  try { process.kill(-o.pid, 'SIGKILL'); } catch {}
  try { process.kill(o.pid, 'SIGKILL'); } catch {}
}
check();
setInterval(check, ${POLL_MS});
${HANG_WATCH_SOURCE}
if (workerData.hang) serveHangRequests(workerData.hang);
`;

function startWatchdog(ppid: number, restartsLeft: number): void {
  let watchdog: Worker;
  try {
    watchdog = new Worker(WATCHDOG_SOURCE, {
      eval: true,
      workerData: { ppid, orphaned: orphanedInfo(), hang: hangWatchData() },
      stdout: false,
      stderr: false,
      // No TypeScript in the watchdog: skip the -r esbuild-register preload (and its start-up cost).
      execArgv: [],
    });
  } catch {
    return; // e.g. no threads left: the main-thread poll below still covers a free event loop
  }
  watchdog.unref(); // never keeps the process alive by itself
  // 'error' (it could not start) and 'exit' (it ended): it is never supposed to end, so start it again.
  const again = () => {
    if (restartsLeft > 0) setTimeout(() => startWatchdog(ppid, restartsLeft - 1), POLL_MS).unref();
  };
  watchdog.once('error', () => undefined);
  watchdog.once('exit', again);
}

export function watchParent(): void {
  const ppid = expectedParent();
  // The parent may have died while we were still starting: then nothing would ever change.
  if (process.ppid !== ppid) dieWithGroup(orphanedInfo());
  process.on('disconnect', () => dieWithGroup(orphanedInfo()));
  startWatchdog(ppid, MAX_WATCHDOG_RESTARTS);
  setInterval(() => {
    if (process.ppid !== ppid) dieWithGroup(orphanedInfo());
  }, POLL_MS).unref();
}
