/**
 * A device process must not outlive the orchestrator. Two independent watches:
 *  - the IPC channel: when the parent dies it disconnects;
 *  - a tiny worker thread that polls our parent pid: it keeps working while the main thread is
 *    blocked inside a native call (where the 'disconnect' event could not be delivered).
 * Either one removes the scenario directory (the parent can no longer do it; honours
 * CANN_HARNESS_KEEP=1) and then kills our whole process group, the role's own descendants included.
 */
import { rmSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

const POLL_MS = 200;

interface Orphaned {
  pid: number;
  dir?: string;
  keep: boolean;
}

// Runs in the main thread and, as source text, in the watchdog worker: keep it self-contained.
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
function expectedParent(): number {
  const fromEnv = Number(process.env.CANN_HARNESS_PARENT_PID);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : process.ppid;
}

function orphanedInfo(): Orphaned {
  return { pid: process.pid, dir: process.env.CANN_HARNESS_DIR, keep: process.env.CANN_HARNESS_KEEP === '1' };
}

const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
const { rmSync } = require('node:fs');
setInterval(() => {
  if (process.ppid === workerData.ppid) return;
  const o = workerData.orphaned;
  if (o.dir && !o.keep) { try { rmSync(o.dir, { recursive: true, force: true }); } catch {} }
  try { process.kill(-o.pid, 'SIGKILL'); } catch {}
  process.kill(o.pid, 'SIGKILL');
}, ${POLL_MS});
`;

export function watchParent(): void {
  const ppid = expectedParent();
  // The parent may have died while we were still starting: then nothing would ever change.
  if (process.ppid !== ppid) dieWithGroup(orphanedInfo());
  process.on('disconnect', () => dieWithGroup(orphanedInfo()));
  const watchdog = new Worker(WATCHDOG_SOURCE, {
    eval: true,
    workerData: { ppid, orphaned: orphanedInfo() },
    stdout: false,
    stderr: false,
  });
  watchdog.unref(); // never keeps the process alive by itself
}
