/**
 * A device process must not outlive the orchestrator. Two independent watches:
 *  - a native watchdog thread (libcannharness_hold.so, native-stub/harness/hold/watch.c) that polls our
 *    parent pid: it keeps working while the main thread is blocked inside a native call or spinning
 *    in a tight loop (where no JS event can be delivered), and costs no JavaScript isolate;
 *  - the same poll on an unref'd main-thread timer, only when the watchdog could not start (the
 *    watchdog releases the stub's shared objects before the kill; a racing poll would not).
 * The watchdog also answers hang reports (hang-watch.ts): it is the thread that still runs when the
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
 * would have lived on forever.
 */
import { rmSync } from 'node:fs';
import { ENV, envOn } from '../src/env';

const POLL_MS = 200;

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

/**
 * Starts the native watchdog. If it cannot (the hold library is missing or older than the
 * watchdog), the role goes on with the main-thread poll, and says so in its log:
 * the run itself is not at risk, only the two cases that need a free thread (an orphan blocked in a
 * native call or a busy loop; a hang report's answer from this process). A JavaScript worker as a
 * fallback would cost every process 10-12 MiB for a broken install that one rebuild fixes.
 */
function startWatchdog(ppid: number): boolean {
  let reason: string;
  try {
    // Loaded here, not at import: a binding that cannot load (koffi, the library) becomes the warning.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startNativeWatchdog } = require('../src/acl/watchdog') as typeof import('../src/acl/watchdog');
    const o = orphanedInfo();
    const started = startNativeWatchdog({ expectedParent: ppid, dir: o.dir, keep: o.keep, role: process.env[ENV.role] });
    if (started.ok) return true;
    reason = started.reason;
  } catch (e) {
    reason = e instanceof Error ? e.message : String(e);
  }
  process.stderr.write(
    `cann-harness: warning: the native watchdog did not start (${reason}). This process is still stopped when the ` +
      `orchestrator dies while its event loop is free, but not while it is blocked in a native call or a busy loop, ` +
      `and a hang report gets no answer from it. Fix: \`npm run build:stub\` (or set ${ENV.holdLibrary}).\n`,
  );
  return false;
}

export function watchParent(): void {
  const ppid = expectedParent();
  // The parent may have died while we were still starting: then nothing would ever change.
  if (process.ppid !== ppid) dieWithGroup(orphanedInfo());
  // The native watchdog releases the stub's shared objects before it kills us: a main-thread poll
  // racing it would SIGKILL first and leave them in /dev/shm. So the poll is only the fallback.
  if (startWatchdog(ppid)) return;
  setInterval(() => {
    if (process.ppid !== ppid) dieWithGroup(orphanedInfo());
  }, POLL_MS).unref();
}
