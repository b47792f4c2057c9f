/**
 * "Which ACL call is this process in, since when": written by the binding around calls that can
 * block (synchronize, finalize, ...), so that the native watchdog thread (native-stub/harness/hold/watch.c)
 * can read it while the main thread is stuck inside the native call (issue #11). A seqlock
 * (even = stable) makes a read that races a write retry instead of returning half a name. Costs two
 * Atomics stores and one short UTF-8 encode per blocking call; nothing is read unless a hang report
 * asks.
 *
 * The records live in native memory owned by libcannharness_hold.so (one table: slot 0 the main
 * thread's, slot 1 + t worker thread t's; watchdog.ts maps it). Until the watchdog started (or if
 * it could not), the main thread writes into a private buffer of its own, which nobody reads.
 * Worker threads of a role (`threads: k`) get the table's address and map their own slot.
 */

// The layout, shared with native-stub/harness/hold/watch.h and harness/preload/preload.c
// (test/architecture/c-ts-shared.test.ts pins it).
// Int32 words: [0] seq, [1] active (0/1), [2] text length, [3] open latches; then since (BigInt64) and text.
export const CALL_RECORD_TEXT_BYTES = 1024;
const HEADER_BYTES = 16;
export const CALL_RECORD_SINCE_OFFSET = HEADER_BYTES;
export const CALL_RECORD_TEXT_OFFSET = CALL_RECORD_SINCE_OFFSET + 8;
const encoder = new TextEncoder();
/** Bytes of one record (header, since, text). */
export const CALL_RECORD_BYTES = CALL_RECORD_TEXT_OFFSET + CALL_RECORD_TEXT_BYTES;
/** Worker-thread slots of the table: a role has at most 64 threads (src/scenario/plan.ts). */
export const MAX_THREAD_RECORDS = 64;
/** Slots of the native table (native-stub/harness/hold/watch.h): the main thread's, then one per worker thread. */
export const CALL_RECORD_SLOTS = 1 + MAX_THREAD_RECORDS;
/** The table slot of worker thread `thread`. */
export const threadSlot = (thread: number): number => 1 + thread;

export interface CallInProgress {
  /** e.g. 'aclrtSynchronizeStream' */
  name: string;
  /** The binding's argument summary, e.g. 'stream=0x2' */
  args: string;
  /** CLOCK_MONOTONIC ns when the call began (decimal string) */
  sinceNs: string;
}

export interface CallRecordSnapshot {
  call: CallInProgress | null;
  /** Latches enqueued by this process's binding and not yet released. */
  openLatches: number;
}

export class CallRecord {
  #buffer!: ArrayBufferLike;
  #words!: Int32Array;
  #since!: BigInt64Array;
  #text!: Uint8Array;

  #at = 0;

  /** A record at byteOffset of buffer (a slot of a table), or a fresh buffer of its own. */
  constructor(buffer: ArrayBufferLike = new SharedArrayBuffer(CALL_RECORD_BYTES), byteOffset = 0) {
    this.#bind(buffer, byteOffset);
  }

  /**
   * From now on write into slot `slot` of `table` (the native table, mapped), carrying over what
   * the record holds now (open latches). False, and nothing changed, if the slot is not in the table.
   */
  useSlot(table: ArrayBufferLike, slot: number): boolean {
    if (!Number.isInteger(slot) || slot < 0 || (slot + 1) * CALL_RECORD_BYTES > table.byteLength) return false;
    const now = new Uint8Array(this.#buffer, this.#at, CALL_RECORD_BYTES).slice();
    new Uint8Array(table, slot * CALL_RECORD_BYTES, CALL_RECORD_BYTES).set(now);
    this.#bind(table, slot * CALL_RECORD_BYTES);
    return true;
  }

  #bind(buffer: ArrayBufferLike, at: number): void {
    this.#at = at;
    this.#buffer = buffer;
    this.#words = new Int32Array(buffer, at, 4);
    this.#since = new BigInt64Array(buffer, at + CALL_RECORD_SINCE_OFFSET, 1);
    this.#text = new Uint8Array(buffer, at + CALL_RECORD_TEXT_OFFSET, CALL_RECORD_TEXT_BYTES);
  }

  begin(name: string, args: string): void {
    Atomics.add(this.#words, 0, 1); // odd: writing
    const { written } = encoder.encodeInto(`${name}\n${args}`, this.#text);
    Atomics.store(this.#words, 2, written);
    Atomics.store(this.#since, 0, process.hrtime.bigint());
    Atomics.store(this.#words, 1, 1);
    Atomics.add(this.#words, 0, 1);
  }

  end(): void {
    Atomics.store(this.#words, 1, 0);
  }

  latchOpened(): void {
    Atomics.add(this.#words, 3, 1);
  }

  latchReleased(): void {
    Atomics.sub(this.#words, 3, 1);
  }

  /** Safe from any thread; retries while a write is in progress. */
  read(): CallRecordSnapshot {
    for (let attempt = 0; attempt < 100; attempt++) {
      const seq = Atomics.load(this.#words, 0);
      if (seq % 2 === 1) continue;
      const active = Atomics.load(this.#words, 1) === 1;
      const len = Atomics.load(this.#words, 2);
      const since = Atomics.load(this.#since, 0);
      const text = Buffer.from(this.#text.slice(0, len)).toString('utf8');
      const openLatches = Atomics.load(this.#words, 3);
      if (Atomics.load(this.#words, 0) !== seq) continue;
      if (!active) return { call: null, openLatches };
      const nl = text.indexOf('\n');
      return { call: { name: text.slice(0, nl), args: text.slice(nl + 1), sinceNs: since.toString() }, openLatches };
    }
    return { call: null, openLatches: Atomics.load(this.#words, 3) };
  }
}

/** This process's (this thread's) record: the binding writes it; the native watchdog serves it. */
export const callRecord = new CallRecord();

let nativeTable: bigint | undefined;
/** The native table's address once the watchdog mapped it (for worker threads), else undefined. */
export function callRecordTableAddress(): bigint | undefined {
  return nativeTable;
}
/** Set by watchdog.ts when the main thread's record moved into the native table. */
export function setCallRecordTableAddress(address: bigint): void {
  nativeTable = address;
}

/** Each slot of a table (a copy is fine) that holds a call in progress or latches, with its slot number. */
export function readThreadRecords(table: ArrayBufferLike): { thread: number; snapshot: CallRecordSnapshot }[] {
  const out: { thread: number; snapshot: CallRecordSnapshot }[] = [];
  for (let slot = 0; (slot + 1) * CALL_RECORD_BYTES <= table.byteLength; slot++) {
    const snapshot = new CallRecord(table, slot * CALL_RECORD_BYTES).read();
    if (snapshot.call || snapshot.openLatches) out.push({ thread: slot, snapshot });
  }
  return out;
}

/** Runs a possibly blocking native call with it recorded as "in progress". */
export function recordCall<T>(name: string, args: string, fn: () => T): T {
  callRecord.begin(name, args);
  try {
    return fn();
  } finally {
    callRecord.end();
  }
}
