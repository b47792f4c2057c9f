/**
 * Wait until `check()` yields a value, re-checking whenever something changes in `watchDir`
 * (inotify through fs.watch, sub-millisecond) and on a short polling tick as a fallback (fs.watch
 * can miss events on some filesystems, or fail outright when inotify watches run out).
 * The waits of a process share one watcher per directory, kept for LINGER_MS after its last wait
 * ends: a soak round's waits (three signals at once, a handle a round) no longer each add and
 * remove an inotify watch and a libuv handle (issue #35). A wait for one file name is woken only
 * by events naming it (or naming nothing: an overflow): the three waits of `awaitSignals` no
 * longer each look for their file at every other signal, nor a consumer at the previous round's
 * handle being removed.
 */
import { watch, type FSWatcher } from 'node:fs';

export const POLL_INTERVAL_MS = 25;
/** How long a directory's watcher outlives its last wait, for the next one (the next round's). */
export const LINGER_MS = 2000;

interface DirWatch {
  watcher: FSWatcher;
  /** Each listener with the file name it waits for (undefined: every change). */
  listeners: Map<() => void, string | undefined>;
  linger?: NodeJS.Timeout;
}
const watches = new Map<string, DirWatch>();

function closeWatch(dir: string, w: DirWatch): void {
  if (watches.get(dir) === w) watches.delete(dir);
  if (w.linger) clearTimeout(w.linger);
  w.watcher.close();
}

/**
 * Calls `onChange` on every change in `dir` (of `name` only, when given) until the returned
 * function is called; null if the directory cannot be watched.
 */
function subscribe(dir: string, onChange: () => void, name?: string): (() => void) | null {
  let w = watches.get(dir);
  if (!w) {
    let watcher: FSWatcher;
    try {
      // Not persistent: a lingering watcher must not keep the process alive (a wait's poller does).
      watcher = watch(dir, { persistent: false }, (_event, changed) => {
        for (const [fn, wanted] of [...created.listeners]) if (wanted === undefined || !changed || changed === wanted) fn();
      });
    } catch {
      return null; // e.g. ENOSPC (inotify limit): polling still works
    }
    const created: DirWatch = { watcher, listeners: new Map() };
    watcher.on('error', () => closeWatch(dir, created)); // keep going on the polling tick alone
    watches.set(dir, created);
    w = created;
  }
  const mine = w;
  if (mine.linger) clearTimeout(mine.linger);
  mine.linger = undefined;
  mine.listeners.set(onChange, name);
  return () => {
    mine.listeners.delete(onChange);
    if (mine.listeners.size === 0 && watches.get(dir) === mine) {
      mine.linger = setTimeout(() => closeWatch(dir, mine), LINGER_MS).unref();
    }
  };
}

export type WaitOutcome<T> = { ok: true; value: T } | { ok: false; waitedMs: number };

/** `fileName`: the file in `watchDir` that the check looks for; other files' changes do not wake it. */
export function waitFor<T>(
  watchDir: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  fileName?: string,
): Promise<WaitOutcome<T>> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    let settled = false;
    let checking = false;
    let recheck = false;
    let unsubscribe: (() => void) | null = null;
    let timer: NodeJS.Timeout | undefined;

    const finish = (outcome: WaitOutcome<T> | Error) => {
      if (settled) return;
      settled = true;
      clearInterval(poller);
      if (timer) clearTimeout(timer);
      unsubscribe?.();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };

    const runCheck = async (): Promise<void> => {
      if (settled) return;
      if (checking) {
        recheck = true; // an event arrived mid-check: look again once this check is over
        return;
      }
      checking = true;
      try {
        do {
          recheck = false;
          const value = await check();
          if (value !== undefined) return finish({ ok: true, value });
        } while (recheck && !settled);
      } catch (e) {
        finish(e as Error);
      } finally {
        checking = false;
      }
    };

    const poller = setInterval(runCheck, POLL_INTERVAL_MS);
    unsubscribe = subscribe(watchDir, () => void runCheck(), fileName);
    if (Number.isFinite(timeoutMs)) {
      timer = setTimeout(() => {
        // One last look, so a file that arrived on the deadline is not reported as missing.
        void check().then(
          (value) => finish(value !== undefined ? { ok: true, value } : { ok: false, waitedMs: Date.now() - started }),
          (e) => finish(e as Error),
        );
      }, timeoutMs);
    }
    // First look on the next turn of the event loop, not synchronously: a caller looping over
    // awaits of files that already exist must still let I/O (child exits, IPC) make progress.
    setImmediate(runCheck);
  });
}

/** The directories watched now (for tests). */
export function watchedDirs(): string[] {
  return [...watches.keys()];
}
