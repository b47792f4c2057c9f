/** The public shapes of the typed ACL API (docs/architecture.md, section src/acl). No koffi here. */
import type { EventRecordedStatus, EventStatus, EventWaitStatus } from './enums';
import type { IpcEventHandle } from './ipc-handle';
import type { AclFunctions } from './native';
import type { LibraryChoice } from './resolve';

export interface Acl {
  /** Which library was loaded, and why. */
  readonly library: LibraryChoice;
  /** aclInit. Once per process; worker threads must not call it again (see docs/architecture.md). */
  init(configPath?: string): void;
  /** aclFinalize. Releases pending latches first; streams and events of this object become unusable. */
  finalize(): void;
  /** True between a successful init() and finalize() made through this object. */
  readonly initialized: boolean;
  /** aclGetRecentErrMsg() for this thread. */
  recentErrMsg(): string | null;
  getDeviceCount(): number;
  setDevice(id: number): void;
  resetDevice(id: number): void;
  resetDeviceForce(id: number): void;
  getDevice(): number;
  /**
   * aclrtCreateContext: a new context on the device, current on this thread from now on. Streams
   * created while it is current belong to it (107003 from another context).
   */
  createContext(deviceId: number): AclContext;
  /** aclrtGetCurrentContext: this thread's current context (107002 on a thread that has none). */
  currentContext(): AclContext;
  /** aclrtSetCurrentContext. A worker thread can make a context of its role current this way. */
  setCurrentContext(context: AclContext): void;
  setOpWaitTimeout(ms: number): void;
  createStream(): Stream;
  /** The NULL stream: the default stream of whichever context is current at each call (cannot be destroyed). */
  readonly defaultStream: Stream;
  createEvent(): Event;
  /** Legacy create: an OR of 0x1/0x2/0x4/0x8, or 0x10 or 0x20 alone (docs/acl-contract.md section 4). */
  createEventWithFlag(flag: number): Event;
  /**
   * "New mode" event: it refuses `reset`, `query` and `queryWaitStatus` with 207000, as CANN does;
   * use `queryStatus`, or `createEventWithFlag(EventFlag.SYNC)` for an event you want to reset.
   */
  createEventExWithFlag(flag: number): Event;
  /** createEventExWithFlag(EventFlag.IPC). */
  createIpcEvent(): Event;
  openIpcEvent(handle: IpcEventHandle): Event;
  /** aclrtMalloc on the current device (the stub rounds up to whole pages). */
  malloc(bytes: number): DeviceBuffer;
  /** aclrtIpcMemImportByKey: the exporter's memory at a new address here. `bytes` is the exporter's size. */
  importMemory(key: string, bytes: number, opts?: { peerAccess?: boolean }): DeviceBuffer;
  /** aclrtCreateNotify on the current device (flag 0 or NotifyFlag.DEVICE_USE_ONLY). */
  createNotify(flag?: number): Notify;
  /** aclrtNotifyImportByKey. */
  importNotify(key: string, opts?: { peerAccess?: boolean }): Notify;
  /** aclrtDeviceGetBareTgid: the pid an exporter puts on its whitelist for this process. */
  bareTgid(): number;
  /** Virtual memory management: physical handles, reservations, mappings, shareable handles (vmm.ts). */
  readonly vmm: Vmm;
  /** aclrtDeviceCanAccessPeer. */
  canAccessPeer(deviceId: number, peerDeviceId: number): boolean;
  /**
   * aclrtSynchronizeDevice (no timeout) or aclrtSynchronizeDeviceWithTimeout (ms, -1 = forever): every
   * stream of the current context, default stream included. Appears in hang reports while it blocks.
   */
  synchronizeDevice(timeoutMs?: number): void;
  /** aclrtGetSocName: the SoC name (on the stub ACL_STUB_SOC_NAME), null when the runtime cannot tell. */
  socName(): string | null;
  /** aclrtDeviceEnablePeerAccess(peer, 0). */
  enablePeerAccess(peerDeviceId: number): void;
  /** CLOCK_MONOTONIC in ns from the helper library (comparable across processes and with C traces). */
  monotonicNs(): bigint;
  /**
   * The raw C functions (return codes, not exceptions), for tests of misuse the typed API
   * refuses to express, such as NULL output pointers. Never pass a pointer you did not get from C.
   */
  readonly raw: AclFunctions;
}

/**
 * An ACL context handle (aclrtContext, from acl.createContext / currentContext): a device, plus the
 * streams created while it was current. Not a role or scenario context (those are `ctx`).
 */
export interface AclContext {
  readonly device: number;
  readonly destroyed: boolean;
  /** aclrtDestroyContext; a device's primary context (setDevice) is refused with 107002: reset the device. */
  destroy(): void;
  [Symbol.dispose](): void;
}

export interface Stream {
  /** Device that was current on this thread when the stream was created. */
  readonly device: number;
  readonly destroyed: boolean;
  readonly isDefault: boolean;
  /** No timeout -> aclrtSynchronizeStream; otherwise aclrtSynchronizeStreamWithTimeout (ms, -1 = forever). */
  synchronize(timeoutMs?: number): void;
  /**
   * No timeout -> aclrtStreamWaitEvent; otherwise aclrtStreamWaitEventWithTimeout, whose timeout
   * is in **seconds** (0 = never), unlike the synchronizes' milliseconds.
   */
  waitEvent(ev: Event, timeoutSeconds?: number): void;
  /** Enqueue a native host function that sleeps `ms` on the runtime thread. */
  hold(ms: number): void;
  /** Enqueue a native host function that blocks the stream until `release()`. */
  latch(): Latch;
  /** aclrtStreamQuery: whether every task submitted so far has run. */
  query(): 'complete' | 'notReady';
  /** aclrtStreamGetId. */
  id(): number;
  /**
   * What the stream's executor does now (the stub's `cannstub_stream_blocked`, a stub-only call):
   * 'wait' while it sleeps in a wait whose record is still pending, 'hostFunction' while it runs a
   * host function (a latch blocks there), 'other' otherwise (idle, its next task not taken yet, or a
   * task running that ends by itself); 'unknown' with a library that cannot tell (real CANN).
   */
  executorState(): 'wait' | 'hostFunction' | 'other' | 'unknown';
  /** aclrtValueWrite: a task storing the 64-bit `value` at `buffer` + `offset` (8-byte aligned). */
  valueWrite(buffer: DeviceBuffer, offset: number, value: bigint): void;
  /**
   * aclrtValueWait: a task that holds the stream until the 64-bit word at `buffer` + `offset` meets
   * `flag` (ValueWaitFlag; default GEQ: (int64)(word - value) >= 0), written by any stream or process.
   */
  valueWait(buffer: DeviceBuffer, offset: number, value: bigint, flag?: number): void;
  destroy(): void;
  [Symbol.dispose](): void;
}

export interface Latch {
  /** Unblocks the stream. Idempotent. */
  release(): void;
  readonly released: boolean;
  [Symbol.dispose](): void;
}

export interface Event {
  readonly isIpc: boolean;
  readonly device: number;
  readonly destroyed: boolean;
  /** The default stream when omitted. */
  record(stream?: Stream): void;
  /** 207000 on events of createEventExWithFlag and on events without EventFlag.SYNC (no wait task). */
  reset(stream?: Stream): void;
  queryStatus(): EventRecordedStatus;
  /** Deprecated in CANN; 207000 on events of createEventExWithFlag (IPC included). */
  query(): EventStatus;
  /** 207000 on events of createEventExWithFlag (IPC included). */
  queryWaitStatus(): EventWaitStatus;
  synchronize(timeoutMs?: number): void;
  /** Milliseconds from this event to `end` (aclrtEventElapsedTime). */
  elapsedTime(end: Event): number;
  timestamp(): bigint;
  id(): number;
  ipcHandle(): IpcEventHandle;
  destroy(): void;
  [Symbol.dispose](): void;
}

/** Device memory: this process's aclrtMalloc memory, or an IPC import of another process's. */
export interface DeviceBuffer {
  readonly bytes: number;
  readonly device: number;
  readonly imported: boolean;
  /** The key it was imported from (null for own memory). */
  readonly importKey: string | null;
  /** The key of its live export (null when not exported or closed). */
  readonly exportedKey: string | null;
  /** The device address (refused after free/close). */
  readonly address: bigint;
  readonly destroyed: boolean;
  /** Synchronous aclrtMemcpy host -> device at offset. */
  write(data: Uint8Array, offset?: number): void;
  /** Synchronous aclrtMemcpy device -> host (default: everything from offset). */
  read(length?: number, offset?: number): Uint8Array;
  /**
   * aclrtMemcpyAsync device -> host into a new pageable (JavaScript) array, on the stream (default
   * stream if omitted). Pageable memory makes the copy synchronous on CANN with a driver that
   * reports it, and on the stub unless ACL_STUB_PAGEABLE=async: the call returns after everything
   * queued before it on the stream and the copy itself. Otherwise the array is filled when the
   * stream reaches the copy.
   */
  readAsync(stream?: Stream, length?: number, offset?: number): Uint8Array;
  /** Synchronous aclrtMemset of each byte to value (0..255); it does not wait for any stream. */
  fillSync(value: number, offset?: number, length?: number): void;
  /** aclrtMemsetAsync of each byte to value (0..255) on the stream (default stream if omitted). */
  fill(value: number, stream?: Stream, offset?: number, length?: number): void;
  /** aclrtMemcpyAsync device -> device from src on the stream. */
  copyFrom(src: DeviceBuffer, stream?: Stream, length?: number): void;
  /** aclrtIpcMemGetExportKey of the whole (page-rounded) buffer; pidValidation defaults to true. */
  exportKey(opts?: { pidValidation?: boolean }): string;
  /** aclrtIpcMemSetImportPid on the export's key. */
  allowImporters(pids: number[]): void;
  /** Exporter side aclrtIpcMemClose: later imports fail, existing ones keep working. */
  closeExport(): void;
  /** aclrtFree (own memory) or aclrtIpcMemClose (an import). */
  free(): void;
  destroy(): void;
  [Symbol.dispose](): void;
}

/** A notify: one record releases one aclrtWaitAndResetNotify. */
export interface Notify {
  readonly imported: boolean;
  readonly device: number;
  readonly destroyed: boolean;
  record(stream?: Stream): void;
  /** Timeout in seconds, 0 = forever. Waits only on the creator's device. */
  waitAndReset(stream?: Stream, timeoutS?: number): void;
  /** aclrtNotifyGetExportKey (once per notify); pidValidation defaults to true. */
  exportKey(opts?: { pidValidation?: boolean }): string;
  /** aclrtNotifySetImportPid. */
  allowImporters(pids: number[]): void;
  destroy(): void;
  [Symbol.dispose](): void;
}

/** A physical memory handle of this process (aclrtDrvMemHandle). */
export type PhysicalHandle = bigint & { readonly __physicalHandle: true };

/** A fabric shareable handle (aclrtMemFabricHandle, 128 bytes). */
export type FabricHandle = Uint8Array;

/** The VMM calls one to one (vmm.ts). */
export interface VmmCalls {
  /** aclrtMemGetAllocationGranularity for device memory of memAttr (default HBM_MEM_NORMAL). */
  granularity(device: number, opts?: { memAttr?: number; recommended?: boolean }): number;
  /** aclrtMallocPhysical on device (memAttr default HBM_MEM_NORMAL). */
  mallocPhysical(bytes: number, device: number, opts?: { memAttr?: number }): PhysicalHandle;
  /** aclrtFreePhysical. */
  freePhysical(handle: PhysicalHandle): void;
  /** aclrtReserveMemAddress (at: a fixed address in [16T, 24T), default anywhere). */
  reserve(bytes: number, opts?: { at?: bigint }): bigint;
  /** aclrtReleaseMemAddress. */
  release(address: bigint): void;
  /** aclrtMapMem(address, bytes, 0, handle, 0). */
  map(address: bigint, bytes: number, handle: PhysicalHandle): void;
  /** aclrtUnmapMem: on the stub, returns once the copies queued on the reservation ran (hang reports name it). */
  unmap(address: bigint): void;
  /** aclrtMemSetAccess with one descriptor: device, flags (default READWRITE). */
  setAccess(address: bigint, bytes: number, device: number, flags?: number): void;
  /** aclrtMemRetainAllocationHandle: the mapping's handle, one more free to call. */
  retain(address: bigint): PhysicalHandle;
  /** aclrtMemGetAddressRange: the block that holds address. */
  addressRange(address: bigint): { base: bigint; bytes: number };
  /** aclrtMemExportToShareableHandle (pidValidation default true). */
  exportHandle(handle: PhysicalHandle, opts?: { pidValidation?: boolean }): bigint;
  /** aclrtMemExportToShareableHandleV2 with ACL_MEM_SHARE_HANDLE_TYPE_FABRIC. */
  exportFabric(handle: PhysicalHandle, opts?: { pidValidation?: boolean }): FabricHandle;
  /** aclrtMemSetPidToShareableHandle(V2): pids are bare tgids (Acl.bareTgid of the importers). */
  setPids(shareable: bigint | FabricHandle, pids: number[]): void;
  /** aclrtMemImportFromShareableHandle (a bigint) on device, or V2 (a fabric handle) on the current device. */
  importHandle(shareable: bigint | FabricHandle, device?: number): PhysicalHandle;
  /** aclrtMemcpy host to device / device to host at a mapped address. */
  write(address: bigint, data: Uint8Array): void;
  read(address: bigint, length: number): Uint8Array;
}

export interface Vmm extends VmmCalls {
  /**
   * Physical memory of `bytes` rounded up to the granularity, on the current device, reserved,
   * mapped and made read-write here (vmm-buffer.ts); free() unmaps, releases and frees it.
   */
  allocMapped(bytes: number): MappedBuffer;
  /**
   * aclrtMemImportFromShareableHandle on the current device, then reserve, map and set access
   * here; `bytes` is the exporter's size (mapped rounded up to the granularity).
   */
  importMapped(shareable: bigint, bytes: number): MappedBuffer;
}

/**
 * VMM memory mapped in this process, used like any DeviceBuffer (copies, memsets, reads, copyFrom
 * between it and aclrtMalloc memory). It is shared by a shareable handle, not an IPC key:
 * exportKey() and closeExport() refuse and name exportHandle().
 */
export interface MappedBuffer extends DeviceBuffer {
  /** This process's physical handle (its allocation, or its import). */
  readonly physical: PhysicalHandle;
  /** The mapping's size: bytes rounded up to the allocation granularity. */
  readonly mappedBytes: number;
  /** The shareable handle it was imported from (null for memory allocated here). */
  readonly importedFrom: bigint | null;
  /** The shareable handle of its export (null before exportHandle()). */
  readonly shareableHandle: bigint | null;
  /** aclrtMemExportToShareableHandle (once; later calls return the same handle). pidValidation defaults to true. */
  exportHandle(opts?: { pidValidation?: boolean }): bigint;
  /** aclrtMemSetPidToShareableHandle on its export: pids are the importers' bare tgids. */
  allowImporters(pids: number[]): void;
}
