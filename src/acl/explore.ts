/**
 * The schedule explorer, device-process side: the stub's cannstub_explore_* functions
 * (native-stub/include/cannstub/explore.h) for the harness's own points (rendezvous, round barrier).
 * `explorer(file)` is null when the stub does not explore (ACL_STUB_EXPLORE unset, real CANN, a stub
 * without the functions), so every harness point costs one null check when exploring is off.
 * The stub parses ACL_STUB_EXPLORE at aclInit: ask after the library is initialised.
 */
import type { ExploreDegraded, ExploreFunctions } from './native';

export type { ExploreDegraded } from './native';
import { setRendezvousPoints } from '../rendezvous';
import { resolveHoldLibrary } from './resolve';

export interface Explorer {
  /** Names the calling thread's party ("main", "thread<k>"). */
  nameThread(name: string): void;
  /** The calling thread is at a point: returns when the explorer lets it go on. */
  point(what: string): void;
  /** The calling thread waits outside the points (a rendezvous await, the round barrier) until its next point. */
  block(what: string): void;
  /** The parties blocked with exactly `what` are about to wake: the explorer waits for them. */
  wake(what: string): void;
  /** The calling thread reaches no more points (a worker thread's end). */
  leave(): void;
  /** Starts round `round`'s schedule (called by the one party holding the round barrier's crossing). */
  round(round: number): void;
  /** The current round's schedule text (src/wire/explore-file.ts parses it). */
  schedule(): string | null;
  /** The rounds so far (this one included) whose order was not fully controlled; null when off. */
  degraded(): ExploreDegraded | null;
}

const byFile = new Map<string, Explorer | null>();

/** The explorer of the loaded stub `libraryFile`, or null when it does not explore. */
export function explorer(libraryFile: string): Explorer | null {
  if (!byFile.has(libraryFile)) byFile.set(libraryFile, load(libraryFile));
  return byFile.get(libraryFile)!;
}

/**
 * In a device process's thread, once the library is initialised: names the thread's party
 * ("main", "thread<k>") and places the explorer's points in this thread's rendezvous. A no-op
 * (returning null) when the stub does not explore.
 */
export function installExplorePoints(libraryFile: string, threadName: string): Explorer | null {
  const ex = explorer(libraryFile);
  if (!ex) return null;
  // The harness's latches block their stream while held (native-stub/harness/hold/hold.c): the hold
  // library attaches to the explorer now that aclInit has turned it on, whenever it was loaded.
  koffiDeclarations().loadHoldLibrary(resolveHoldLibrary(process.env), libraryFile);
  ex.nameThread(threadName);
  setRendezvousPoints({ point: ex.point, block: ex.block, wake: ex.wake });
  return ex;
}

function load(file: string): Explorer | null {
  const fns: ExploreFunctions | null = koffiDeclarations().loadExploreFunctions(file);
  if (!fns || fns.enabled() !== 1) return null;
  return {
    nameThread: (name) => void fns.nameThread(name),
    point: (what) => void fns.point(what),
    block: (what) => void fns.block(what),
    wake: (what) => void fns.wake?.(what),
    leave: () => void fns.leave(),
    round: (r) => void fns.round(r),
    schedule: () => fns.schedule(),
    degraded: () => fns.degraded(),
  };
}

/** The koffi declarations, loaded on first use: importing src/acl must never load koffi (Jest's processes import it). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const koffiDeclarations = () => require('./native') as typeof import('./native');
