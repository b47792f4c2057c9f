/**
 * The gate between a role's main thread and its worker threads in soak rounds (round-threads.ts,
 * round-loop.ts): words of a SharedArrayBuffer that every side waits on with Atomics, so a
 * round opens, ends and meets at ctx.barrier() without a message through an event loop.
 *  - The main thread opens round r (after the round barrier every role meets); each thread runs
 *    round r and counts itself done; the main thread ends the round once all k are done.
 *  - ctx.barrier() is a combining barrier: the role's bodies (its run body and each worker thread)
 *    meet here first, then the last to arrive meets the other roles at the round barrier for all
 *    of them, so that barrier keeps one party per role.
 *  - The first body to fail writes its error and the time of the failure here before it breaks the
 *    gate: every wait then throws, and the main thread reads the error at once (a message from the
 *    thread could come after fail-fast has stopped the process).
 * Every change bumps one sequence word, which is the only word anybody sleeps on: a wait reads it,
 * checks its condition, and sleeps only if nothing changed in between, so no wake-up is lost.
 * Pure JavaScript (no koffi): the barrier of the other roles is a function handed in.
 */
import type { RoleError } from '../../../src/wire/types';

const SEQ = 0;
/** The round the main thread opened (0: none yet). */
const ROUND = 1;
/** 1 once the run is over: threads leave their loop. */
const STOP = 2;
/** Completions: each thread adds one after its threadSetup and one after each round. */
const DONE = 3;
/** Bodies that meet at ctx.barrier() in this phase (setup, then rounds). */
const PARTIES = 4;
const ARRIVED = 5;
const GENERATION = 6;
/** Who failed first (see MAIN_THREAD, threadParty), claimed before the error is written. */
const CLAIM = 7;
/** The same, set once the error is written: what the waits look at. */
const BROKEN = 8;
const ERROR_LENGTH = 9;
const WORDS = 12; // 48 bytes: the failure time (BigInt64) follows, 8-aligned
const FAILED_AT_BYTE = WORDS * 4;
const ERROR_BYTE = FAILED_AT_BYTE + 8;
/** Room for the failing body's error (JSON); longer stacks and messages are cut. */
const ERROR_CAPACITY = 16 * 1024;

export const MAIN_THREAD = 1;
export const threadParty = (thread: number): number => 2 + thread;
const describeParty = (who: number) => (who === MAIN_THREAD ? 'the main thread' : `worker thread ${who - 2}`);

/** Where a body was when it failed: loading (ACL, the spec), its threadSetup, or a round. */
export type FailedIn = 'start' | 'setup' | 'round';

export interface GateFailure {
  who: number;
  failedIn: FailedIn;
  error: RoleError;
  /** CLOCK_MONOTONIC ns of the failure, taken before anything was broken (harness/failure-time.ts). */
  atNs: string;
}

export class ThreadGateBrokenError extends Error {
  constructor(
    readonly brokenBy: number,
    what: string,
  ) {
    super(`${what}: ${describeParty(brokenBy)} of this role failed; this body stops too`);
    this.name = 'ThreadGateBrokenError';
  }
}

type WaitAsync = (a: Int32Array, index: number, value: number, timeoutMs: number) => { async: false; value: string } | { async: true; value: Promise<string> };
// ES2024 (Node >= 16); the project's TypeScript lib is ES2022.
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class ThreadGate {
  readonly buffer: SharedArrayBuffer;
  readonly #words: Int32Array;
  readonly #failedAt: BigInt64Array;
  readonly #error: Uint8Array;

  /** `role` names the role in timeout messages. */
  private constructor(
    buffer: SharedArrayBuffer,
    readonly role: string,
  ) {
    this.buffer = buffer;
    this.#words = new Int32Array(buffer, 0, WORDS);
    this.#failedAt = new BigInt64Array(buffer, FAILED_AT_BYTE, 1);
    this.#error = new Uint8Array(buffer, ERROR_BYTE, ERROR_CAPACITY);
  }

  static create(role: string): ThreadGate {
    return new ThreadGate(new SharedArrayBuffer(ERROR_BYTE + ERROR_CAPACITY), role);
  }

  /** The same gate in another thread (the buffer came with the thread's task). */
  static attach(buffer: SharedArrayBuffer, role: string): ThreadGate {
    if (!(buffer instanceof SharedArrayBuffer) || buffer.byteLength !== ERROR_BYTE + ERROR_CAPACITY) {
      throw new TypeError('ThreadGate.attach: not a thread gate buffer');
    }
    return new ThreadGate(buffer, role);
  }

  // ---- main thread

  /** How many bodies meet at ctx.barrier() from now on (set only while none is waiting there). */
  setParties(parties: number): void {
    Atomics.store(this.#words, PARTIES, parties);
  }

  openRound(round: number): void {
    Atomics.store(this.#words, ROUND, round);
    this.#bump();
  }

  stop(): void {
    Atomics.store(this.#words, STOP, 1);
    this.#bump();
  }

  completions(): number {
    return Atomics.load(this.#words, DONE);
  }

  /**
   * Resolves once `count` completions are in. Throws ThreadGateBrokenError when a body failed,
   * `interrupted`'s error if it rejects first (a worker that died), or a timeout naming `what`.
   * Never blocks the event loop: the main thread's own body may still be running.
   */
  async waitForCompletions(count: number, what: string, timeoutMs: number, interrupted?: Promise<never>): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const seq = Atomics.load(this.#words, SEQ);
      this.#throwIfBroken(what);
      const done = Atomics.load(this.#words, DONE);
      if (done >= count) return;
      const left = end - Date.now();
      if (left <= 0) throw new Error(`${what}: the worker threads of role ${this.role} did not get there within ${timeoutMs} ms (${done} of ${count} completions)`);
      const r = waitAsync(this.#words, SEQ, seq, left);
      if (r.async) await (interrupted ? Promise.race([r.value, interrupted]) : r.value);
    }
  }

  // ---- worker threads

  /** Blocks until the main thread opens a round after `last` (returned), or null when the run stopped or a body failed. */
  nextRound(last: number, what: string, timeoutMs: number): number | null {
    let next: number | null = null;
    this.#waitSync(
      () => {
        if (Atomics.load(this.#words, STOP) !== 0 || Atomics.load(this.#words, BROKEN) !== 0) return true;
        const round = Atomics.load(this.#words, ROUND);
        if (round > last) next = round;
        return next !== null;
      },
      what,
      timeoutMs,
      false,
      () => `the main thread of role ${this.role} did not open round ${last + 1} within ${timeoutMs} ms`,
    );
    return Atomics.load(this.#words, BROKEN) !== 0 ? null : next;
  }

  /** This thread finished its threadSetup or its round. */
  done(): void {
    Atomics.add(this.#words, DONE, 1);
    this.#bump();
  }

  // ---- both

  /**
   * ctx.barrier() of one body: waits for the role's other bodies of this phase; the last to arrive
   * meets the other roles (`others`: the round barrier) for all of them, then lets them go.
   */
  meet(what: string, timeoutMs: number, others: () => void): void {
    const parties = Atomics.load(this.#words, PARTIES);
    const generation = Atomics.load(this.#words, GENERATION);
    this.#throwIfBroken(what);
    if (Atomics.add(this.#words, ARRIVED, 1) + 1 >= parties) {
      Atomics.store(this.#words, ARRIVED, 0); // nobody arrives again before the generation moves
      others();
      Atomics.add(this.#words, GENERATION, 1);
      this.#bump();
      return;
    }
    this.#waitSync(() => Atomics.load(this.#words, GENERATION) !== generation, what, timeoutMs, true, () => {
      const arrived = Atomics.load(this.#words, ARRIVED);
      return `not every body of role ${this.role} called ctx.barrier() within ${timeoutMs} ms (${arrived} of ${parties}): its run body and each of its worker threads must call it equally often`;
    });
  }

  /**
   * The first failure of the role: writes it, then breaks the gate (every wait throws, a waiting
   * thread leaves). False if another body failed first (its failure is the one reported).
   */
  fail(who: number, failedIn: FailedIn, error: RoleError, atNs: string = process.hrtime.bigint().toString()): boolean {
    if (Atomics.compareExchange(this.#words, CLAIM, 0, who) !== 0) return false;
    const bytes = encoder.encode(fitted({ failedIn, error }));
    this.#error.set(bytes);
    Atomics.store(this.#words, ERROR_LENGTH, bytes.length);
    Atomics.store(this.#failedAt, 0, BigInt(atNs));
    Atomics.store(this.#words, BROKEN, who);
    this.#bump();
    return true;
  }

  /** Who broke the gate (0: nobody). */
  brokenBy(): number {
    return Atomics.load(this.#words, BROKEN);
  }

  /** The failure that broke the gate, or null. */
  failure(): GateFailure | null {
    const who = Atomics.load(this.#words, BROKEN);
    if (who === 0) return null;
    const text = decoder.decode(this.#error.slice(0, Atomics.load(this.#words, ERROR_LENGTH)));
    const { failedIn, error } = JSON.parse(text) as { failedIn: FailedIn; error: RoleError };
    return { who, failedIn, error, atNs: Atomics.load(this.#failedAt, 0).toString() };
  }

  #bump(): void {
    Atomics.add(this.#words, SEQ, 1);
    Atomics.notify(this.#words, SEQ);
  }

  #throwIfBroken(what: string): void {
    const who = Atomics.load(this.#words, BROKEN);
    if (who !== 0) throw new ThreadGateBrokenError(who, what);
  }

  #waitSync(ready: () => boolean, what: string, timeoutMs: number, throwIfBroken: boolean, timedOut?: () => string): void {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const seq = Atomics.load(this.#words, SEQ);
      if (throwIfBroken) this.#throwIfBroken(what);
      if (ready()) return;
      const left = end - Date.now();
      if (left <= 0) throw new Error(`${what}: ${timedOut ? timedOut() : `nothing happened within ${timeoutMs} ms`}`);
      Atomics.wait(this.#words, SEQ, seq, left);
    }
  }
}

/** The failure as JSON within ERROR_CAPACITY bytes: the stack goes first, then the message's tail. */
function fitted(failure: { failedIn: FailedIn; error: RoleError }): string {
  let text = JSON.stringify(failure);
  if (encoder.encode(text).length <= ERROR_CAPACITY) return text;
  const { stack: _stack, ...error } = failure.error;
  let message = error.message;
  do {
    message = `${message.slice(0, Math.floor(message.length / 2))}…`;
    text = JSON.stringify({ failedIn: failure.failedIn, error: { ...error, message } });
  } while (encoder.encode(text).length > ERROR_CAPACITY && message.length > 1);
  // Still too long (e.g. a huge ACL error text): the message alone, cut to fit.
  return encoder.encode(text).length <= ERROR_CAPACITY ? text : JSON.stringify({ failedIn: failure.failedIn, error: { message: error.message.slice(0, ERROR_CAPACITY / 8) } });
}
