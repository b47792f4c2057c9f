/**
 * IpcEventHandle: the 64 bytes of an aclrtIpcEventHandle as an immutable value.
 * Buffers are copied in and out, so no caller can change a handle after the fact.
 * Pure TypeScript (no koffi): the orchestrator and tests may read and write handle files too.
 */
import * as fs from 'node:fs';
import { writeFileAtomicSync } from '../rendezvous/atomic-file'; // pure file-system code
import { IPC_EVENT_HANDLE_SIZE } from './enums';

export class IpcHandleFileError extends Error {
  constructor(
    message: string,
    readonly path: string,
    readonly reason: 'missing' | 'wrong-size' | 'io',
  ) {
    super(message);
    this.name = 'IpcHandleFileError';
  }
}

export class IpcEventHandle {
  static readonly SIZE = IPC_EVENT_HANDLE_SIZE;
  readonly #bytes: Buffer;

  private constructor(bytes: Buffer) {
    this.#bytes = bytes;
    Object.freeze(this);
  }

  /** Copies `b`; throws a RangeError unless it is exactly 64 bytes. */
  static fromBuffer(b: Buffer | Uint8Array): IpcEventHandle {
    if (!(b instanceof Uint8Array)) {
      throw new TypeError(`IpcEventHandle.fromBuffer expects a Buffer or Uint8Array, got ${typeof b}`);
    }
    if (b.length !== IPC_EVENT_HANDLE_SIZE) {
      throw new RangeError(
        `an aclrtIpcEventHandle is exactly ${IPC_EVENT_HANDLE_SIZE} bytes, got ${b.length} bytes`,
      );
    }
    return new IpcEventHandle(Buffer.from(b));
  }

  /** Parses the 128 hex digits written by toHex(). */
  static fromHex(hex: string): IpcEventHandle {
    if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length !== IPC_EVENT_HANDLE_SIZE * 2) {
      throw new RangeError(`expected ${IPC_EVENT_HANDLE_SIZE * 2} hex digits for an IPC event handle, got "${hex.slice(0, 20)}${hex.length > 20 ? '…' : ''}" (${hex.length} chars)`);
    }
    return new IpcEventHandle(Buffer.from(hex, 'hex'));
  }

  /**
   * Reads a handle published by another process. Errors say which path, and whether the file is
   * missing (the producer may not have published yet) or has the wrong size.
   */
  static readFile(file: string): IpcEventHandle {
    let data: Buffer;
    try {
      data = fs.readFileSync(file);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'ENOENT') {
        throw new IpcHandleFileError(
          `IPC event handle file ${file} does not exist: the producer may not have published it yet ` +
            `(wait for it, e.g. with rendezvous.await), or it wrote to another directory`,
          file,
          'missing',
        );
      }
      throw new IpcHandleFileError(`cannot read IPC event handle file ${file}: ${e.message}`, file, 'io');
    }
    if (data.length !== IPC_EVENT_HANDLE_SIZE) {
      throw new IpcHandleFileError(
        `IPC event handle file ${file} has the wrong size: expected ${IPC_EVENT_HANDLE_SIZE} bytes, got ${data.length}` +
          ` (a half-written file? publish it with writeFileAtomic)`,
        file,
        'wrong-size',
      );
    }
    return new IpcEventHandle(data);
  }

  /** A fresh copy of the 64 bytes. */
  toBuffer(): Buffer {
    return Buffer.from(this.#bytes);
  }

  toHex(): string {
    return this.#bytes.toString('hex');
  }

  /**
   * The handle's short name in messages and logs: its first 8 bytes (the part the runtime uses) as
   * one little-endian 64-bit number in 16 hex digits. It is the one form of every message: the stub
   * prints the same number for the same event (its IPC id, in its errors, traces and /dev/shm names).
   */
  toShortHex(): string {
    return this.#bytes.readBigUInt64LE(0).toString(16).padStart(16, '0');
  }

  equals(o: IpcEventHandle): boolean {
    return o instanceof IpcEventHandle && this.#bytes.equals(o.#bytes);
  }

  toString(): string {
    return `IpcEventHandle(${this.toShortHex()})`;
  }

  toJSON(): string {
    return this.toHex();
  }

  /**
   * Write to a temporary name in the same directory, fsync, then rename: a reader sees either no
   * file or all 64 bytes, never a partial handle.
   */
  writeFileAtomic(file: string): void {
    writeFileAtomic(file, this.#bytes);
  }
}

/** Atomic whole-file write (the rendezvous layer's writer: temp name, rename), with an error naming the file. */
export function writeFileAtomic(file: string, data: Buffer): void {
  try {
    writeFileAtomicSync(file, data);
  } catch (err) {
    throw new Error(`cannot publish ${file} atomically: ${(err as Error).message}`, { cause: err });
  }
}
