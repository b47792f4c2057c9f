/**
 * The typed ACL API over the raw koffi functions: every non-zero return becomes an AclError with
 * the code's name, the call, an argument summary and aclGetRecentErrMsg(); streams and events own
 * their C handle and refuse any use after destroy *before* calling C, so a stale pointer never
 * reaches the runtime.
 */
import { EventFlag, EventRecordedStatus, EventStatus, EventWaitStatus } from './enums';
import { AclError, AclErrorCode } from './errors';
import { IpcEventHandle } from './ipc-handle';
import type { AclFunctions, HoldFunctions, Ptr } from './native';
import type { LibraryChoice } from './resolve';
import { createNotify, importBuffer, importNotify, mallocBuffer } from './data';
import type { DataRuntime } from './data';
import { hex, Owned } from './owned';
import { callRecord, recordCall } from './call-record';
import type { Acl, DeviceBuffer, Event, Latch, Notify, Stream } from './types';


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


function checkInt(value: unknown, what: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new TypeError(`${what} must be an integer in [${min}, ${max}], got ${String(value)}`);
  }
  return value;
}
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const UINT32_MAX = 2 ** 32 - 1;

export class AclRuntime implements Acl, DataRuntime {
  #initialized = false;
  #hold: HoldFunctions | null = null;
  #defaultStream: StreamImpl | null = null;
  /** Streams and events not yet destroyed, so finalize() can retire them. */
  readonly #live = new Set<Owned<unknown>>();
  /** Latches not yet released, so stream destroy / finalize / exit never leave a runtime thread blocked. */
  readonly #latches = new Set<LatchImpl>();

  constructor(
    readonly library: LibraryChoice,
    readonly raw: AclFunctions,
    private readonly loadHold: () => HoldFunctions,
  ) {}

  // ---- plumbing -------------------------------------------------------------------------------

  /** Throws AclError for a non-zero return code. */
  check(rc: number, call: string, args: string): void {
    if (rc !== 0) throw new AclError({ code: rc, call, args, recentErrMsg: this.raw.aclGetRecentErrMsg() });
  }

  holdLibrary(): HoldFunctions {
    this.#hold ??= this.loadHold();
    return this.#hold;
  }

  track(o: Owned<unknown>): void {
    this.#live.add(o);
  }
  untrack(o: Owned<unknown>): void {
    this.#live.delete(o);
  }
  trackLatch(l: LatchImpl): void {
    this.#latches.add(l);
    latchesPendingAtExit.add(l);
    installExitHook();
  }
  untrackLatch(l: LatchImpl): void {
    this.#latches.delete(l);
    latchesPendingAtExit.delete(l);
  }

  releaseAllLatches(): void {
    for (const l of [...this.#latches]) l.release();
  }

  // ---- init, devices ----------------------------------------------------------------------------

  get initialized(): boolean {
    return this.#initialized;
  }

  init(configPath?: string): void {
    this.check(this.raw.aclInit(configPath ?? null), 'aclInit', configPath === undefined ? 'NULL' : JSON.stringify(configPath));
    this.#initialized = true;
  }

  finalize(): void {
    // A latch still holding a stream would make the runtime wait forever for that stream.
    this.releaseAllLatches();
    this.check(recordCall('aclFinalize', '', () => this.raw.aclFinalize()), 'aclFinalize', '');
    this.#initialized = false;
    for (const o of [...this.#live]) {
      o.retire({ code: AclErrorCode.ACL_ERROR_UNINITIALIZE, detail: `aclFinalize() was called, the ${o.kind} no longer exists` });
    }
    this.#live.clear();
  }

  recentErrMsg(): string | null {
    return this.raw.aclGetRecentErrMsg();
  }

  getDeviceCount(): number {
    const count: [number] = [0];
    this.check(this.raw.aclrtGetDeviceCount(count), 'aclrtGetDeviceCount', 'count=&out');
    return count[0];
  }

  setDevice(id: number): void {
    this.check(this.raw.aclrtSetDevice(checkInt(id, 'device id', INT32_MIN, INT32_MAX)), 'aclrtSetDevice', `deviceId=${id}`);
  }

  resetDevice(id: number): void {
    this.check(this.raw.aclrtResetDevice(checkInt(id, 'device id', INT32_MIN, INT32_MAX)), 'aclrtResetDevice', `deviceId=${id}`);
  }

  resetDeviceForce(id: number): void {
    this.check(
      this.raw.aclrtResetDeviceForce(checkInt(id, 'device id', INT32_MIN, INT32_MAX)),
      'aclrtResetDeviceForce',
      `deviceId=${id}`,
    );
  }

  getDevice(): number {
    const id: [number] = [-1];
    this.check(this.raw.aclrtGetDevice(id), 'aclrtGetDevice', 'deviceId=&out');
    return id[0];
  }

  setOpWaitTimeout(ms: number): void {
    this.check(this.raw.aclrtSetOpWaitTimeout(checkInt(ms, 'op wait timeout (ms)', 0, UINT32_MAX)), 'aclrtSetOpWaitTimeout', `timeout=${ms}`);
  }

  monotonicNs(): bigint {
    return this.holdLibrary().monotonicNs();
  }

  // ---- streams ----------------------------------------------------------------------------------

  createStream(): Stream {
    const out: [Ptr] = [null];
    this.check(this.raw.aclrtCreateStream(out), 'aclrtCreateStream', 'stream=&out');
    const s = new StreamImpl(this, out[0], this.deviceOrUnknown());
    this.track(s);
    return s;
  }

  get defaultStream(): Stream {
    this.#defaultStream ??= new StreamImpl(this, null, -1);
    return this.#defaultStream;
  }

  /** The current device, or -1 if the runtime cannot say (the object stays usable either way). */
  deviceOrUnknown(): number {
    const id: [number] = [-1];
    return this.raw.aclrtGetDevice(id) === 0 ? id[0] : -1;
  }

  // ---- events -----------------------------------------------------------------------------------

  createEvent(): Event {
    const out: [Ptr] = [null];
    this.check(this.raw.aclrtCreateEvent(out), 'aclrtCreateEvent', 'event=&out');
    return this.adoptEvent(out[0], false);
  }

  createEventWithFlag(flag: number): Event {
    checkInt(flag, 'event flag', 0, UINT32_MAX);
    const out: [Ptr] = [null];
    this.check(this.raw.aclrtCreateEventWithFlag(out, flag), 'aclrtCreateEventWithFlag', `event=&out, flag=0x${flag.toString(16)}`);
    return this.adoptEvent(out[0], (flag & EventFlag.IPC) !== 0);
  }

  createEventExWithFlag(flag: number): Event {
    checkInt(flag, 'event flag', 0, UINT32_MAX);
    const out: [Ptr] = [null];
    this.check(this.raw.aclrtCreateEventExWithFlag(out, flag), 'aclrtCreateEventExWithFlag', `event=&out, flag=0x${flag.toString(16)}`);
    return this.adoptEvent(out[0], (flag & EventFlag.IPC) !== 0);
  }

  createIpcEvent(): Event {
    return this.createEventExWithFlag(EventFlag.IPC);
  }

  openIpcEvent(handle: IpcEventHandle): Event {
    if (!(handle instanceof IpcEventHandle)) {
      throw new TypeError('openIpcEvent expects an IpcEventHandle (use IpcEventHandle.fromBuffer or .readFile)');
    }
    const out: [Ptr] = [null];
    const rc = this.raw.aclrtIpcOpenEventHandle({ reserved: new Uint8Array(handle.toBuffer()) }, out);
    this.check(rc, 'aclrtIpcOpenEventHandle', `handle=${handle.toShortHex()}, event=&out`);
    return this.adoptEvent(out[0], true);
  }

  // ---- memory, notify, peer access (data.ts) -----------------------------------------------------

  malloc(bytes: number): DeviceBuffer {
    return mallocBuffer(this, bytes);
  }

  importMemory(key: string, bytes: number, opts?: { peerAccess?: boolean }): DeviceBuffer {
    return importBuffer(this, key, bytes, opts);
  }

  createNotify(flag?: number): Notify {
    return createNotify(this, flag);
  }

  importNotify(key: string, opts?: { peerAccess?: boolean }): Notify {
    return importNotify(this, key, opts);
  }

  bareTgid(): number {
    const pid: [number] = [0];
    this.check(this.raw.aclrtDeviceGetBareTgid(pid), 'aclrtDeviceGetBareTgid', 'pid=&out');
    return pid[0];
  }

  canAccessPeer(deviceId: number, peerDeviceId: number): boolean {
    const can: [number] = [0];
    const args = `canAccessPeer=&out, deviceId=${deviceId}, peerDeviceId=${peerDeviceId}`;
    this.check(
      this.raw.aclrtDeviceCanAccessPeer(can, checkInt(deviceId, 'device id', INT32_MIN, INT32_MAX), checkInt(peerDeviceId, 'peer device id', INT32_MIN, INT32_MAX)),
      'aclrtDeviceCanAccessPeer',
      args,
    );
    return can[0] === 1;
  }

  enablePeerAccess(peerDeviceId: number): void {
    const peer = checkInt(peerDeviceId, 'peer device id', INT32_MIN, INT32_MAX);
    this.check(this.raw.aclrtDeviceEnablePeerAccess(peer, 0), 'aclrtDeviceEnablePeerAccess', `peerDeviceId=${peer}, flags=0`);
  }

  streamArg(stream: Stream | undefined, call: string): { ptr: Ptr; text: string } {
    const st = stream === undefined ? null : asStreamImpl(stream, call);
    const text = st ? st.describe() : 'stream=NULL(default)';
    return { ptr: st ? st.handleFor(call, text) : null, text };
  }

  private adoptEvent(ptr: Ptr, isIpc: boolean): EventImpl {
    const e = new EventImpl(this, ptr, isIpc, this.deviceOrUnknown());
    this.track(e);
    return e;
  }
}

// ---- owned objects ------------------------------------------------------------------------------

class StreamImpl extends Owned<AclRuntime> implements Stream {
  readonly kind = 'stream';
  readonly #device: number;
  /** Latches enqueued on this stream and not yet released. */
  readonly #latches = new Set<LatchImpl>();

  constructor(rt: AclRuntime, ptr: Ptr, device: number) {
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
  }

  waitEvent(ev: Event, timeoutMs?: number): void {
    const event = asEventImpl(ev, 'waitEvent');
    const call = timeoutMs === undefined ? 'aclrtStreamWaitEvent' : 'aclrtStreamWaitEventWithTimeout';
    const args = `${this.describe()}, ${event.describe()}${timeoutMs === undefined ? '' : `, timeout=${timeoutMs}`}`;
    const s = this.handleFor(call, args);
    const e = event.handleFor(call, args);
    if (timeoutMs === undefined) {
      this.rt.check(this.rt.raw.aclrtStreamWaitEvent(s, e), call, args);
    } else {
      checkInt(timeoutMs, 'stream wait timeout (ms)', INT32_MIN, INT32_MAX);
      this.rt.check(this.rt.raw.aclrtStreamWaitEventWithTimeout(s, e, timeoutMs), call, args);
    }
  }

  hold(ms: number): void {
    checkInt(ms, 'hold duration (ms)', 0, INT32_MAX);
    const args = `${this.describe()}, fn=cannharness_sleep_ms, args=${ms}`;
    const s = this.handleFor('aclrtLaunchHostFunc', args);
    const hold = this.rt.holdLibrary();
    this.rt.check(this.rt.raw.aclrtLaunchHostFunc(s, hold.sleepMsFn, BigInt(ms)), 'aclrtLaunchHostFunc', args);
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

class EventImpl extends Owned<AclRuntime> implements Event {
  readonly kind = 'event';

  constructor(
    rt: AclRuntime,
    ptr: Ptr,
    readonly isIpc: boolean,
    readonly device: number,
  ) {
    super(rt, ptr);
  }

  record(stream?: Stream): void {
    this.onStream('aclrtRecordEvent', stream, (e, s) => this.rt.raw.aclrtRecordEvent(e, s));
  }

  reset(stream?: Stream): void {
    this.onStream('aclrtResetEvent', stream, (e, s) => this.rt.raw.aclrtResetEvent(e, s));
  }

  private onStream(call: string, stream: Stream | undefined, fn: (e: Ptr, s: Ptr) => number): void {
    const st = stream === undefined ? null : asStreamImpl(stream, call);
    const args = `${this.describe()}, ${st ? st.describe() : 'stream=NULL(default)'}`;
    const e = this.handleFor(call, args);
    const s = st ? st.handleFor(call, args) : null;
    this.rt.check(fn(e, s), call, args);
  }

  queryStatus(): EventRecordedStatus {
    return this.queryOut('aclrtQueryEventStatus', (e, o) => this.rt.raw.aclrtQueryEventStatus(e, o));
  }

  query(): EventStatus {
    return this.queryOut('aclrtQueryEvent', (e, o) => this.rt.raw.aclrtQueryEvent(e, o));
  }

  queryWaitStatus(): EventWaitStatus {
    return this.queryOut('aclrtQueryEventWaitStatus', (e, o) => this.rt.raw.aclrtQueryEventWaitStatus(e, o));
  }

  private queryOut(call: string, fn: (e: Ptr, out: [number]) => number): number {
    const args = `${this.describe()}, status=&out`;
    const e = this.handleFor(call, args);
    const out: [number] = [-1];
    this.rt.check(fn(e, out), call, args);
    return out[0];
  }

  synchronize(timeoutMs?: number): void {
    if (timeoutMs === undefined) {
      const e = this.handleFor('aclrtSynchronizeEvent');
      const args = this.describe();
      this.rt.check(recordCall('aclrtSynchronizeEvent', args, () => this.rt.raw.aclrtSynchronizeEvent(e)), 'aclrtSynchronizeEvent', args);
    } else {
      const args = `${this.describe()}, timeout=${timeoutMs}`;
      const e = this.handleFor('aclrtSynchronizeEventWithTimeout', args);
      checkInt(timeoutMs, 'event synchronize timeout (ms)', INT32_MIN, INT32_MAX);
      const rc = recordCall('aclrtSynchronizeEventWithTimeout', args, () => this.rt.raw.aclrtSynchronizeEventWithTimeout(e, timeoutMs));
      this.rt.check(rc, 'aclrtSynchronizeEventWithTimeout', args);
    }
  }

  elapsedTime(end: Event): number {
    const endEvent = asEventImpl(end, 'elapsedTime');
    const args = `ms=&out, start${this.describe()}, end${endEvent.describe()}`.replace(/(start|end)event=/g, '$1Event=');
    const s = this.handleFor('aclrtEventElapsedTime', args);
    const e = endEvent.handleFor('aclrtEventElapsedTime', args);
    const ms: [number] = [0];
    this.rt.check(this.rt.raw.aclrtEventElapsedTime(ms, s, e), 'aclrtEventElapsedTime', args);
    return ms[0];
  }

  timestamp(): bigint {
    const args = `${this.describe()}, timestamp=&out`;
    const e = this.handleFor('aclrtEventGetTimestamp', args);
    const out = new BigUint64Array(1);
    this.rt.check(this.rt.raw.aclrtEventGetTimestamp(e, out), 'aclrtEventGetTimestamp', args);
    return out[0];
  }

  id(): number {
    const args = `${this.describe()}, eventId=&out`;
    const e = this.handleFor('aclrtGetEventId', args);
    const out: [number] = [0];
    this.rt.check(this.rt.raw.aclrtGetEventId(e, out), 'aclrtGetEventId', args);
    return out[0];
  }

  ipcHandle(): IpcEventHandle {
    const args = `${this.describe()}, handle=&out`;
    const e = this.handleFor('aclrtIpcGetEventHandle', args);
    const out: { reserved?: Uint8Array } = {};
    this.rt.check(this.rt.raw.aclrtIpcGetEventHandle(e, out), 'aclrtIpcGetEventHandle', args);
    if (!out.reserved) throw new Error('aclrtIpcGetEventHandle succeeded but koffi returned no handle bytes');
    return IpcEventHandle.fromBuffer(out.reserved);
  }

  destroy(): void {
    const e = this.handleFor('aclrtDestroyEvent');
    this.rt.check(this.rt.raw.aclrtDestroyEvent(e), 'aclrtDestroyEvent', this.describe());
    this.retire(this.destroyedBy('aclrtDestroyEvent'));
    this.rt.untrack(this);
  }
}

/**
 * A native latch enqueued with aclrtLaunchHostFunc(stream, cannharness_latch_wait, latch).
 * release() releases it and drops our reference (cannharness_latch_destroy); the pending wait holds
 * its own reference, so the latch is freed by whichever of the two finishes last: safe even if the
 * runtime thread has not reached the wait yet, and no leak once it has.
 */
class LatchImpl implements Latch {
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

function asStreamImpl(s: Stream, call: string): StreamImpl {
  if (!(s instanceof StreamImpl)) throw new TypeError(`${call}: expected a Stream created by this Acl binding`);
  return s;
}

function asEventImpl(e: Event, call: string): EventImpl {
  if (!(e instanceof EventImpl)) throw new TypeError(`${call}: expected an Event created by this Acl binding`);
  return e;
}
