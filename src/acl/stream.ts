/** A stream of the binding (aclrtStream): synchronize, wait for an event, hold and latch it, destroy. */
import { AclError, AclErrorCode } from './errors';
import type { Ptr } from './native';
import { hex, Owned } from './owned';
import { recordCall } from './call-record';
import { releaseHostCopyTargetsOf } from './host-copies';
import { LatchImpl } from './latch';
import { checkInt, INT32_MAX, INT32_MIN, UINT32_MAX, type RuntimeCore } from './core';
import { StreamStatus, ValueWaitFlag } from './enums';
import type { DeviceBuffer, Event, Latch, Stream } from './types';

export class StreamImpl extends Owned<RuntimeCore> implements Stream {
  readonly kind = 'stream';
  readonly #device: number;
  /** Latches enqueued on this stream and not yet released. */
  readonly #latches = new Set<LatchImpl>();

  constructor(rt: RuntimeCore, ptr: Ptr, device: number) {
    super(rt, ptr);
    this.#device = device;
  }

  get isDefault(): boolean {
    return this.ptr === null;
  }

  get device(): number {
    // The default stream belongs to whichever device is current on this thread.
    return this.isDefault ? this.rt.deviceOrUnknown() : this.#device;
  }

  override describe(): string {
    return this.isDefault ? 'stream=NULL(default)' : super.describe();
  }

  synchronize(timeoutMs?: number): void {
    if (timeoutMs === undefined) {
      const s = this.handleFor('aclrtSynchronizeStream');
      const args = this.describe();
      this.rt.check(recordCall('aclrtSynchronizeStream', args, () => this.rt.raw.aclrtSynchronizeStream(s)), 'aclrtSynchronizeStream', args);
    } else {
      const args = `${this.describe()}, timeout=${timeoutMs}`;
      const s = this.handleFor('aclrtSynchronizeStreamWithTimeout', args);
      checkInt(timeoutMs, 'stream synchronize timeout (ms)', INT32_MIN, INT32_MAX);
      const rc = recordCall('aclrtSynchronizeStreamWithTimeout', args, () => this.rt.raw.aclrtSynchronizeStreamWithTimeout(s, timeoutMs));
      this.rt.check(rc, 'aclrtSynchronizeStreamWithTimeout', args);
    }
    releaseHostCopyTargetsOf(this.ptr, this.device);
  }

  waitEvent(ev: Event, timeoutSeconds?: number): void {
    const event = this.rt.ownEvent(ev, 'waitEvent');
    const call = timeoutSeconds === undefined ? 'aclrtStreamWaitEvent' : 'aclrtStreamWaitEventWithTimeout';
    const args = `${this.describe()}, ${event.describe()}${timeoutSeconds === undefined ? '' : `, timeout=${timeoutSeconds}s`}`;
    const s = this.handleFor(call, args);
    const e = event.handleFor(call, args);
    if (timeoutSeconds === undefined) {
      this.rt.check(this.rt.raw.aclrtStreamWaitEvent(s, e), call, args);
    } else {
      // CANN counts this timeout in seconds (07_event_management.md:1032), unlike the synchronizes
      checkInt(timeoutSeconds, 'stream wait timeout (seconds)', INT32_MIN, INT32_MAX);
      this.rt.check(this.rt.raw.aclrtStreamWaitEventWithTimeout(s, e, timeoutSeconds), call, args);
    }
  }

  hold(ms: number): void {
    checkInt(ms, 'hold duration (ms)', 0, INT32_MAX);
    const args = `${this.describe()}, fn=cannharness_sleep_ms, args=${ms}`;
    const s = this.handleFor('aclrtLaunchHostFunc', args);
    const hold = this.rt.holdLibrary();
    this.rt.check(this.rt.raw.aclrtLaunchHostFunc(s, hold.sleepMsFn, BigInt(ms)), 'aclrtLaunchHostFunc', args);
  }

  query(): 'complete' | 'notReady' {
    const args = this.describe();
    const s = this.handleFor('aclrtStreamQuery', args);
    const status: [number] = [-1];
    this.rt.check(this.rt.raw.aclrtStreamQuery(s, status), 'aclrtStreamQuery', args);
    return status[0] === StreamStatus.COMPLETE ? 'complete' : 'notReady';
  }

  id(): number {
    const args = this.describe();
    const s = this.handleFor('aclrtStreamGetId', args);
    const id: [number] = [-1];
    this.rt.check(this.rt.raw.aclrtStreamGetId(s, id), 'aclrtStreamGetId', args);
    return id[0];
  }

  executorState(): 'wait' | 'hostFunction' | 'other' | 'unknown' {
    const probe = this.rt.raw.cannstubStreamBlocked;
    if (!probe) return 'unknown';
    const state = probe(this.handleFor('cannstub_stream_blocked', this.describe()));
    return state === 1 ? 'wait' : state === 2 ? 'hostFunction' : state === 0 ? 'other' : 'unknown';
  }

  /** The address of the 8-byte word at offset in buffer (the call's range checks are the stub's). */
  #word(buffer: DeviceBuffer, offset: number, call: string): bigint {
    const last = buffer.bytes - 8;
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > last) {
      throw new RangeError(`${call}: offset must be an integer in [0, ${last}] (an 8-byte word inside the buffer), got ${String(offset)}`);
    }
    return buffer.address + BigInt(offset);
  }

  valueWrite(buffer: DeviceBuffer, offset: number, value: bigint): void {
    const addr = this.#word(buffer, offset, 'aclrtValueWrite');
    const args = `devAddr=0x${addr.toString(16)}, value=${value}, flag=0, ${this.describe()}`;
    const s = this.handleFor('aclrtValueWrite', args);
    this.rt.check(this.rt.raw.aclrtValueWrite(addr, BigInt.asUintN(64, value), 0, s), 'aclrtValueWrite', args);
  }

  valueWait(buffer: DeviceBuffer, offset: number, value: bigint, flag: number = ValueWaitFlag.GEQ): void {
    const addr = this.#word(buffer, offset, 'aclrtValueWait');
    checkInt(flag, 'aclrtValueWait: flag', 0, UINT32_MAX);
    const args = `devAddr=0x${addr.toString(16)}, value=${value}, flag=${flag}, ${this.describe()}`;
    const s = this.handleFor('aclrtValueWait', args);
    this.rt.check(this.rt.raw.aclrtValueWait(addr, BigInt.asUintN(64, value), flag, s), 'aclrtValueWait', args);
  }

  latch(): Latch {
    const s = this.handleFor('aclrtLaunchHostFunc', `${this.describe()}, fn=cannharness_latch_wait`);
    const hold = this.rt.holdLibrary();
    const native = hold.latchCreate();
    if (!native) throw new Error('cannharness_latch_create() returned NULL (out of memory?)');
    const args = `${this.describe()}, fn=cannharness_latch_wait, args=${hex(native)}`;
    const rc = this.rt.raw.aclrtLaunchHostFunc(s, hold.latchWaitFn, native);
    if (rc !== 0) {
      // Never enqueued. A latch starts with two references (creator, pending wait): release it,
      // run the wait here (returns at once, drops the wait's reference), then drop ours.
      hold.latchRelease(native);
      hold.latchWait(native);
      hold.latchDestroy(native);
      this.rt.check(rc, 'aclrtLaunchHostFunc', args);
    }
    const latch = new LatchImpl(hold, native, () => {
      this.#latches.delete(latch);
      this.rt.untrackLatch(latch);
    });
    this.#latches.add(latch);
    this.rt.trackLatch(latch);
    return latch;
  }

  destroy(): void {
    if (this.isDefault) {
      throw new AclError({
        code: AclErrorCode.ACL_ERROR_RT_PARAM_INVALID,
        call: 'aclrtDestroyStream',
        args: this.describe(),
        detail: 'the default stream belongs to the device and cannot be destroyed',
      });
    }
    const s = this.handleFor('aclrtDestroyStream');
    // Unblock the stream first: a latch nobody releases would keep its runtime thread waiting forever.
    for (const l of [...this.#latches]) l.release();
    this.rt.check(this.rt.raw.aclrtDestroyStream(s), 'aclrtDestroyStream', this.describe());
    this.retire(this.destroyedBy('aclrtDestroyStream'));
    this.rt.untrack(this);
  }

  override [Symbol.dispose](): void {
    if (!this.isDefault) super[Symbol.dispose]();
  }
}
