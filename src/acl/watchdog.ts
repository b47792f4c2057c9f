/**
 * Starts the device process's native watchdog (native-stub/harness/hold/watch.c, in
 * libcannharness_hold.so) and connects the binding to it: the call records move into the
 * library's table, and the watchdog learns which ACL library this process loaded (for the stub's
 * live view). harness/parent-watch.ts decides what to do when it cannot start.
 *
 * Loading koffi and the hold library at process start costs a few MiB and milliseconds (the bench
 * `device-process` measures it); every real role loads both for ACL anyway.
 */
import { CALL_RECORD_BYTES, CALL_RECORD_SLOTS, callRecord, setCallRecordTableAddress, threadSlot } from './call-record';
import { loadWatchLibrary, mapNativeMemory, type WatchFunctions } from './native';
import { resolveHoldLibrary } from './resolve';

export interface WatchdogOptions {
  /** The orchestrator's pid (harness/parent-watch.ts expectedParent). */
  expectedParent: number;
  /** The scenario directory: removed by an orphan (unless keep), home of hang requests. */
  dir?: string;
  keep: boolean;
  /** The role's name: answers hang requests only with a dir and a role. */
  role?: string;
}

export type WatchdogStart = { ok: true } | { ok: false; reason: string };

const TABLE_BYTES = CALL_RECORD_BYTES * CALL_RECORD_SLOTS;
// errno values (Linux) that cannharness_watch_start returns negated.
const EALREADY = 114;

let watch: WatchFunctions | undefined;
let loadedLibrary: string | undefined;

/** Starts the watchdog thread (once per process). Never throws: says why it did not start. */
export function startNativeWatchdog(o: WatchdogOptions, env: NodeJS.ProcessEnv = process.env): WatchdogStart {
  let fns: WatchFunctions;
  try {
    fns = loadWatchLibrary(resolveHoldLibrary(env));
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
  const bytes = fns.callRecordsBytes();
  if (bytes !== TABLE_BYTES) {
    return { ok: false, reason: `its call-record table has ${bytes} bytes, the binding expects ${TABLE_BYTES}: rebuild it with \`npm run build:stub\`` };
  }
  const rc = fns.start(o.expectedParent, o.dir || null, o.keep ? 1 : 0, o.dir && o.role ? o.role : null);
  if (rc !== 0 && rc !== -EALREADY) return { ok: false, reason: `cannharness_watch_start returned ${rc} (a negated errno)` };
  watch = fns;
  const address = fns.callRecords();
  callRecord.useSlot(mapNativeMemory(address, TABLE_BYTES), 0);
  setCallRecordTableAddress(address);
  if (loadedLibrary) fns.setLibrary(loadedLibrary);
  return { ok: true };
}

/** Tells the watchdog which ACL library this process loaded (it asks that one for the live view). */
export function publishLoadedLibrary(file: string): void {
  loadedLibrary = file;
  watch?.setLibrary(file);
}

/** In a role's worker thread: write this thread's calls into its slot of the native table. */
export function useThreadCallRecord(tableAddress: bigint, thread: number): void {
  callRecord.useSlot(mapNativeMemory(tableAddress, TABLE_BYTES), threadSlot(thread));
}
