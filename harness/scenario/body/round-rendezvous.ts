/**
 * Per-round names for soak rounds: inside round r, ctx.shareEvent('ev'), ctx.signal('ready') and
 * friends use `<name>@r<r>`, so a round never sees the previous round's handle or signal. Names
 * shared in `setup` use the plain rendezvous and last the whole run. After each round's end
 * barrier (nobody reads them any more) a role removes the files it wrote in that round, so the
 * scenario directory does not grow with the rounds.
 */
import { unlinkSync } from 'node:fs';
import * as path from 'node:path';
import { LAYOUT, type Rendezvous } from '../../../src/rendezvous';

export interface RoundRendezvous {
  rendezvous: Rendezvous;
  setRound(round: number): void;
  /** Removes what this role published or signalled in the current round. */
  removeRoundNames(): void;
}

export function roundRendezvous(base: Rendezvous): RoundRendezvous {
  let round = 0;
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
    removeRoundNames() {
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
