/**
 * Wait until `check()` yields a value, re-checking whenever something changes in `watchDir`
 * (inotify through fs.watch, sub-millisecond) and on a short polling tick as a fallback (fs.watch
 * can miss events on some filesystems, or fail outright when inotify watches run out).
 */
import { watch, type FSWatcher } from 'node:fs';

export const POLL_INTERVAL_MS = 25;

export type WaitOutcome<T> = { ok: true; value: T } | { ok: false; waitedMs: number };

export function waitFor<T>(
  watchDir: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<WaitOutcome<T>> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    let settled = false;
    let checking = false;
    let recheck = false;
    let watcher: FSWatcher | undefined;
    let timer: NodeJS.Timeout | undefined;

    const finish = (outcome: WaitOutcome<T> | Error) => {
      if (settled) return;
      settled = true;
      clearInterval(poller);
      if (timer) clearTimeout(timer);
      watcher?.close();
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
    try {
      watcher = watch(watchDir, { persistent: true }, () => void runCheck());
      watcher.on('error', () => {
        watcher?.close(); // keep going on the polling tick alone
        watcher = undefined;
      });
    } catch {
      watcher = undefined; // e.g. ENOSPC (inotify limit): polling still works
    }
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
