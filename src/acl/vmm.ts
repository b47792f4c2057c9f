/**
 * Virtual memory management (docs/acl-contract.md section 12): physical memory handles, address
 * reservations, mappings and shareable handles, typed. Addresses and handles are bigints (the C
 * pointers); a wrong argument type or range is refused before C with a TypeError / RangeError,
 * and every ACL failure is an AclError naming the call and its arguments.
 *
 * The structs of the C API (aclrtPhysicalMemProp, aclrtMemAccessDesc) are laid out here as bytes,
 * in the host's byte order, as acl_rt.h defines them.
 */
import { endianness } from 'node:os';
import { recordCall } from './call-record';
import { checkInt, INT32_MAX, INT32_MIN } from './core';
import {
  MEM_FABRIC_HANDLE_SIZE,
  MemAccessFlags,
  MemAttr,
  MemcpyKind,
  MemGranularity,
  MemLocationType,
  MemSharedHandleType,
  VmmExportFlag,
} from './enums';
import type { AclFunctions, Ptr } from './native';
import type { FabricHandle, PhysicalHandle, VmmCalls } from './types';

/** What the VMM calls need from the runtime object (implemented by AclRuntime). */
export interface VmmRuntime {
  readonly raw: AclFunctions;
  check(rc: number, call: string, args: string): void;
}

const LE = endianness() === 'LE';
const MAX_BYTES = Number.MAX_SAFE_INTEGER;

function checkAddress(address: unknown, what: string): bigint {
  if (typeof address !== 'bigint' || address <= 0n || address >= 1n << 64n) {
    throw new TypeError(`${what} must be a non-zero address (a bigint), got ${String(address)}`);
  }
  return address;
}

function checkBytes(bytes: unknown, what: string): number {
  return checkInt(bytes as number, what, 1, MAX_BYTES);
}

function hex(v: bigint): string {
  return `0x${v.toString(16)}`;
}

/** aclrtPhysicalMemProp of device memory: handleType, allocationType, memAttr, location{id, type}, reserve. */
function physicalProp(device: number, memAttr: number): Uint8Array {
  const bytes = new Uint8Array(32);
  const v = new DataView(bytes.buffer);
  v.setInt32(0, 0, LE); // ACL_MEM_HANDLE_TYPE_NONE
  v.setInt32(4, 0, LE); // ACL_MEM_ALLOCATION_TYPE_PINNED
  v.setInt32(8, memAttr, LE);
  v.setUint32(12, device, LE);
  v.setInt32(16, MemLocationType.DEVICE, LE);
  return bytes;
}

/** aclrtMemAccessDesc: flags, location{id, type}, rsv[12]. */
function accessDesc(device: number, flags: number): Uint8Array {
  const bytes = new Uint8Array(24);
  const v = new DataView(bytes.buffer);
  v.setInt32(0, flags, LE);
  v.setUint32(4, device, LE);
  v.setInt32(8, MemLocationType.DEVICE, LE);
  return bytes;
}

function checkPids(pids: unknown, call: string): Int32Array {
  if (!Array.isArray(pids) || pids.length === 0 || !pids.every((p) => Number.isInteger(p) && p > 0 && p <= INT32_MAX)) {
    throw new TypeError(`${call}: pass a non-empty array of positive bare tgids (Acl.bareTgid), got ${JSON.stringify(pids)}`);
  }
  return Int32Array.from(pids as number[]);
}

function isFabric(shareable: unknown): shareable is FabricHandle {
  return shareable instanceof Uint8Array;
}

function checkFabric(f: FabricHandle, call: string): FabricHandle {
  if (f.length !== MEM_FABRIC_HANDLE_SIZE) {
    throw new TypeError(`${call}: a fabric handle is ${MEM_FABRIC_HANDLE_SIZE} bytes, got ${f.length}`);
  }
  return f;
}

function checkShareable(sh: unknown, call: string): bigint {
  if (typeof sh !== 'bigint' || sh < 0n || sh >= 1n << 64n) {
    throw new TypeError(`${call}: a shareable handle is a uint64 bigint, got ${String(sh)}`);
  }
  return sh;
}

export function createVmm(rt: VmmRuntime): VmmCalls {
  const call = <T>(name: string, args: string, fn: () => number, result: () => T): T => {
    rt.check(fn(), name, args);
    return result();
  };
  const ptrOut = (): [Ptr] => [null];
  const exportFlags = (opts?: { pidValidation?: boolean }) =>
    opts?.pidValidation === false ? VmmExportFlag.DISABLE_PID_VALIDATION : VmmExportFlag.DEFAULT;
  return {
    granularity(device, opts = {}) {
      const d = checkInt(device, 'device id', 0, INT32_MAX);
      const option = opts.recommended ? MemGranularity.RECOMMENDED : MemGranularity.MINIMUM;
      const g: [number] = [0];
      const attr = opts.memAttr ?? MemAttr.HBM_MEM_NORMAL;
      return call('aclrtMemGetAllocationGranularity', `prop={device ${d}, memAttr ${attr}}, option=${option}`,
        () => rt.raw.aclrtMemGetAllocationGranularity(physicalProp(d, attr), option, g), () => Number(g[0]));
    },
    mallocPhysical(bytes, device, opts = {}) {
      const size = checkBytes(bytes, 'aclrtMallocPhysical: size');
      const d = checkInt(device, 'device id', 0, INT32_MAX);
      const attr = opts.memAttr ?? MemAttr.HBM_MEM_NORMAL;
      const h = ptrOut();
      return call('aclrtMallocPhysical', `handle=&out, size=${size}, prop={device ${d}, memAttr ${attr}}, flags=0`,
        () => rt.raw.aclrtMallocPhysical(h, size, physicalProp(d, attr), 0), () => h[0] as PhysicalHandle);
    },
    freePhysical(handle) {
      const h = checkAddress(handle, 'aclrtFreePhysical: handle');
      call('aclrtFreePhysical', `handle=${hex(h)}`, () => rt.raw.aclrtFreePhysical(h), () => undefined);
    },
    reserve(bytes, opts = {}) {
      const size = checkBytes(bytes, 'aclrtReserveMemAddress: size');
      const at = opts.at === undefined ? null : checkAddress(opts.at, 'aclrtReserveMemAddress: at');
      const va = ptrOut();
      return call('aclrtReserveMemAddress', `virPtr=&out, size=${size}, alignment=0, expectPtr=${at === null ? 'NULL' : hex(at)}, flags=0`,
        () => rt.raw.aclrtReserveMemAddress(va, size, 0, at, 0), () => va[0] as bigint);
    },
    release(address) {
      const a = checkAddress(address, 'aclrtReleaseMemAddress: virPtr');
      call('aclrtReleaseMemAddress', `virPtr=${hex(a)}`, () => rt.raw.aclrtReleaseMemAddress(a), () => undefined);
    },
    map(address, bytes, handle) {
      const a = checkAddress(address, 'aclrtMapMem: virPtr');
      const size = checkBytes(bytes, 'aclrtMapMem: size');
      const h = checkAddress(handle, 'aclrtMapMem: handle');
      call('aclrtMapMem', `virPtr=${hex(a)}, size=${size}, offset=0, handle=${hex(h)}, flags=0`,
        () => rt.raw.aclrtMapMem(a, size, 0, h, 0), () => undefined);
    },
    unmap(address) {
      const a = checkAddress(address, 'aclrtUnmapMem: virPtr');
      const args = `virPtr=${hex(a)}`;
      // blocks on the stub until the queued copies on the reservation ran: a hang report names it
      call('aclrtUnmapMem', args, () => recordCall('aclrtUnmapMem', args, () => rt.raw.aclrtUnmapMem(a)), () => undefined);
    },
    setAccess(address, bytes, device, flags = MemAccessFlags.READWRITE) {
      const a = checkAddress(address, 'aclrtMemSetAccess: virPtr');
      const size = checkBytes(bytes, 'aclrtMemSetAccess: size');
      const d = checkInt(device, 'device id', 0, INT32_MAX);
      call('aclrtMemSetAccess', `virPtr=${hex(a)}, size=${size}, desc={flags ${flags}, device ${d}}, count=1`,
        () => rt.raw.aclrtMemSetAccess(a, size, accessDesc(d, flags), 1), () => undefined);
    },
    retain(address) {
      const a = checkAddress(address, 'aclrtMemRetainAllocationHandle: virPtr');
      const h = ptrOut();
      return call('aclrtMemRetainAllocationHandle', `virPtr=${hex(a)}, handle=&out`,
        () => rt.raw.aclrtMemRetainAllocationHandle(a, h), () => h[0] as PhysicalHandle);
    },
    addressRange(address) {
      const a = checkAddress(address, 'aclrtMemGetAddressRange: ptr');
      const base = ptrOut();
      const size: [number] = [0];
      return call('aclrtMemGetAddressRange', `ptr=${hex(a)}, pbase=&out, psize=&out`,
        () => rt.raw.aclrtMemGetAddressRange(a, base, size), () => ({ base: base[0] as bigint, bytes: Number(size[0]) }));
    },
    exportHandle(handle, opts) {
      const h = checkAddress(handle, 'aclrtMemExportToShareableHandle: handle');
      const out = new BigUint64Array(1);
      const flags = exportFlags(opts);
      return call('aclrtMemExportToShareableHandle', `handle=${hex(h)}, handleType=NONE, flags=${flags}, shareableHandle=&out`,
        () => rt.raw.aclrtMemExportToShareableHandle(h, 0, flags, out), () => out[0]);
    },
    exportFabric(handle, opts) {
      const h = checkAddress(handle, 'aclrtMemExportToShareableHandleV2: handle');
      const out = new Uint8Array(MEM_FABRIC_HANDLE_SIZE);
      const flags = exportFlags(opts);
      return call('aclrtMemExportToShareableHandleV2', `handle=${hex(h)}, flags=${flags}, shareType=FABRIC, shareableHandle=&out`,
        () => rt.raw.aclrtMemExportToShareableHandleV2(h, flags, MemSharedHandleType.FABRIC, out), () => out);
    },
    setPids(shareable, pids) {
      if (isFabric(shareable)) {
        const name = 'aclrtMemSetPidToShareableHandleV2';
        const f = checkFabric(shareable, name);
        const list = checkPids(pids, name);
        call(name, `shareableHandle=fabric, shareType=FABRIC, pid=[${list.join(',')}], pidNum=${list.length}`,
          () => rt.raw.aclrtMemSetPidToShareableHandleV2(f, MemSharedHandleType.FABRIC, list, list.length), () => undefined);
        return;
      }
      const name = 'aclrtMemSetPidToShareableHandle';
      const sh = checkShareable(shareable, name);
      const list = checkPids(pids, name);
      call(name, `shareableHandle=${hex(sh)}, pid=[${list.join(',')}], pidNum=${list.length}`,
        () => rt.raw.aclrtMemSetPidToShareableHandle(sh, list, list.length), () => undefined);
    },
    importHandle(shareable, device) {
      const h = ptrOut();
      if (isFabric(shareable)) {
        const name = 'aclrtMemImportFromShareableHandleV2';
        const f = checkFabric(shareable, name);
        return call(name, 'shareableHandle=fabric, shareType=FABRIC, flags=0, handle=&out',
          () => rt.raw.aclrtMemImportFromShareableHandleV2(f, MemSharedHandleType.FABRIC, 0, h), () => h[0] as PhysicalHandle);
      }
      const name = 'aclrtMemImportFromShareableHandle';
      const sh = checkShareable(shareable, name);
      const d = checkInt(device ?? 0, 'device id', INT32_MIN, INT32_MAX);
      return call(name, `shareableHandle=${hex(sh)}, deviceId=${d}, handle=&out`,
        () => rt.raw.aclrtMemImportFromShareableHandle(sh, d, h), () => h[0] as PhysicalHandle);
    },
    write(address, data) {
      const a = checkAddress(address, 'aclrtMemcpy: dst');
      if (!(data instanceof Uint8Array)) throw new TypeError(`write expects a Uint8Array, got ${typeof data}`);
      if (data.length === 0) return;
      call('aclrtMemcpy', `dst=${hex(a)}, src=host, count=${data.length}, kind=HOST_TO_DEVICE`,
        () => rt.raw.aclrtMemcpy(a, data.length, data, data.length, MemcpyKind.HOST_TO_DEVICE), () => undefined);
    },
    read(address, length) {
      const a = checkAddress(address, 'aclrtMemcpy: src');
      const out = new Uint8Array(checkInt(length, 'read length', 0, MAX_BYTES));
      if (out.length === 0) return out;
      return call('aclrtMemcpy', `dst=host, src=${hex(a)}, count=${out.length}, kind=DEVICE_TO_HOST`,
        () => rt.raw.aclrtMemcpy(out, out.length, a, out.length, MemcpyKind.DEVICE_TO_HOST), () => out);
    },
  };
}
