/**
 * koffi declarations of the ACL subset (docs/acl-contract.md section 3) and of the hold/latch
 * helper library. This is the only file that imports koffi.
 *
 * Why koffi (and so libascendcl) is only ever loaded in device processes, never in Jest's workers
 * or the orchestrator:
 *  - A native fault (a bad pointer, an abort inside the runtime) kills the whole process. In a
 *    throwaway device process it becomes one failed role with an exit signal; in a Jest worker it
 *    would take down every test in that worker and lose their results.
 *  - The runtime owns threads (one executor per stream, host-function threads) and process-wide
 *    state (aclInit is once per process, devices are bound per thread). Jest reuses workers across
 *    test files, so that state would leak from one test file into the next.
 * Each worker thread that uses ACL loads its own koffi instance (a Node-API addon is per isolate)
 * and its own function table; dlopen returns the same library, so runtime state stays per process.
 *
 * Host functions: aclrtLaunchHostFunc gets the address of a native C function from
 * libcannharness_hold.so (found with lib.symbol), never a koffi-registered JavaScript callback:
 * the runtime calls it on its own thread, where running JavaScript would be unsafe.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type * as KoffiModule from 'koffi';
import { IPC_EVENT_HANDLE_SIZE } from './enums';

assertNotInsideJest();

const koffi = loadKoffi();

/**
 * koffi's native module. koffi's entry (index.cjs) finds the prebuilt binary of this platform in its
 * per-platform package and wraps deprecated aliases around it (none of which we use), for about
 * 15 ms of CPU and 170 page faults per device process (its ESM interop copying node:fs and
 * node:util, an ELF read of the node binary to tell glibc from musl). On Linux this loads the glibc
 * binary that entry picks there, when it is of koffi's own version (what koffi checks too); anything
 * else (musl, where that binary does not load; another layout or version) goes through koffi's entry.
 */
function loadKoffi(): typeof KoffiModule {
  if (process.platform === 'linux') {
    try {
      const entry = require.resolve('koffi');
      const { version } = JSON.parse(fs.readFileSync(path.join(path.dirname(entry), 'package.json'), 'utf8')) as { version: string };
      const native = createRequire(entry)(`@koromix/koffi-linux-${process.arch}/linux_${process.arch}/koffi.node`) as typeof KoffiModule & { version?: string };
      if (native.version === version) return native;
    } catch {
      /* koffi's entry below */
    }
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('koffi') as typeof KoffiModule;
}

/*
 * Pinning: keeps a runtime library mapped until the process ends.
 *
 * koffi unloads (dlclose) its libraries when Node frees its environment at exit, and that comes
 * before exit() runs the libraries' own clean-up. The runtime's stream threads may still be running
 * code of libascendcl or of the hold library then (a host function, or a latch released by the exit
 * hook), and would return into unmapped memory: SIGSEGV at exit, about 1 run in 25 under load
 * (test/acl/hold-latch.test.ts makes it certain). A runtime lives as long as its process, so
 * dlopen(RTLD_NOLOAD | RTLD_NODELETE) marks the already loaded library never to be unloaded,
 * as `-z nodelete` would at link time; it works for real CANN's library too.
 */
// <dlfcn.h> on Linux (glibc and musl).
const RTLD_NOW = 0x2;
const RTLD_NOLOAD = 0x4;
const RTLD_NODELETE = 0x1000;

type DlOpen = (file: string, flags: number) => unknown;
let dlopen: DlOpen | null | undefined;

function dlopenFunction(): DlOpen | null {
  if (dlopen !== undefined) return dlopen;
  dlopen = null;
  // libdl.so.2 resolves dlopen on every glibc (before 2.34 it lives there; since, it forwards to libc).
  for (const name of ['libdl.so.2', 'libc.so.6']) {
    try {
      dlopen = koffi.load(name).func('dlopen', 'void *', ['const char *', 'int']) as DlOpen;
      break;
    } catch {
      /* try the next name */
    }
  }
  return dlopen;
}

/**
 * Pins `file` (already loaded by koffi.load) for the life of the process. Returns false when it
 * could not: no dlopen found (musl never unloads libraries anyway) or the file is not loaded.
 */
export function pinLoadedLibrary(file: string): boolean {
  const open = dlopenFunction();
  if (!open) return false;
  return open(file, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) !== null;
}

/** Refuse to load native code inside a Jest worker (see the module comment). */
function assertNotInsideJest(): void {
  // JEST_WORKER_ID alone is not enough: it is inherited by every child Jest spawns (the orchestrator's
  // device processes must still load koffi). Jest's own processes also have its globals or entry point.
  const jestEntry = /[\\/]node_modules[\\/](jest-worker|jest|jest-cli|\.bin)[\\/]/.test(process.argv[1] ?? '');
  const jestGlobals = typeof (globalThis as { expect?: unknown }).expect === 'function';
  const inJestRuntime = process.env.JEST_WORKER_ID !== undefined && (jestGlobals || jestEntry);
  if (inJestRuntime) {
    throw new Error(
      'src/acl refuses to load koffi/libascendcl inside a Jest worker: a native crash would take Jest down and ' +
        'runtime threads would leak between test files. Run the code in a child process ' +
        '(test/support/run-child.ts, or the orchestrator) instead.',
    );
  }
}

/** An aclrtStream / aclrtEvent value: a C pointer as a BigInt, null for NULL. */
export type Ptr = bigint | null;

const IpcEventHandleStruct = koffi.struct({ reserved: koffi.array('uint8_t', IPC_EVENT_HANDLE_SIZE, 'Typed') });
const EventRecordedStatusT = koffi.enumeration({ NOT_READY: 0, COMPLETE: 1 });
const EventStatusT = koffi.enumeration({ COMPLETE: 0, NOT_READY: 1, RESERVED: 2 });
const EventWaitStatusT = koffi.enumeration({ COMPLETE: 0, NOT_READY: 1, RESERVED: 0xffff });

type TypeSpec = KoffiModule.TypeObject | string;
const out = (t: TypeSpec) => koffi.out(koffi.pointer(t));
const voidPtr = 'void *';
const voidPtrOut = out(voidPtr);

/** Raw C entry points. Output parameters are one-element arrays (or typed arrays / objects). */
export interface AclFunctions {
  aclInit(configPath: string | null): number;
  aclFinalize(): number;
  aclGetRecentErrMsg(): string | null;
  aclrtSetDevice(deviceId: number): number;
  aclrtResetDevice(deviceId: number): number;
  aclrtResetDeviceForce(deviceId: number): number;
  aclrtGetDevice(deviceId: [number] | null): number;
  aclrtGetDeviceCount(count: [number] | null): number;
  aclrtCreateContext(context: [Ptr] | null, deviceId: number): number;
  aclrtDestroyContext(context: Ptr): number;
  aclrtSetCurrentContext(context: Ptr): number;
  aclrtGetCurrentContext(context: [Ptr] | null): number;
  aclrtCreateStream(stream: [Ptr] | null): number;
  aclrtDestroyStream(stream: Ptr): number;
  aclrtSynchronizeStream(stream: Ptr): number;
  aclrtSynchronizeStreamWithTimeout(stream: Ptr, timeout: number): number;
  aclrtStreamWaitEvent(stream: Ptr, event: Ptr): number;
  aclrtStreamWaitEventWithTimeout(stream: Ptr, event: Ptr, timeout: number): number;
  aclrtCreateEvent(event: [Ptr] | null): number;
  aclrtCreateEventWithFlag(event: [Ptr] | null, flag: number): number;
  aclrtCreateEventExWithFlag(event: [Ptr] | null, flag: number): number;
  aclrtDestroyEvent(event: Ptr): number;
  aclrtRecordEvent(event: Ptr, stream: Ptr): number;
  aclrtResetEvent(event: Ptr, stream: Ptr): number;
  aclrtQueryEvent(event: Ptr, status: [number] | null): number;
  aclrtQueryEventStatus(event: Ptr, status: [number] | null): number;
  aclrtQueryEventWaitStatus(event: Ptr, status: [number] | null): number;
  aclrtSynchronizeEvent(event: Ptr): number;
  aclrtSynchronizeEventWithTimeout(event: Ptr, timeout: number): number;
  aclrtEventElapsedTime(ms: [number] | null, start: Ptr, end: Ptr): number;
  aclrtEventGetTimestamp(event: Ptr, timestamp: BigUint64Array | null): number;
  aclrtGetEventId(event: Ptr, eventId: [number] | null): number;
  aclrtSetOpWaitTimeout(timeout: number): number;
  aclrtIpcGetEventHandle(event: Ptr, handle: { reserved?: Uint8Array } | null): number;
  aclrtIpcOpenEventHandle(handle: { reserved: Uint8Array }, event: [Ptr] | null): number;
  /** fn is the address of a native `void fn(void *)`; args is passed through as a pointer value. */
  aclrtLaunchHostFunc(stream: Ptr, fn: bigint, args: Ptr): number;
  // Memory, IPC memory, notify, peer access (docs/acl-contract.md section 8). Pointer parameters
  // take a device address (bigint) or a typed array (koffi passes its memory).
  aclrtMalloc(devPtr: [Ptr] | null, size: number, policy: number): number;
  aclrtFree(devPtr: Ptr): number;
  aclrtMallocHost(hostPtr: [Ptr] | null, size: number): number;
  aclrtFreeHost(hostPtr: Ptr): number;
  aclrtMemcpy(dst: Ptr | Uint8Array, destMax: number, src: Ptr | Uint8Array, count: number, kind: number): number;
  aclrtMemcpyAsync(dst: Ptr | Uint8Array, destMax: number, src: Ptr | Uint8Array, count: number, kind: number, stream: Ptr): number;
  aclrtMemset(devPtr: Ptr, maxCount: number, value: number, count: number): number;
  aclrtMemsetAsync(devPtr: Ptr, maxCount: number, value: number, count: number, stream: Ptr): number;
  aclrtDestroyStreamForce(stream: Ptr): number;
  aclrtDeviceCanAccessPeer(canAccessPeer: [number] | null, deviceId: number, peerDeviceId: number): number;
  aclrtDeviceEnablePeerAccess(peerDeviceId: number, flags: number): number;
  aclrtDeviceGetBareTgid(pid: [number] | null): number;
  aclrtIpcMemGetExportKey(devPtr: Ptr, size: number, key: Uint8Array | null, len: number, flags: number): number;
  aclrtIpcMemClose(key: string | null): number;
  aclrtIpcMemImportByKey(devPtr: [Ptr] | null, key: string | null, flags: number): number;
  aclrtIpcMemSetImportPid(key: string | null, pid: Int32Array | null, num: number): number;
  aclrtCreateNotify(notify: [Ptr] | null, flag: number): number;
  aclrtDestroyNotify(notify: Ptr): number;
  aclrtRecordNotify(notify: Ptr, stream: Ptr): number;
  aclrtWaitAndResetNotify(notify: Ptr, stream: Ptr, timeout: number): number;
  aclrtNotifyGetExportKey(notify: Ptr, key: Uint8Array | null, len: number, flags: number): number;
  aclrtNotifyImportByKey(notify: [Ptr] | null, key: string | null, flags: number): number;
  aclrtNotifySetImportPid(notify: Ptr, pid: Int32Array | null, num: number): number;
  // Streams and devices of issue 31 (docs/acl-contract.md section 11).
  aclrtSynchronizeDevice(): number;
  aclrtSynchronizeDeviceWithTimeout(timeout: number): number;
  aclrtStreamQuery(stream: Ptr, status: [number] | null): number;
  aclrtStreamGetId(stream: Ptr, streamId: [number] | null): number;
  aclrtValueWrite(devAddr: Ptr, value: bigint, flag: number, stream: Ptr): number;
  aclrtValueWait(devAddr: Ptr, value: bigint, flag: number, stream: Ptr): number;
  aclrtGetSocName(): string | null;
  // Virtual memory management (docs/acl-contract.md section 12). Structs (aclrtPhysicalMemProp,
  // aclrtMemAccessDesc, aclrtMemFabricHandle) are passed as byte arrays laid out by vmm.ts.
  aclrtMemGetAllocationGranularity(prop: Uint8Array | null, option: number, granularity: [number] | null): number;
  aclrtMallocPhysical(handle: [Ptr] | null, size: number, prop: Uint8Array | null, flags: number): number;
  aclrtFreePhysical(handle: Ptr): number;
  aclrtReserveMemAddress(virPtr: [Ptr] | null, size: number, alignment: number, expectPtr: Ptr, flags: number): number;
  aclrtReserveMemAddressNoUCMemory(virPtr: [Ptr] | null, size: number, alignment: number, expectPtr: Ptr, flags: number): number;
  aclrtReleaseMemAddress(virPtr: Ptr): number;
  aclrtMapMem(virPtr: Ptr, size: number, offset: number, handle: Ptr, flags: number): number;
  aclrtUnmapMem(virPtr: Ptr): number;
  aclrtMemSetAccess(virPtr: Ptr, size: number, desc: Uint8Array | null, count: number): number;
  aclrtMemRetainAllocationHandle(virPtr: Ptr, handle: [Ptr] | null): number;
  aclrtMemGetAddressRange(ptr: Ptr, pbase: [Ptr] | null, psize: [number] | null): number;
  aclrtMemExportToShareableHandle(handle: Ptr, handleType: number, flags: number | bigint, shareableHandle: BigUint64Array | null): number;
  aclrtMemExportToShareableHandleV2(handle: Ptr, flags: number | bigint, shareType: number, shareableHandle: Uint8Array | null): number;
  aclrtMemImportFromShareableHandle(shareableHandle: bigint, deviceId: number, handle: [Ptr] | null): number;
  aclrtMemImportFromShareableHandleV2(shareableHandle: Uint8Array | null, shareType: number, flags: number, handle: [Ptr] | null): number;
  aclrtMemSetPidToShareableHandle(shareableHandle: bigint, pid: Int32Array | null, pidNum: number): number;
  aclrtMemSetPidToShareableHandleV2(shareableHandle: Uint8Array | null, shareType: number, pid: Int32Array | null, pidNum: number): number;
  /** Stub-only, `cannstub_stream_blocked` (include/cannstub/live_view.h); null in a library without it (real CANN). */
  cannstubStreamBlocked: ((stream: Ptr) => number) | null;
}

export interface LoadedAcl {
  fns: AclFunctions;
  close(): void;
}

/** dlopen the library and declare every function of the subset. Throws koffi's dlopen error. */
export function loadAclLibrary(file: string): LoadedAcl {
  const lib = koffi.load(file);
  pinLoadedLibrary(file); // its threads may outlive Node's environment at exit (pinLoadedLibrary)
  const f = (name: string, args: (TypeSpec | ReturnType<typeof koffi.out>)[], result: TypeSpec = 'int') =>
    lib.func(name, result, args);
  // Memory / IPC memory / notify calls came later in CANN than the event calls: an older runtime
  // without them still loads, and only a call of a missing function fails, saying so.
  const optional = (name: string, args: (TypeSpec | ReturnType<typeof koffi.out>)[]) => {
    try {
      return f(name, args);
    } catch {
      return () => {
        throw new Error(`${file} does not export ${name}: this CANN runtime is too old for device memory, IPC memory, notify or VMM scenarios`);
      };
    }
  };
  const optionalReturning = (name: string, args: (TypeSpec | ReturnType<typeof koffi.out>)[], result: TypeSpec) => {
    try {
      return f(name, args, result);
    } catch {
      return () => {
        throw new Error(`${file} does not export ${name}: this CANN runtime is too old for it`);
      };
    }
  };
  // The stub's own extensions (docs/acl-contract.md section 7): null where the library has none.
  const stubOnly = (name: string, args: (TypeSpec | ReturnType<typeof koffi.out>)[]) => {
    try {
      return f(name, args);
    } catch {
      return null;
    }
  };
  const fns = {
    aclInit: f('aclInit', ['const char *']),
    aclFinalize: f('aclFinalize', []),
    aclGetRecentErrMsg: f('aclGetRecentErrMsg', [], 'const char *'),
    aclrtSetDevice: f('aclrtSetDevice', ['int32_t']),
    aclrtResetDevice: f('aclrtResetDevice', ['int32_t']),
    aclrtResetDeviceForce: f('aclrtResetDeviceForce', ['int32_t']),
    aclrtGetDevice: f('aclrtGetDevice', [out('int32_t')]),
    aclrtGetDeviceCount: f('aclrtGetDeviceCount', [out('uint32_t')]),
    aclrtCreateContext: f('aclrtCreateContext', [voidPtrOut, 'int32_t']),
    aclrtDestroyContext: f('aclrtDestroyContext', [voidPtr]),
    aclrtSetCurrentContext: f('aclrtSetCurrentContext', [voidPtr]),
    aclrtGetCurrentContext: f('aclrtGetCurrentContext', [voidPtrOut]),
    aclrtCreateStream: f('aclrtCreateStream', [voidPtrOut]),
    aclrtDestroyStream: f('aclrtDestroyStream', [voidPtr]),
    aclrtSynchronizeStream: f('aclrtSynchronizeStream', [voidPtr]),
    aclrtSynchronizeStreamWithTimeout: f('aclrtSynchronizeStreamWithTimeout', [voidPtr, 'int32_t']),
    aclrtStreamWaitEvent: f('aclrtStreamWaitEvent', [voidPtr, voidPtr]),
    aclrtStreamWaitEventWithTimeout: f('aclrtStreamWaitEventWithTimeout', [voidPtr, voidPtr, 'int32_t']),
    aclrtCreateEvent: f('aclrtCreateEvent', [voidPtrOut]),
    aclrtCreateEventWithFlag: f('aclrtCreateEventWithFlag', [voidPtrOut, 'uint32_t']),
    aclrtCreateEventExWithFlag: f('aclrtCreateEventExWithFlag', [voidPtrOut, 'uint32_t']),
    aclrtDestroyEvent: f('aclrtDestroyEvent', [voidPtr]),
    aclrtRecordEvent: f('aclrtRecordEvent', [voidPtr, voidPtr]),
    aclrtResetEvent: f('aclrtResetEvent', [voidPtr, voidPtr]),
    aclrtQueryEvent: f('aclrtQueryEvent', [voidPtr, out(EventStatusT)]),
    aclrtQueryEventStatus: f('aclrtQueryEventStatus', [voidPtr, out(EventRecordedStatusT)]),
    aclrtQueryEventWaitStatus: f('aclrtQueryEventWaitStatus', [voidPtr, out(EventWaitStatusT)]),
    aclrtSynchronizeEvent: f('aclrtSynchronizeEvent', [voidPtr]),
    aclrtSynchronizeEventWithTimeout: f('aclrtSynchronizeEventWithTimeout', [voidPtr, 'int32_t']),
    aclrtEventElapsedTime: f('aclrtEventElapsedTime', [out('float'), voidPtr, voidPtr]),
    // A typed array is passed as a pointer to its memory; reading it back as BigUint64 keeps all 64 bits.
    aclrtEventGetTimestamp: f('aclrtEventGetTimestamp', [voidPtr, koffi.pointer('uint64_t')]),
    aclrtGetEventId: f('aclrtGetEventId', [voidPtr, out('uint32_t')]),
    aclrtSetOpWaitTimeout: f('aclrtSetOpWaitTimeout', ['uint32_t']),
    aclrtIpcGetEventHandle: f('aclrtIpcGetEventHandle', [voidPtr, out(IpcEventHandleStruct)]),
    // By value, as the real ABI requires: a 64-byte struct of uint8_t (a char array would be decoded as a string).
    aclrtIpcOpenEventHandle: f('aclrtIpcOpenEventHandle', [IpcEventHandleStruct, voidPtrOut]),
    // Declared with void * for fn: we only ever pass the address of a native function, never a JS callback.
    aclrtLaunchHostFunc: f('aclrtLaunchHostFunc', [voidPtr, voidPtr, voidPtr]),
    aclrtMalloc: optional('aclrtMalloc', [voidPtrOut, 'size_t', 'int']),
    aclrtFree: optional('aclrtFree', [voidPtr]),
    aclrtMallocHost: optional('aclrtMallocHost', [voidPtrOut, 'size_t']),
    aclrtFreeHost: optional('aclrtFreeHost', [voidPtr]),
    aclrtMemcpy: optional('aclrtMemcpy', [voidPtr, 'size_t', voidPtr, 'size_t', 'int']),
    aclrtMemcpyAsync: optional('aclrtMemcpyAsync', [voidPtr, 'size_t', voidPtr, 'size_t', 'int', voidPtr]),
    aclrtMemset: optional('aclrtMemset', [voidPtr, 'size_t', 'int32_t', 'size_t']),
    aclrtMemsetAsync: optional('aclrtMemsetAsync', [voidPtr, 'size_t', 'int32_t', 'size_t', voidPtr]),
    aclrtDestroyStreamForce: optional('aclrtDestroyStreamForce', [voidPtr]),
    aclrtDeviceCanAccessPeer: optional('aclrtDeviceCanAccessPeer', [out('int32_t'), 'int32_t', 'int32_t']),
    aclrtDeviceEnablePeerAccess: optional('aclrtDeviceEnablePeerAccess', ['int32_t', 'uint32_t']),
    aclrtDeviceGetBareTgid: optional('aclrtDeviceGetBareTgid', [out('int32_t')]),
    // Keys are written into a caller buffer (a Uint8Array, decoded by the caller) and read as C strings.
    aclrtIpcMemGetExportKey: optional('aclrtIpcMemGetExportKey', [voidPtr, 'size_t', voidPtr, 'size_t', 'uint64_t']),
    aclrtIpcMemClose: optional('aclrtIpcMemClose', ['const char *']),
    aclrtIpcMemImportByKey: optional('aclrtIpcMemImportByKey', [voidPtrOut, 'const char *', 'uint64_t']),
    aclrtIpcMemSetImportPid: optional('aclrtIpcMemSetImportPid', ['const char *', voidPtr, 'size_t']),
    aclrtCreateNotify: optional('aclrtCreateNotify', [voidPtrOut, 'uint64_t']),
    aclrtDestroyNotify: optional('aclrtDestroyNotify', [voidPtr]),
    aclrtRecordNotify: optional('aclrtRecordNotify', [voidPtr, voidPtr]),
    aclrtWaitAndResetNotify: optional('aclrtWaitAndResetNotify', [voidPtr, voidPtr, 'uint32_t']),
    aclrtNotifyGetExportKey: optional('aclrtNotifyGetExportKey', [voidPtr, voidPtr, 'size_t', 'uint64_t']),
    aclrtNotifyImportByKey: optional('aclrtNotifyImportByKey', [voidPtrOut, 'const char *', 'uint64_t']),
    aclrtNotifySetImportPid: optional('aclrtNotifySetImportPid', [voidPtr, voidPtr, 'size_t']),
    aclrtSynchronizeDevice: optional('aclrtSynchronizeDevice', []),
    aclrtSynchronizeDeviceWithTimeout: optional('aclrtSynchronizeDeviceWithTimeout', ['int32_t']),
    aclrtStreamQuery: optional('aclrtStreamQuery', [voidPtr, out('int')]),
    aclrtStreamGetId: optional('aclrtStreamGetId', [voidPtr, out('int32_t')]),
    aclrtValueWrite: optional('aclrtValueWrite', [voidPtr, 'uint64_t', 'uint32_t', voidPtr]),
    aclrtValueWait: optional('aclrtValueWait', [voidPtr, 'uint64_t', 'uint32_t', voidPtr]),
    aclrtGetSocName: optionalReturning('aclrtGetSocName', [], 'const char *'),
    aclrtMemGetAllocationGranularity: optional('aclrtMemGetAllocationGranularity', [voidPtr, 'int', out('size_t')]),
    aclrtMallocPhysical: optional('aclrtMallocPhysical', [voidPtrOut, 'size_t', voidPtr, 'uint64_t']),
    aclrtFreePhysical: optional('aclrtFreePhysical', [voidPtr]),
    aclrtReserveMemAddress: optional('aclrtReserveMemAddress', [voidPtrOut, 'size_t', 'size_t', voidPtr, 'uint64_t']),
    aclrtReserveMemAddressNoUCMemory: optional('aclrtReserveMemAddressNoUCMemory', [voidPtrOut, 'size_t', 'size_t', voidPtr, 'uint64_t']),
    aclrtReleaseMemAddress: optional('aclrtReleaseMemAddress', [voidPtr]),
    aclrtMapMem: optional('aclrtMapMem', [voidPtr, 'size_t', 'size_t', voidPtr, 'uint64_t']),
    aclrtUnmapMem: optional('aclrtUnmapMem', [voidPtr]),
    aclrtMemSetAccess: optional('aclrtMemSetAccess', [voidPtr, 'size_t', voidPtr, 'size_t']),
    aclrtMemRetainAllocationHandle: optional('aclrtMemRetainAllocationHandle', [voidPtr, voidPtrOut]),
    aclrtMemGetAddressRange: optional('aclrtMemGetAddressRange', [voidPtr, voidPtrOut, out('size_t')]),
    // The uint64_t output is a typed array (all 64 bits), as for aclrtEventGetTimestamp.
    aclrtMemExportToShareableHandle: optional('aclrtMemExportToShareableHandle', [voidPtr, 'int', 'uint64_t', koffi.pointer('uint64_t')]),
    aclrtMemExportToShareableHandleV2: optional('aclrtMemExportToShareableHandleV2', [voidPtr, 'uint64_t', 'int', voidPtr]),
    aclrtMemImportFromShareableHandle: optional('aclrtMemImportFromShareableHandle', ['uint64_t', 'int32_t', voidPtrOut]),
    aclrtMemImportFromShareableHandleV2: optional('aclrtMemImportFromShareableHandleV2', [voidPtr, 'int', 'uint64_t', voidPtrOut]),
    aclrtMemSetPidToShareableHandle: optional('aclrtMemSetPidToShareableHandle', ['uint64_t', voidPtr, 'size_t']),
    aclrtMemSetPidToShareableHandleV2: optional('aclrtMemSetPidToShareableHandleV2', [voidPtr, 'int', voidPtr, 'size_t']),
    cannstubStreamBlocked: stubOnly('cannstub_stream_blocked', [voidPtr]),
  } as unknown as AclFunctions;
  return { fns, close: () => lib.unload() };
}

/** libcannharness_hold.so: native host functions that hold a stream without running JavaScript. */
export interface HoldFunctions {
  /** Address of `void cannharness_sleep_ms(void *ms)` (ms encoded in the pointer value). */
  sleepMsFn: bigint;
  /** Address of `void cannharness_latch_wait(void *latch)`: blocks until the latch is released. */
  latchWaitFn: bigint;
  latchCreate(): Ptr;
  /** Direct call of the wait; only used to drop the wait's reference of a latch never enqueued. */
  latchWait(latch: bigint): void;
  latchRelease(latch: bigint): void;
  latchIsReleased(latch: bigint): number;
  latchDestroy(latch: bigint): void;
  monotonicNs(): bigint;
}

/**
 * `aclLibrary`: the loaded ACL library, whose schedule explorer (a stub's, when it explores) then
 * sees a stream held by a latch as blocked, not running (native-stub/harness/hold/hold.c).
 */
export function loadHoldLibrary(file: string, aclLibrary?: string): HoldFunctions {
  const lib = koffi.load(file);
  pinLoadedLibrary(file); // runtime threads run its host functions, up to the process's end (pinLoadedLibrary)
  if (aclLibrary !== undefined && lib.symbol('cannharness_explore_attach')) {
    lib.func('cannharness_explore_attach', 'int', ['str'])(aclLibrary);
  }
  const symbol = (name: string): bigint => {
    const address = lib.symbol(name) as bigint | null;
    if (!address) throw new Error(`${file} does not export ${name}; rebuild it with \`npm run build:stub\``);
    return address;
  };
  const monotonic = lib.func('cannharness_monotonic_ns', 'uint64_t', []);
  return {
    sleepMsFn: symbol('cannharness_sleep_ms'),
    latchWaitFn: symbol('cannharness_latch_wait'),
    latchCreate: lib.func('cannharness_latch_create', voidPtr, []) as () => Ptr,
    latchWait: lib.func('cannharness_latch_wait', 'void', [voidPtr]) as (l: bigint) => void,
    latchRelease: lib.func('cannharness_latch_release', 'void', [voidPtr]) as (l: bigint) => void,
    latchIsReleased: lib.func('cannharness_latch_is_released', 'int', [voidPtr]) as (l: bigint) => number,
    latchDestroy: lib.func('cannharness_latch_destroy', 'void', [voidPtr]) as (l: bigint) => void,
    monotonicNs: () => BigInt(monotonic() as number | bigint),
  };
}

/** The native watchdog of libcannharness_hold.so (native-stub/harness/hold/watch.h). */
export interface WatchFunctions {
  /** 0, or a negated errno: -EALREADY (one already runs), -EINVAL, -ENAMETOOLONG, pthread_create's error. */
  start(expectedParent: number, dir: string | null, keep: number, role: string | null): number;
  setLibrary(file: string): number;
  /** Address of the call-record table (slot 0 the main thread's, 1 + t worker thread t's). */
  callRecords(): bigint;
  callRecordsBytes(): number;
}

export function loadWatchLibrary(file: string): WatchFunctions {
  const lib = koffi.load(file);
  pinLoadedLibrary(file); // the watchdog thread runs its code until the process ends (pinLoadedLibrary)
  const f = (name: string, result: TypeSpec, args: TypeSpec[]) => {
    try {
      return lib.func(name, result, args);
    } catch {
      throw new Error(`${file} does not export ${name} (a library older than the native watchdog); rebuild it with \`npm run build:stub\``);
    }
  };
  const start = f('cannharness_watch_start', 'int', ['int', 'const char *', 'int', 'const char *']);
  const setLibrary = f('cannharness_watch_set_library', 'int', ['const char *']);
  const callRecords = f('cannharness_call_records', voidPtr, []);
  const callRecordsBytes = f('cannharness_call_records_bytes', 'size_t', []);
  return {
    start: (ppid, dir, keep, role) => start(ppid, dir, keep, role) as number,
    setLibrary: (path) => setLibrary(path) as number,
    callRecords: () => BigInt(callRecords() as bigint),
    callRecordsBytes: () => Number(callRecordsBytes() as number | bigint),
  };
}

/** An ArrayBuffer over `bytes` of native memory at `address` (memory that outlives every view of it). */
export function mapNativeMemory(address: bigint, bytes: number): ArrayBuffer {
  return koffi.view(address, bytes) as ArrayBuffer;
}

/** The round barrier of libcannharness_hold.so (native-stub/harness/hold/barrier.h). */
export interface BarrierFunctions {
  /** The mapping, or 0n (errno is lost through koffi: the caller checks the file itself for the message). */
  attach(path: string): bigint;
  parties(barrier: bigint): number;
  /** 0, -ETIMEDOUT, -EPIPE (broken), -EPROTO (another party brought another tag: see mismatch). `tag` 0: unchecked. */
  wait(barrier: bigint, tag: number, party: number, timeoutMs: number): number;
  /** As wait, but every other party stays in the crossing until release. */
  hold(barrier: bigint, tag: number, party: number, timeoutMs: number): number;
  /** After a tag mismatch: [first arriver's tag, its party, the other tag, its party]; else null. */
  mismatch(barrier: bigint): [number, number, number, number] | null;
  release(barrier: bigint): void;
  breakIt(barrier: bigint, party: number): void;
  broken(barrier: bigint): number;
  detach(barrier: bigint): void;
}

export function loadBarrierLibrary(file: string): BarrierFunctions {
  const lib = koffi.load(file);
  pinLoadedLibrary(file);
  const f = (name: string, result: TypeSpec, args: TypeSpec[]) => {
    try {
      return lib.func(name, result, args);
    } catch {
      throw new Error(`${file} does not export ${name} (a library older than rounds); rebuild it with \`npm run build:stub\``);
    }
  };
  const attach = f('cannharness_barrier_attach', voidPtr, ['const char *']);
  const parties = f('cannharness_barrier_parties', 'int', [voidPtr]);
  const wait = f('cannharness_barrier_wait_tagged', 'int', [voidPtr, 'uint32_t', 'int', 'int']);
  const hold = f('cannharness_barrier_hold_tagged', 'int', [voidPtr, 'uint32_t', 'int', 'int']);
  const mismatch = f('cannharness_barrier_mismatch', 'int', [voidPtr, 'void *']);
  const release = f('cannharness_barrier_release', 'void', [voidPtr]);
  const breakIt = f('cannharness_barrier_break', 'void', [voidPtr, 'int']);
  const broken = f('cannharness_barrier_broken', 'int', [voidPtr]);
  const detach = f('cannharness_barrier_detach', 'void', [voidPtr]);
  return {
    attach: (path) => BigInt((attach(path) as bigint | number | null) ?? 0),
    parties: (b) => parties(b) as number,
    wait: (b, tag, party, ms) => wait(b, tag, party, ms) as number,
    hold: (b, tag, party, ms) => hold(b, tag, party, ms) as number,
    mismatch: (b) => {
      const out = new Uint32Array(4);
      return (mismatch(b, out) as number) === 1 ? [out[0], out[1], out[2], out[3]] : null;
    },
    release: (b) => void release(b),
    breakIt: (b, party) => void breakIt(b, party),
    broken: (b) => broken(b) as number,
    detach: (b) => void detach(b),
  };
}

/** `cannstub_jitter_reseed` of the stub (include/cannstub/jitter.h); null for a library without it (real CANN). */
export function loadJitterReseed(file: string): ((seed: number) => number) | null {
  const lib = koffi.load(file);
  try {
    const fn = lib.func('cannstub_jitter_reseed', 'int', ['unsigned long long']);
    return (seed) => fn(seed) as number;
  } catch {
    return null;
  }
}

/** The schedule explorer's functions of the stub (include/cannstub/explore.h); null for a library without them (real CANN, an older stub). */
export interface ExploreFunctions {
  enabled(): number;
  nameThread(name: string): number;
  point(what: string): number;
  block(what: string): number;
  leave(): number;
  round(round: number): number;
  /** The round's schedule text, or null when off. */
  schedule(): string | null;
  /** cannstub_explore_wake, if this stub has it (EXPLORE-CONTRACT request), else null. */
  wake: ((what: string) => number) | null;
  /** cannstub_explore_degraded: rounds so far with a degraded note, and the first one; null when off. */
  degraded(): ExploreDegraded | null;
}
/** Rounds of an explored run whose order was not fully controlled (a party left the explored points). */
export interface ExploreDegraded {
  rounds: number;
  firstRound: number;
  /** The first such round's note, e.g. "producer/main left the explored points after step 9 (running 61 ms since ...)". */
  first: string;
}
export function loadExploreFunctions(file: string): ExploreFunctions | null {
  const lib = koffi.load(file);
  let fns: ExploreFunctions;
  try {
    const enabled = lib.func('cannstub_explore_enabled', 'int', []);
    const nameThread = lib.func('cannstub_explore_name_thread', 'int', ['const char *']);
    const point = lib.func('cannstub_explore_point', 'int', ['const char *']);
    const block = lib.func('cannstub_explore_block', 'int', ['const char *']);
    const leave = lib.func('cannstub_explore_leave', 'int', []);
    const round = lib.func('cannstub_explore_round', 'int', ['unsigned long long']);
    const schedule = lib.func('cannstub_explore_schedule', 'long', ['_Out_ uint8_t *', 'unsigned long']);
    const degraded = lib.func('cannstub_explore_degraded', 'long', ['_Out_ unsigned long long *', '_Out_ uint8_t *', 'unsigned long']);
    let wake: ((what: string) => number) | null = null;
    try {
      const w = lib.func('cannstub_explore_wake', 'int', ['const char *']);
      wake = (what) => w(what) as number;
    } catch {
      wake = null;
    }
    fns = {
      enabled: () => enabled() as number,
      nameThread: (name) => nameThread(name) as number,
      point: (what) => point(what) as number,
      block: (what) => block(what) as number,
      leave: () => leave() as number,
      round: (r) => round(r) as number,
      degraded: () => {
        const firstRound = [0];
        const note = Buffer.alloc(256);
        const n = Number(degraded(firstRound, note, note.length));
        if (n < 0) return null;
        const end = note.indexOf(0);
        return { rounds: n, firstRound: Number(firstRound[0]), first: note.subarray(0, end < 0 ? note.length : end).toString('utf8') };
      },
      schedule: () => {
        let buf = Buffer.alloc(64 << 10);
        for (;;) {
          const n = Number(schedule(buf, buf.length));
          if (n < 0) return null;
          if (n < buf.length) return buf.subarray(0, n).toString('utf8');
          buf = Buffer.alloc(n + 1);
        }
      },
      wake,
    };
  } catch {
    return null;
  }
  return fns;
}
