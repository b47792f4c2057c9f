/**
 * The internal core of the binding: what the owned objects (streams, events, latches, buffers,
 * notifies) need from the runtime that made them. AclRuntime (runtime.ts) implements it; the
 * public API is the Acl interface (types.ts), which this core is not part of.
 */
import type { DataRuntime } from './data';
import type { HoldFunctions, Ptr } from './native';
import type { Owned } from './owned';
import type { LatchImpl } from './latch';
import type { Event, Stream } from './types';

export interface RuntimeCore extends DataRuntime {
  /** A destroyed context: its handle may name a new context later (real CANN reuses addresses). */
  forgetContext(handle: Ptr, context: Owned<unknown>): void;
  /** libcannharness_hold.so, loaded on first use. */
  holdLibrary(): HoldFunctions;
  /** Latches not yet released, so stream destroy / finalize / exit never leave a runtime thread blocked. */
  trackLatch(l: LatchImpl): void;
  untrackLatch(l: LatchImpl): void;
  /** The binding's own object behind a public Stream, or a TypeError naming the call. */
  ownStream(s: Stream, call: string): Owned<unknown>;
  /** The binding's own object behind a public Event, or a TypeError naming the call. */
  ownEvent(e: Event, call: string): Owned<unknown>;
}

export function checkInt(value: unknown, what: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new TypeError(`${what} must be an integer in [${min}, ${max}], got ${String(value)}`);
  }
  return value;
}
export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;
export const UINT32_MAX = 2 ** 32 - 1;
