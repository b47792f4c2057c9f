/**
 * Objects that carry data between streams and processes: device buffers (aclrtMalloc or an IPC
 * memory import) and notifies (docs/acl-contract.md section 8). Like streams and events they
 * refuse any use after free / close / destroy before calling C (see owned.ts).
 */
import {
  IPC_KEY_BUFFER_SIZE,
  IpcMemExportFlag,
  IpcMemImportFlag,
  MemcpyKind,
  MemMallocPolicy,
  NotifyExportFlag,
  NotifyFlag,
  NotifyImportFlag,
} from './enums';
import { recordCall } from './call-record';
import { retainHostCopyTarget } from './host-copies';
import type { AclFunctions, Ptr } from './native';
import { Owned } from './owned';
import type { DeviceBuffer, Notify, Stream } from './types';

/** What the data objects need from the runtime object (implemented by AclRuntime). */
export interface DataRuntime {
  readonly raw: AclFunctions;
  check(rc: number, call: string, args: string): void;
  track(o: Owned<unknown>): void;
  untrack(o: Owned<unknown>): void;
  deviceOrUnknown(): number;
  /** The C handle and description of a stream argument (undefined = the default stream). */
  streamArg(stream: Stream | undefined, call: string): { ptr: Ptr; text: string };
}

/**
 * Live imports per key in this thread's binding. aclrtIpcMemClose(key) closes an import of the key
 * before it touches the export (CANN's rule), so closeExport() refuses while one is open here.
 */
const liveImports = new Map<string, number>();

/** Exported IPC memory must be whole pages; the stub rounds every allocation up to them. */
export const IPC_PAGE_SIZE = 4096;

function checkCount(value: unknown, what: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`${what} must be an integer in [${min}, ${max}], got ${String(value)}`);
  }
  return value;
}

function checkKey(key: unknown, call: string): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > IPC_KEY_BUFFER_SIZE - 1) {
    throw new TypeError(`${call}: the key must be a string of 1..${IPC_KEY_BUFFER_SIZE - 1} characters from an export, got ${JSON.stringify(key)}`);
  }
  return key;
}

function checkPids(pids: unknown, call: string): Int32Array {
  if (!Array.isArray(pids) || pids.length === 0 || !pids.every((p) => Number.isInteger(p) && p > 0 && p <= 2 ** 31 - 1)) {
    throw new TypeError(`${call}: pass a non-empty array of positive pids (from aclrtDeviceGetBareTgid), got ${JSON.stringify(pids)}`);
  }
  return Int32Array.from(pids as number[]);
}

/** Runs an export call that writes a NUL-terminated key into a 65-byte buffer. */
function readKey(fn: (buf: Uint8Array) => void): string {
  const buf = new Uint8Array(IPC_KEY_BUFFER_SIZE);
  fn(buf);
  const end = buf.indexOf(0);
  return Buffer.from(buf.subarray(0, end < 0 ? buf.length : end)).toString('latin1');
}

export class DeviceBufferImpl extends Owned<DataRuntime> implements DeviceBuffer {
  readonly kind = 'buffer';
  #exportKey: string | null = null;

  constructor(
    rt: DataRuntime,
    ptr: Ptr,
    readonly bytes: number,
    readonly device: number,
    /** The key this buffer was imported from; null for the process's own aclrtMalloc memory. */
    readonly importKey: string | null,
  ) {
    super(rt, ptr);
  }

  get imported(): boolean {
    return this.importKey !== null;
  }

  get exportedKey(): string | null {
    return this.#exportKey;
  }

  get address(): bigint {
    return this.handleFor('address') as bigint;
  }

  override describe(): string {
    return `${super.describe()}[${this.bytes} B${this.imported ? ', imported' : ''}]`;
  }

  #range(call: string, offset: number, length: number): bigint {
    checkCount(offset, `${call}: offset`, 0, this.bytes);
    checkCount(length, `${call}: length`, 0, this.bytes - offset);
    return (this.handleFor(call, this.describe()) as bigint) + BigInt(offset);
  }

  write(data: Uint8Array, offset = 0): void {
    if (!(data instanceof Uint8Array)) throw new TypeError(`write expects a Uint8Array, got ${typeof data}`);
    const dst = this.#range('aclrtMemcpy', offset, data.length);
    if (data.length === 0) return;
    const args = `dst=${this.describe()}+${offset}, src=host, count=${data.length}, kind=HOST_TO_DEVICE`;
    this.rt.check(this.rt.raw.aclrtMemcpy(dst, data.length, data, data.length, MemcpyKind.HOST_TO_DEVICE), 'aclrtMemcpy', args);
  }

  read(length?: number, offset = 0): Uint8Array {
    const count = length ?? this.bytes - offset;
    const src = this.#range('aclrtMemcpy', offset, count);
    const out = new Uint8Array(count);
    if (count === 0) return out;
    const args = `dst=host, src=${this.describe()}+${offset}, count=${out.length}, kind=DEVICE_TO_HOST`;
    this.rt.check(this.rt.raw.aclrtMemcpy(out, out.length, src, out.length, MemcpyKind.DEVICE_TO_HOST), 'aclrtMemcpy', args);
    return out;
  }

  /**
   * aclrtMemcpyAsync device -> host into a new (pageable) array. CANN turns a copy that involves
   * pageable host memory into a stream synchronize plus a synchronous copy when the driver reports
   * such memory (api_error.cc:2256-2270), so the call blocks until everything queued before it on
   * the stream has run; the stub does the same unless ACL_STUB_PAGEABLE=async.
   */
  readAsync(stream?: Stream, length?: number, offset = 0): Uint8Array {
    const call = 'aclrtMemcpyAsync';
    const count = length ?? this.bytes - offset;
    const src = this.#range(call, offset, count);
    const out = new Uint8Array(count);
    if (count === 0) return out;
    const { ptr, text } = this.rt.streamArg(stream, call);
    const args = `dst=host (pageable), src=${this.describe()}+${offset}, count=${count}, kind=DEVICE_TO_HOST, ${text}`;
    retainHostCopyTarget(ptr, this.rt.deviceOrUnknown(), out);
    this.rt.check(recordCall(call, args, () => this.rt.raw.aclrtMemcpyAsync(out, count, src, count, MemcpyKind.DEVICE_TO_HOST, ptr)), call, args);
    return out;
  }

  fillSync(value: number, offset = 0, length = this.bytes - offset): void {
    checkCount(value, 'fillSync: value', 0, 255);
    const dst = this.#range('aclrtMemset', offset, length);
    const args = `devPtr=${this.describe()}+${offset}, value=${value}, count=${length}`;
    this.rt.check(this.rt.raw.aclrtMemset(dst, length, value, length), 'aclrtMemset', args);
  }

  fill(value: number, stream?: Stream, offset = 0, length = this.bytes - offset): void {
    checkCount(value, 'fill: value', 0, 255);
    const dst = this.#range('aclrtMemsetAsync', offset, length);
    const { ptr, text } = this.rt.streamArg(stream, 'aclrtMemsetAsync');
    const args = `devPtr=${this.describe()}+${offset}, value=${value}, count=${length}, ${text}`;
    this.rt.check(this.rt.raw.aclrtMemsetAsync(dst, length, value, length, ptr), 'aclrtMemsetAsync', args);
  }

  copyFrom(src: DeviceBuffer, stream?: Stream, length = Math.min(this.bytes, src.bytes)): void {
    if (!(src instanceof DeviceBufferImpl)) throw new TypeError('copyFrom expects a DeviceBuffer of this binding');
    const dst = this.#range('aclrtMemcpyAsync', 0, length);
    const from = src.#range('aclrtMemcpyAsync', 0, length);
    const { ptr, text } = this.rt.streamArg(stream, 'aclrtMemcpyAsync');
    const args = `dst=${this.describe()}, src=${src.describe()}, count=${length}, kind=DEVICE_TO_DEVICE, ${text}`;
    this.rt.check(
      this.rt.raw.aclrtMemcpyAsync(dst, this.bytes, from, length, MemcpyKind.DEVICE_TO_DEVICE, ptr),
      'aclrtMemcpyAsync',
      args,
    );
  }

  exportKey(opts: { pidValidation?: boolean } = {}): string {
    const call = 'aclrtIpcMemGetExportKey';
    const size = Math.ceil(this.bytes / IPC_PAGE_SIZE) * IPC_PAGE_SIZE;
    const flags = opts.pidValidation === false ? IpcMemExportFlag.DISABLE_PID_VALIDATION : IpcMemExportFlag.DEFAULT;
    const args = `${this.describe()}, size=${size}, key=&out, len=${IPC_KEY_BUFFER_SIZE}, flags=${flags}`;
    const p = this.handleFor(call, args);
    this.#exportKey = readKey((buf) => this.rt.check(this.rt.raw.aclrtIpcMemGetExportKey(p, size, buf, buf.length, flags), call, args));
    return this.#exportKey;
  }

  allowImporters(pids: number[]): void {
    const call = 'aclrtIpcMemSetImportPid';
    this.handleFor(call);
    const key = this.#exportKey;
    if (!key) throw new Error(`${call}: export the buffer first (exportKey()), then list the importers' pids`);
    const list = checkPids(pids, call);
    this.rt.check(this.rt.raw.aclrtIpcMemSetImportPid(key, list, list.length), call, `key=${key}, pid=[${pids.join(',')}], num=${list.length}`);
  }

  /** In the exporter: aclrtIpcMemClose(key), after which new imports fail; this buffer stays usable. */
  closeExport(): void {
    const call = 'aclrtIpcMemClose';
    this.handleFor(call);
    const key = this.#exportKey;
    if (!key) throw new Error(`${call}: this buffer has no open export (call exportKey() first)`);
    if (liveImports.get(key)) {
      throw new Error(
        `${call}(${key}): this process still has ${liveImports.get(key)} import(s) of the key, and the call would close ` +
          'one of them instead of the export (CANN closes imports first): free the imports, then closeExport()',
      );
    }
    this.rt.check(this.rt.raw.aclrtIpcMemClose(key), call, `key=${key}`);
    this.#exportKey = null;
  }

  /** aclrtFree for own memory, aclrtIpcMemClose(key) for an import. */
  destroy(): void {
    if (this.importKey !== null) {
      this.handleFor('aclrtIpcMemClose');
      this.rt.check(this.rt.raw.aclrtIpcMemClose(this.importKey), 'aclrtIpcMemClose', `key=${this.importKey}`);
      this.retire(this.destroyedBy('aclrtIpcMemClose'));
      const left = (liveImports.get(this.importKey) ?? 1) - 1;
      if (left > 0) liveImports.set(this.importKey, left);
      else liveImports.delete(this.importKey);
    } else {
      const p = this.handleFor('aclrtFree');
      this.rt.check(this.rt.raw.aclrtFree(p), 'aclrtFree', this.describe());
      this.retire(this.destroyedBy('aclrtFree'));
    }
    this.rt.untrack(this);
  }

  free(): void {
    this.destroy();
  }
}

export class NotifyImpl extends Owned<DataRuntime> implements Notify {
  readonly kind = 'notify';

  constructor(
    rt: DataRuntime,
    ptr: Ptr,
    readonly imported: boolean,
    readonly device: number,
  ) {
    super(rt, ptr);
  }

  record(stream?: Stream): void {
    const call = 'aclrtRecordNotify';
    const { ptr, text } = this.rt.streamArg(stream, call);
    const args = `${this.describe()}, ${text}`;
    this.rt.check(this.rt.raw.aclrtRecordNotify(this.handleFor(call, args), ptr), call, args);
  }

  waitAndReset(stream?: Stream, timeoutS = 0): void {
    const call = 'aclrtWaitAndResetNotify';
    checkCount(timeoutS, `${call}: timeout (s, 0 = forever)`, 0, 2 ** 32 - 1);
    const { ptr, text } = this.rt.streamArg(stream, call);
    const args = `${this.describe()}, ${text}, timeout=${timeoutS}`;
    this.rt.check(this.rt.raw.aclrtWaitAndResetNotify(this.handleFor(call, args), ptr, timeoutS), call, args);
  }

  exportKey(opts: { pidValidation?: boolean } = {}): string {
    const call = 'aclrtNotifyGetExportKey';
    const flags = opts.pidValidation === false ? NotifyExportFlag.DISABLE_PID_VALIDATION : NotifyExportFlag.DEFAULT;
    const args = `${this.describe()}, key=&out, len=${IPC_KEY_BUFFER_SIZE}, flags=${flags}`;
    const n = this.handleFor(call, args);
    return readKey((buf) => this.rt.check(this.rt.raw.aclrtNotifyGetExportKey(n, buf, buf.length, flags), call, args));
  }

  allowImporters(pids: number[]): void {
    const call = 'aclrtNotifySetImportPid';
    const n = this.handleFor(call);
    const list = checkPids(pids, call);
    this.rt.check(this.rt.raw.aclrtNotifySetImportPid(n, list, list.length), call, `${this.describe()}, pid=[${pids.join(',')}], num=${list.length}`);
  }

  destroy(): void {
    const n = this.handleFor('aclrtDestroyNotify');
    this.rt.check(this.rt.raw.aclrtDestroyNotify(n), 'aclrtDestroyNotify', this.describe());
    this.retire(this.destroyedBy('aclrtDestroyNotify'));
    this.rt.untrack(this);
  }
}

/** aclrtMalloc. */
export function mallocBuffer(rt: DataRuntime, bytes: number): DeviceBufferImpl {
  checkCount(bytes, 'malloc: bytes', 1, Number.MAX_SAFE_INTEGER);
  const out: [Ptr] = [null];
  rt.check(rt.raw.aclrtMalloc(out, bytes, MemMallocPolicy.HUGE_FIRST), 'aclrtMalloc', `devPtr=&out, size=${bytes}, policy=HUGE_FIRST`);
  const b = new DeviceBufferImpl(rt, out[0], bytes, rt.deviceOrUnknown(), null);
  rt.track(b);
  return b;
}

/** aclrtIpcMemImportByKey: a new address in this process for the exporter's memory. */
export function importBuffer(rt: DataRuntime, key: string, bytes: number, opts: { peerAccess?: boolean } = {}): DeviceBufferImpl {
  const call = 'aclrtIpcMemImportByKey';
  checkKey(key, call);
  checkCount(bytes, `${call}: bytes`, 1, Number.MAX_SAFE_INTEGER);
  const flags = opts.peerAccess ? IpcMemImportFlag.ENABLE_PEER_ACCESS : IpcMemImportFlag.DEFAULT;
  const out: [Ptr] = [null];
  rt.check(rt.raw.aclrtIpcMemImportByKey(out, key, flags), call, `devPtr=&out, key=${key}, flags=${flags}`);
  const b = new DeviceBufferImpl(rt, out[0], bytes, rt.deviceOrUnknown(), key);
  liveImports.set(key, (liveImports.get(key) ?? 0) + 1);
  rt.track(b);
  return b;
}

/** aclrtCreateNotify. */
export function createNotify(rt: DataRuntime, flag: number = NotifyFlag.DEFAULT): NotifyImpl {
  const out: [Ptr] = [null];
  rt.check(rt.raw.aclrtCreateNotify(out, flag), 'aclrtCreateNotify', `notify=&out, flag=${flag}`);
  const n = new NotifyImpl(rt, out[0], false, rt.deviceOrUnknown());
  rt.track(n);
  return n;
}

/** aclrtNotifyImportByKey. */
export function importNotify(rt: DataRuntime, key: string, opts: { peerAccess?: boolean } = {}): NotifyImpl {
  const call = 'aclrtNotifyImportByKey';
  checkKey(key, call);
  const flags = opts.peerAccess ? NotifyImportFlag.ENABLE_PEER_ACCESS : NotifyImportFlag.DEFAULT;
  const out: [Ptr] = [null];
  rt.check(rt.raw.aclrtNotifyImportByKey(out, key, flags), call, `notify=&out, key=${key}, flags=${flags}`);
  const n = new NotifyImpl(rt, out[0], true, rt.deviceOrUnknown());
  rt.track(n);
  return n;
}
