/**
 * The round barrier of `rounds` scenarios, device-process side: maps the barrier file that the
 * orchestrator created in the scenario directory (src/wire/round-barrier-file.ts) and
 * waits on its futex through libcannharness_hold.so (native-stub/harness/hold/barrier.c).
 */
import { lstatSync } from 'node:fs';
import { recordCall } from './call-record';
import type { BarrierFunctions } from './native';
import { resolveHoldLibrary } from './resolve';

const ETIMEDOUT = 110;
const EPIPE = 32;
const EPROTO = 71;

/** What a party meets at a crossing: the round (0: setup) and its k-th ctx.barrier() of it, or the round's end. */
export interface Crossing {
  round: number;
  /** 1-based ctx.barrier() call of the round, or 'end' (the round's end; round 0's end starts round 1). */
  call: number | 'end';
}
const END = 0xfff;
/** The crossing's tag for the barrier file: 20 bits of round, 12 of call (never 0). */
export function crossingTag(c: Crossing): number {
  return (((c.round & 0xfffff) << 12) | (c.call === 'end' ? END : Math.min(c.call, END - 1))) >>> 0;
}
function crossingOf(tag: number, near: number): Crossing {
  // The other party's round, from its 20 low bits: the one nearest this party's.
  const diff = (((tag >>> 12) - (near & 0xfffff) + 0x80000) & 0xfffff) - 0x80000;
  const round = near + diff;
  const k = tag & 0xfff;
  return { round, call: k === END ? 'end' : k };
}

/**
 * Two parties met different crossings (unequal ctx.barrier() calls). `behind`: the party (1-based)
 * that called ctx.barrier() fewer times in the round (it went on to a later crossing).
 */
export class RoundBarrierMismatchError extends Error {
  constructor(
    readonly mine: Crossing,
    readonly theirs: Crossing,
    readonly otherParty: number,
    /** This party called ctx.barrier() fewer times (it is ahead in the crossings). */
    readonly selfBehind: boolean,
    /** When this party arrived at the crossing (CLOCK_MONOTONIC ns). */
    readonly arrivedAtNs: bigint,
  ) {
    super(`round barrier: this role met ${describeCrossing(mine)}, party ${otherParty} ${describeCrossing(theirs)}`);
    this.name = 'RoundBarrierMismatchError';
  }
}

export function describeCrossing(c: Crossing): string {
  if (c.call !== 'end') return `its ctx.barrier() call ${c.call} of ${c.round === 0 ? 'setup' : `round ${c.round}`}`;
  return c.round === 0 ? 'the start of round 1' : `the end of round ${c.round}`;
}

/** Later in the sequence of crossings: a party there skipped crossings the other one met. */
function later(a: Crossing, b: Crossing): boolean {
  if (a.round !== b.round) return a.round > b.round;
  return (a.call === 'end' ? Infinity : a.call) > (b.call === 'end' ? Infinity : b.call);
}

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
  wait(what: string, timeoutMs: number, at?: { crossing: Crossing; party: number }): void {
    this.#cross(what, timeoutMs, at, (native, tag, party, ms) => this.#fns.wait(native, tag, party, ms));
  }

  /**
   * As wait, but the other parties stay asleep in this crossing until release(): in between, the
   * caller runs alone (no other party runs). Only one party may hold a crossing; after an error the
   * caller breaks the barrier.
   */
  hold(what: string, timeoutMs: number, at?: { crossing: Crossing; party: number }): void {
    this.#cross(what, timeoutMs, at, (native, tag, party, ms) => this.#fns.hold(native, tag, party, ms));
  }

  /** Lets every party of the crossing that hold() returned from go on. */
  release(): void {
    if (this.#native !== 0n) this.#fns.release(this.#native);
  }

  #cross(
    what: string,
    timeoutMs: number,
    at: { crossing: Crossing; party: number } | undefined,
    cross: (native: bigint, tag: number, party: number, ms: number) => number,
  ): void {
    if (this.#native === 0n) throw new Error(`round barrier used after close (${what})`);
    const ms = Number.isFinite(timeoutMs) ? Math.max(0, Math.min(Math.round(timeoutMs), 0x7fffffff)) : -1;
    const arrivedAtNs = at ? process.hrtime.bigint() : 0n;
    const rc = recordCall('roundBarrier', what, () => cross(this.#native, at ? crossingTag(at.crossing) : 0, at?.party ?? 0, ms));
    if (rc === 0) return;
    if ((rc === -EPIPE || rc === -EPROTO) && at) {
      const m = this.#fns.mismatch(this.#native);
      if (m) {
        const [firstTag, firstParty, otherTag, otherParty] = m;
        const mineIsFirst = firstParty === at.party;
        if (mineIsFirst || otherParty === at.party) {
          const theirs = crossingOf(mineIsFirst ? otherTag : firstTag, at.crossing.round);
          throw new RoundBarrierMismatchError(
            at.crossing,
            theirs,
            mineIsFirst ? otherParty : firstParty,
            later(at.crossing, theirs),
            arrivedAtNs,
          );
        }
      }
    }
    if (rc === -EPIPE || rc === -EPROTO) throw new RoundBarrierBrokenError(this.#fns.broken(this.#native), what);
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
