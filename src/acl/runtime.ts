/**
 * AclRuntime, the Acl implementation (types.ts): init, devices, and the factories of the owned
 * objects, which live one per file (stream.ts, event.ts, latch.ts; buffers and notifies in
 * data.ts) and reach the runtime only through the internal core interface (core.ts). Every
 * non-zero return becomes an AclError with the code's name, the call, an argument summary and
 * aclGetRecentErrMsg(); owned objects refuse any use after destroy *before* calling C, so a stale
 * pointer never reaches the runtime.
 */
import { EventFlag } from './enums';
import { AclError, AclErrorCode } from './errors';
import { IpcEventHandle } from './ipc-handle';
import type { AclFunctions, HoldFunctions, Ptr } from './native';
import type { LibraryChoice } from './resolve';
import { createNotify, importBuffer, importNotify, mallocBuffer } from './data';
import { releaseAllHostCopyTargets } from './host-copies';
import type { Owned } from './owned';
import { recordCall } from './call-record';
import { checkInt, INT32_MAX, INT32_MIN, UINT32_MAX, type RuntimeCore } from './core';
import { forgetAtExit, releaseAtExit, type LatchImpl } from './latch';
import { StreamImpl } from './stream';
import { EventImpl } from './event';
import { AclContextImpl } from './context';
import type { Acl, AclContext, DeviceBuffer, Event, Notify, Stream, Vmm } from './types';
import { createVmm } from './vmm';
import { allocMapped, importMapped } from './vmm-buffer';

export class AclRuntime implements Acl, RuntimeCore {
  #initialized = false;
  #hold: HoldFunctions | null = null;
  #defaultStream: StreamImpl | null = null;
  /** Streams and events not yet destroyed, so finalize() can retire them. */
  readonly #live = new Set<Owned<unknown>>();
  /** Latches not yet released, so stream destroy / finalize / exit never leave a runtime thread blocked. */
  readonly #latches = new Set<LatchImpl>();
  /** Context objects by handle, so that currentContext() gives back the object createContext() made. */
  readonly #contexts = new Map<bigint, AclContextImpl>();

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
    releaseAtExit(l);
  }
  untrackLatch(l: LatchImpl): void {
    this.#latches.delete(l);
    forgetAtExit(l);
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
    releaseAllHostCopyTargets();
    this.#initialized = false;
    for (const o of [...this.#live]) {
      o.retire({ code: AclErrorCode.ACL_ERROR_UNINITIALIZE, detail: `aclFinalize() was called, the ${o.kind} no longer exists` });
    }
    this.#live.clear();
    this.#contexts.clear();
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

  // ---- contexts ---------------------------------------------------------------------------------

  createContext(deviceId: number): AclContext {
    const device = checkInt(deviceId, 'device id', INT32_MIN, INT32_MAX);
    const out: [Ptr] = [null];
    this.check(this.raw.aclrtCreateContext(out, device), 'aclrtCreateContext', `context=&out, deviceId=${device}`);
    return this.adoptContext(out[0], device);
  }

  currentContext(): AclContext {
    const out: [Ptr] = [null];
    this.check(this.raw.aclrtGetCurrentContext(out), 'aclrtGetCurrentContext', 'context=&out');
    return this.adoptContext(out[0], this.deviceOrUnknown());
  }

  setCurrentContext(context: AclContext): void {
    if (!(context instanceof AclContextImpl)) throw new TypeError('setCurrentContext: expected a Context created by this Acl binding');
    const c = context.handleFor('aclrtSetCurrentContext');
    this.check(this.raw.aclrtSetCurrentContext(c), 'aclrtSetCurrentContext', context.describe());
  }

  forgetContext(handle: Ptr, context: Owned<unknown>): void {
    if (handle !== null && this.#contexts.get(handle) === context) this.#contexts.delete(handle);
    this.untrack(context);
  }

  private adoptContext(ptr: Ptr, device: number): AclContextImpl {
    const known = ptr === null ? undefined : this.#contexts.get(ptr);
    // A handle can name a new context once its old one is gone (a reset primary context, for one).
    if (known && !known.destroyed && known.device === device) return known;
    const c = new AclContextImpl(this, ptr, device);
    if (ptr !== null) this.#contexts.set(ptr, c);
    this.track(c);
    return c;
  }

  setOpWaitTimeout(ms: number): void {
    this.check(this.raw.aclrtSetOpWaitTimeout(checkInt(ms, 'op wait timeout (ms)', 0, UINT32_MAX)), 'aclrtSetOpWaitTimeout', `timeout=${ms}`);
  }

  synchronizeDevice(timeoutMs?: number): void {
    if (timeoutMs === undefined) {
      this.check(recordCall('aclrtSynchronizeDevice', '', () => this.raw.aclrtSynchronizeDevice()), 'aclrtSynchronizeDevice', '');
    } else {
      const args = `timeout=${timeoutMs}`;
      checkInt(timeoutMs, 'device synchronize timeout (ms)', INT32_MIN, INT32_MAX);
      const rc = recordCall('aclrtSynchronizeDeviceWithTimeout', args, () => this.raw.aclrtSynchronizeDeviceWithTimeout(timeoutMs));
      this.check(rc, 'aclrtSynchronizeDeviceWithTimeout', args);
    }
  }

  socName(): string | null {
    return this.raw.aclrtGetSocName();
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

  #vmm: Vmm | undefined;

  get vmm(): Vmm {
    if (!this.#vmm) {
      const calls = createVmm(this);
      const vmm: Vmm = { ...calls, allocMapped: (bytes) => allocMapped(this, vmm, bytes), importMapped: (sh, bytes) => importMapped(this, vmm, sh, bytes) };
      this.#vmm = vmm;
    }
    return this.#vmm;
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

  ownStream(s: Stream, call: string): StreamImpl {
    return asStreamImpl(s, call);
  }

  ownEvent(e: Event, call: string): EventImpl {
    return asEventImpl(e, call);
  }

  private adoptEvent(ptr: Ptr, isIpc: boolean): EventImpl {
    const e = new EventImpl(this, ptr, isIpc, this.deviceOrUnknown());
    this.track(e);
    return e;
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
