/**
 * The round barrier of `rounds` scenarios, device-process side: maps the barrier file that the
 * orchestrator created in the scenario directory (src/wire/round-barrier-file.ts) and
 * waits on its futex through libcannharness_hold.so (native-stub/hold/barrier.c).
 */
import { lstatSync } from 'node:fs';
import { recordCall } from './call-record';
import type { BarrierFunctions } from './native';
import { resolveHoldLibrary } from './resolve';

const ETIMEDOUT = 110;
const EPIPE = 32;

export class RoundBarrierBrokenError extends Error {
  constructor(
    readonly brokenBy: number,
    what: string,
  ) {
    super(`${what}: another role failed (party ${brokenBy} broke the round barrier); this role stops too`);
    this.name = 'RoundBarrierBrokenError';
  }
}

export class RoundBarrier {
  #fns: BarrierFunctions;
  #native: bigint;
  readonly parties: number;

  private constructor(fns: BarrierFunctions, native: bigint) {
    this.#fns = fns;
    this.#native = native;
    this.parties = fns.parties(native);
  }

  /** Maps the file at `file`; the error names why it cannot (a link, not ours, a bad file). */
  static attach(file: string, env: NodeJS.ProcessEnv = process.env): RoundBarrier {
    const fns = koffiDeclarations().loadBarrierLibrary(resolveHoldLibrary(env));
    const native = fns.attach(file);
    if (native === 0n) throw new Error(`cannot use the round barrier ${file}: ${whyNot(file)}`);
    return new RoundBarrier(fns, native);
  }

  /**
   * Waits until every party arrived. `what` names the wait in hang reports and errors
   * (e.g. "round 12 start"). Throws on a timeout or when another party broke the barrier.
   */
  wait(what: string, timeoutMs: number): void {
    this.#cross(what, timeoutMs, (native, ms) => this.#fns.wait(native, ms));
  }

  /**
   * As wait, but the other parties stay asleep in this crossing until release(): in between, the
   * caller runs alone (no other party runs). Only one party may hold a crossing; after an error the
   * caller breaks the barrier.
   */
  hold(what: string, timeoutMs: number): void {
    this.#cross(what, timeoutMs, (native, ms) => this.#fns.hold(native, ms));
  }

  /** Lets every party of the crossing that hold() returned from go on. */
  release(): void {
    if (this.#native !== 0n) this.#fns.release(this.#native);
  }

  #cross(what: string, timeoutMs: number, cross: (native: bigint, ms: number) => number): void {
    if (this.#native === 0n) throw new Error(`round barrier used after close (${what})`);
    const ms = Number.isFinite(timeoutMs) ? Math.max(0, Math.min(Math.round(timeoutMs), 0x7fffffff)) : -1;
    const rc = recordCall('roundBarrier', what, () => cross(this.#native, ms));
    if (rc === 0) return;
    if (rc === -EPIPE) throw new RoundBarrierBrokenError(this.#fns.broken(this.#native), what);
    if (rc === -ETIMEDOUT) throw new Error(`${what}: not every role arrived at the round barrier within ${ms} ms`);
    throw new Error(`${what}: cannharness_barrier_wait returned ${rc}`);
  }

  /** Wakes every waiter with RoundBarrierBrokenError (party: 1-based, this role's index + 1). */
  break(party: number): void {
    if (this.#native !== 0n) this.#fns.breakIt(this.#native, party);
  }

  close(): void {
    if (this.#native === 0n) return;
    this.#fns.detach(this.#native);
    this.#native = 0n;
  }
}

function whyNot(file: string): string {
  try {
    const st = lstatSync(file);
    if (st.isSymbolicLink()) return 'it is a symbolic link (never followed)';
    if (!st.isFile()) return 'it is not a regular file';
    if (typeof process.geteuid === 'function' && st.uid !== process.geteuid()) return `it belongs to uid ${st.uid}, not to this user`;
    if ((st.mode & 0o077) !== 0) return `its mode ${(st.mode & 0o777).toString(8)} lets others in (the orchestrator makes it 0600)`;
    return `its size or header is not a barrier's (${st.size} bytes)`;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * Reseeds the stub's jitter for the next round (the seed of ACL_STUB_JITTER, max_us unchanged).
 * False when the library has no reseed (real CANN) or jitter is off.
 */
export function reseedStubJitter(libraryFile: string, seed: number): boolean {
  const reseed = reseedFor(libraryFile);
  return reseed !== null && reseed(seed) === 0;
}

const reseeds = new Map<string, ((seed: number) => number) | null>();
function reseedFor(file: string): ((seed: number) => number) | null {
  if (!reseeds.has(file)) reseeds.set(file, koffiDeclarations().loadJitterReseed(file));
  return reseeds.get(file)!;
}

/** The koffi declarations, loaded on first use: importing src/acl must never load koffi (Jest's processes import it). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const koffiDeclarations = () => require('./native') as typeof import('./native');
