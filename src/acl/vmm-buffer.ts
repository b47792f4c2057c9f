/**
 * VMM memory as a DeviceBuffer (docs/acl-contract.md section 10): physical memory mapped at an
 * address range reserved in this process, either allocated here (allocMapped: granularity,
 * aclrtMallocPhysical, aclrtReserveMemAddress, aclrtMapMem, aclrtMemSetAccess) or imported from
 * another process's shareable handle (importMapped). Copies, memsets and reads work on it as on
 * aclrtMalloc memory (the stub treats a mapping as device memory of the handle's device), and
 * free() undoes the steps in reverse: unmap, release the addresses, free the physical handle.
 */
import { DeviceBufferImpl, type DataRuntime } from './data';
import { hex } from './owned';
import type { MappedBuffer, PhysicalHandle, Vmm } from './types';

function checkBytes(bytes: unknown, call: string): number {
  if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 1) {
    throw new RangeError(`${call}: bytes must be a whole number from 1, got ${String(bytes)}`);
  }
  return bytes;
}

function checkDevice(device: number, call: string): number {
  if (device < 0) throw new Error(`${call}: no current device on this thread: call setDevice first`);
  return device;
}

export class MappedBufferImpl extends DeviceBufferImpl implements MappedBuffer {
  #shareable: bigint | null = null;
  /** How far free() got: a step that failed is tried again by the next free(). */
  #undone: 'nothing' | 'unmapped' | 'released' = 'nothing';

  constructor(
    rt: DataRuntime,
    private readonly vmm: Vmm,
    address: bigint,
    bytes: number,
    readonly mappedBytes: number,
    device: number,
    readonly physical: PhysicalHandle,
    readonly importedFrom: bigint | null,
  ) {
    super(rt, address, bytes, device, null);
  }

  override get imported(): boolean {
    return this.importedFrom !== null;
  }

  get shareableHandle(): bigint | null {
    return this.#shareable;
  }

  override describe(): string {
    const what = this.imported ? `, imported from shareable ${hex(this.importedFrom)}` : '';
    return `mapped-buffer=${hex(this.ptr)}${this.destroyed ? '(destroyed)' : ''}[${this.bytes} B of ${this.mappedBytes} B mapped${what}]`;
  }

  exportHandle(opts: { pidValidation?: boolean } = {}): bigint {
    this.handleFor('aclrtMemExportToShareableHandle', this.describe());
    if (this.imported) {
      throw new Error(
        `aclrtMemExportToShareableHandle: ${this.describe()} is an import; ` +
          'only the process that allocated physical memory exports it (CANN 11-04)',
      );
    }
    this.#shareable ??= this.vmm.exportHandle(this.physical, opts);
    return this.#shareable;
  }

  /** aclrtMemSetPidToShareableHandle on this buffer's export. */
  override allowImporters(pids: number[]): void {
    this.handleFor('aclrtMemSetPidToShareableHandle', this.describe());
    if (this.#shareable === null) {
      throw new Error('aclrtMemSetPidToShareableHandle: export the buffer first (exportHandle()), then list the importers\' pids');
    }
    this.vmm.setPids(this.#shareable, pids);
  }

  override exportKey(): string {
    throw new Error(
      `${this.describe()}: VMM memory is shared by its shareable handle, not by an IPC memory key: ` +
        'use exportHandle() (ctx.sharePhysical in a scenario)',
    );
  }

  override closeExport(): void {
    throw new Error(
      `${this.describe()}: a shareable handle has no close; its export ends when the exporter frees the buffer (aclrtFreePhysical)`,
    );
  }

  /** aclrtUnmapMem (waits for queued copies on it), aclrtReleaseMemAddress, aclrtFreePhysical. */
  override destroy(): void {
    const address = this.handleFor('aclrtUnmapMem', this.describe()) as bigint;
    if (this.#undone === 'nothing') {
      this.vmm.unmap(address);
      this.#undone = 'unmapped';
    }
    if (this.#undone === 'unmapped') {
      this.vmm.release(address);
      this.#undone = 'released';
    }
    this.vmm.freePhysical(this.physical);
    this.retire(this.destroyedBy('aclrtFreePhysical'));
    this.rt.untrack(this);
  }
}

/** Reserves mappedBytes, maps handle there and allows this device to read and write it; undoes it all on failure. */
function mapHere(vmm: Vmm, handle: PhysicalHandle, mappedBytes: number, device: number): bigint {
  const address = vmm.reserve(mappedBytes);
  try {
    vmm.map(address, mappedBytes, handle);
  } catch (e) {
    vmm.release(address);
    throw e;
  }
  try {
    vmm.setAccess(address, mappedBytes, device);
  } catch (e) {
    vmm.unmap(address);
    vmm.release(address);
    throw e;
  }
  return address;
}

/** `bytes` rounded up to the device's allocation granularity: the physical size, and the size of every mapping of it. */
export function mappedSize(vmm: Vmm, bytes: number, device: number): number {
  const g = vmm.granularity(device);
  return Math.ceil(bytes / g) * g;
}

/** Physical memory of `bytes` (rounded up to the granularity) on the current device, mapped here. */
export function allocMapped(rt: DataRuntime, vmm: Vmm, bytes: number): MappedBufferImpl {
  return newMappedBuffer(rt, vmm, 'allocMapped', bytes, null, (size, device) => vmm.mallocPhysical(size, device));
}

/** Imports another process's shareable handle on the current device and maps it here; `bytes` is the exporter's size. */
export function importMapped(rt: DataRuntime, vmm: Vmm, shareable: bigint, bytes: number): MappedBufferImpl {
  return newMappedBuffer(rt, vmm, 'importMapped', bytes, shareable, (_size, device) =>
    vmm.importHandle(shareable, device),
  );
}

/**
 * Checks `bytes` and the current device, gets a physical handle of `bytes` rounded up to the granularity from
 * `newHandle` (an allocation or an import), maps it here and tracks the buffer that owns it; frees the handle if the
 * mapping fails. `shareable` is the imported handle, null for memory allocated here.
 */
function newMappedBuffer(
  rt: DataRuntime,
  vmm: Vmm,
  call: string,
  bytes: number,
  shareable: bigint | null,
  newHandle: (size: number, device: number) => PhysicalHandle,
): MappedBufferImpl {
  checkBytes(bytes, call);
  const device = checkDevice(rt.deviceOrUnknown(), call);
  const size = mappedSize(vmm, bytes, device);
  const handle = newHandle(size, device);
  let address: bigint;
  try {
    address = mapHere(vmm, handle, size, device);
  } catch (e) {
    vmm.freePhysical(handle);
    throw e;
  }
  const b = new MappedBufferImpl(rt, vmm, address, bytes, size, device, handle, shareable);
  rt.track(b);
  return b;
}
