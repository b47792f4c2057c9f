/**
 * A latch: a native gate enqueued on a stream (Stream.latch()) that holds the stream until released.
 */
import { callRecord } from './call-record';
import type { HoldFunctions } from './native';
import type { Latch } from './types';

/**
 * Latches not released when the process (or worker thread) exits are released then, so no runtime
 * thread stays blocked in cannharness_latch_wait while the runtime shuts down.
 */
const latchesPendingAtExit = new Set<LatchImpl>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const l of [...latchesPendingAtExit]) l.release();
  });
}

/** Released at process (or worker thread) exit unless released before. */
export function releaseAtExit(l: LatchImpl): void {
  latchesPendingAtExit.add(l);
  installExitHook();
}

export function forgetAtExit(l: LatchImpl): void {
  latchesPendingAtExit.delete(l);
}

/**
 * A native latch enqueued with aclrtLaunchHostFunc(stream, cannharness_latch_wait, latch).
 * release() releases it and drops our reference (cannharness_latch_destroy); the pending wait holds
 * its own reference, so the latch is freed by whichever of the two finishes last: safe even if the
 * runtime thread has not reached the wait yet, and no leak once it has.
 */
export class LatchImpl implements Latch {
  #native: bigint | null;

  constructor(
    private readonly hold: HoldFunctions,
    native: bigint,
    private readonly onReleased: () => void,
  ) {
    this.#native = native;
    callRecord.latchOpened();
  }

  get released(): boolean {
    return this.#native === null;
  }

  release(): void {
    const native = this.#native;
    if (native === null) return;
    this.#native = null;
    this.hold.latchRelease(native);
    this.hold.latchDestroy(native);
    callRecord.latchReleased();
    this.onReleased();
  }

  [Symbol.dispose](): void {
    this.release();
  }
}
