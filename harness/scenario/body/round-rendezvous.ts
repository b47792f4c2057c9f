/**
 * Per-round names for soak rounds: inside round r, ctx.shareEvent('ev'), ctx.signal('ready') and
 * friends use `<name>@r<r>`, so a round never sees the previous round's handle or signal. Names
 * shared in `setup` use the plain rendezvous and last the whole run.
 *
 * The files a role wrote in a round are read by nobody once the round's end barrier is crossed,
 * so the next round reuses them instead of making new ones (issue #35): a signal is the previous
 * round's signal file renamed to the new name (an empty file either way); a value is written into
 * the previous round's value file in place (its old name is read by nobody; through a second name
 * in `.staging`, so that watchers of `handles/` see no write) and then renamed to the new name, so a
 * reader still sees no file or the whole file. Steady rounds thus create and
 * remove no file at all: on ext4, creating one cost 0.1-0.2 ms of CPU (with many files removed
 * recently, a new inode is searched for past every one of them), removing one about 0.05 ms, and
 * each removal woke every process watching the directory for nothing. What a round did not reuse
 * is removed at the end of the next, and everything at the end of the run, so the scenario
 * directory does not grow with the rounds.
 */
import { closeSync, constants, ftruncateSync, linkSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { threadId } from 'node:worker_threads';
import { LAYOUT, checkName, type Rendezvous } from '../../../src/rendezvous';

export interface RoundRendezvous {
  rendezvous: Rendezvous;
  setRound(round: number): void;
  /**
   * After a round's end: what this role wrote in it becomes reusable by the next round, and what
   * the round before left unused is removed (`all`: everything, at the run's end).
   */
  removeRoundNames(all?: boolean): void;
}

/** A file this role wrote in an earlier round: its path and its size. */
interface Written {
  file: string;
  size: number;
  /**
   * A value file's second name (hard link) in the unwatched `.staging`: it is rewritten through
   * it, so the processes watching `handles/` wake once, for the rename, not also for the write.
   */
  alias?: string;
}

/** The files of one kind (values or signals): written this round, and reusable from the last. */
interface Files {
  written: Written[];
  reusable: Written[];
}

function unlinkIfThere(file: string): void {
  try {
    unlinkSync(file); // unlink alone (rmSync adds two lstat calls a file): the names are ours, and files, or gone
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/**
 * Writes `bytes` into `old` (a file of ours nobody reads any more) through its alias, then renames
 * it to `file`; false if either name is gone.
 */
function rewriteAndRename(old: Written, file: string, bytes: Buffer): boolean {
  if (old.alias === undefined) return false;
  let fd: number;
  try {
    fd = openSync(old.alias, constants.O_WRONLY | constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  try {
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off, off);
    if (old.size > bytes.length) ftruncateSync(fd, bytes.length);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(old.file, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  return true;
}

let aliases = 0;
/** A second name for `file` in `stagingDir` (hidden; link() never follows a link); undefined if it cannot be made. */
function makeAlias(file: string, stagingDir: string): string | undefined {
  const alias = path.join(stagingDir, `.reuse.${process.pid}.${threadId}.${++aliases}`); // worker threads count apart
  try {
    linkSync(file, alias);
    return alias;
  } catch {
    return undefined; // e.g. a leftover of a dead process with our pid: this file is simply not reused
  }
}

/** Renames `old` (an empty signal file of ours) to `file`; false if `old` is gone. */
function renameIfThere(old: Written, file: string): boolean {
  try {
    renameSync(old.file, file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

export function roundRendezvous(base: Rendezvous): RoundRendezvous {
  let round = 0;
  const values: Files = { written: [], reusable: [] };
  const signals: Files = { written: [], reusable: [] };
  const ns = (name: string) => `${name}@r${round}`;
  const staging = path.join(base.dir, LAYOUT.staging);
  /** Removes a file of ours and its alias. */
  const forget = (w: Written) => {
    unlinkIfThere(w.file);
    if (w.alias) unlinkIfThere(w.alias);
  };
  const rendezvous: Rendezvous = Object.create(base, {
    publish: {
      value: async (name: string, data: Buffer | string) => {
        checkName('handle', ns(name)); // before any path is made of it
        const file = path.join(base.dir, LAYOUT.handles, ns(name));
        const old = Buffer.isBuffer(data) || typeof data === 'string' ? values.reusable.pop() : undefined;
        if (old) {
          const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data);
          if (rewriteAndRename(old, file, bytes)) return void values.written.push({ ...old, file, size: bytes.length });
          forget(old);
        }
        await base.publish(ns(name), data); // it checks the data
        values.written.push({ file, size: Buffer.byteLength(data), alias: makeAlias(file, staging) });
      },
    },
    await: { value: (name: string, opts: Parameters<Rendezvous['await']>[1]) => base.await(ns(name), opts) },
    signal: {
      value: async (name: string) => {
        checkName('signal', ns(name));
        const file = path.join(base.dir, LAYOUT.signals, ns(name));
        const old = signals.reusable.pop();
        if (!old || !renameIfThere(old, file)) await base.signal(ns(name));
        signals.written.push({ file, size: 0 });
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
      for (const kind of [values, signals]) {
        for (const w of kind.reusable.splice(0)) forget(w);
        const ended = kind.written.splice(0);
        if (all) ended.forEach(forget);
        else kind.reusable = ended;
      }
    },
  };
}
