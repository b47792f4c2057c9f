/**
 * Per-round names for soak rounds: inside round r, ctx.shareEvent('ev'), ctx.signal('ready') and
 * friends use `<name>@r<r>`, so a round never sees the previous round's handle or signal. Names
 * shared in `setup` use the plain rendezvous and last the whole run. After a round's end barrier
 * (nobody reads them any more) a role removes the files it wrote, so the scenario directory does
 * not grow with the rounds: those of REMOVE_EVERY rounds at once, and what is left at the run's
 * end. Each removal is an inotify event for every process watching that directory (the producer
 * watches signals/, the consumers handles/): removed a round at a time, they woke 3-6 processes
 * for nothing every round (issue #35); in a batch, a sleeping watcher wakes once for all of them.
 */
import { unlinkSync } from 'node:fs';
import * as path from 'node:path';
import { LAYOUT, type Rendezvous } from '../../../src/rendezvous';

/** How many rounds' names pile up before a role removes them (a bounded number of files). */
export const REMOVE_EVERY = 64;

export interface RoundRendezvous {
  rendezvous: Rendezvous;
  setRound(round: number): void;
  /**
   * After a round's end: removes what this role published or signalled in the last REMOVE_EVERY
   * rounds, once that many have ended (`all`: whatever is left, at the run's end).
   */
  removeRoundNames(all?: boolean): void;
}

export function roundRendezvous(base: Rendezvous): RoundRendezvous {
  let round = 0;
  let ended = 0;
  const written: string[] = [];
  const ns = (name: string) => `${name}@r${round}`;
  const rendezvous: Rendezvous = Object.create(base, {
    publish: {
      value: async (name: string, data: Buffer | string) => {
        await base.publish(ns(name), data);
        written.push(path.join(base.dir, LAYOUT.handles, ns(name)));
      },
    },
    await: { value: (name: string, opts: Parameters<Rendezvous['await']>[1]) => base.await(ns(name), opts) },
    signal: {
      value: async (name: string) => {
        await base.signal(ns(name));
        written.push(path.join(base.dir, LAYOUT.signals, ns(name)));
      },
    },
    awaitSignal: { value: (name: string, opts: Parameters<Rendezvous['awaitSignal']>[1]) => base.awaitSignal(ns(name), opts) },
    barrier: {
      value: (name: string, parties: number, opts: { timeoutMs: number }) => base.barrier(ns(name), parties, opts),
    },
  });
  return {
    rendezvous,
    setRound: (r) => (round = r),
    removeRoundNames(all = false) {
      if (!all && ++ended % REMOVE_EVERY !== 0) return;
      // unlink alone (rmSync adds two lstat calls a file): the names are ours, and files, or gone.
      for (const file of written.splice(0)) {
        try {
          unlinkSync(file);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        }
      }
    },
  };
}
