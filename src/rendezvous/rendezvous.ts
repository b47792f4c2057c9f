/**
 * Coordination between the processes of one scenario through plain files in its directory.
 * The file layout is documented in README.md; everything here is a thin, validated layer over it.
 */
import { promises as fsp, existsSync, mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { createEmptyFileSync, writeFileAtomicSync } from './atomic-file';
import { RendezvousTimeoutError } from './errors';
import { waitFor } from './wait-for';
import { LAYOUT, barrierDir, checkName, donePath, handlePath, signalPath } from './layout';

export interface WaitingFor {
  what: string;
  from?: string;
}
export type WaitReporter = (waiting: WaitingFor | null) => void;

export interface AwaitOptions {
  timeoutMs: number;
  /** The role expected to write what is awaited; named in the timeout error. */
  from?: string;
}

function checkTimeout(opts: { timeoutMs?: unknown } | undefined, call: string): number {
  const t = opts?.timeoutMs;
  if (typeof t !== 'number' || Number.isNaN(t) || t < 0) {
    throw new TypeError(`${call}: opts.timeoutMs must be a number >= 0 (or Infinity), got ${JSON.stringify(t)}`);
  }
  return t;
}

function mkdirIfMissing(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

// Checks and publishes use synchronous syscalls on purpose: they are short (small files, one
// directory), and skipping the libuv thread-pool round trips roughly halves publish-to-observe
// latency (bench/rendezvous-latency.bench.ts).
async function readIfExists(file: string): Promise<Buffer | undefined> {
  // Looked for first: a wait's first check usually finds nothing, and a failed open costs an
  // exception (about 3 us, and more with cold caches: a soak round's consumer spent 5 % of its CPU
  // there); a file removed after the look is the ENOENT below.
  if (!existsSync(file)) return undefined;
  try {
    return readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

async function existsNow(file: string): Promise<true | undefined> {
  return existsSync(file) ? true : undefined;
}

/**
 * The schedule explorer's points in the rendezvous (set by the device process when its stub
 * explores; harness/explore-points.ts): a point before every publish, signal and markDone takes
 * effect; an await blocks before it sleeps, wakes its waiters after the effect, and is a point once
 * its value is there. Unset (the default, and always outside exploring): one check per call.
 */
export interface RendezvousPoints {
  point(what: string): void;
  block(what: string): void;
  wake(what: string): void;
}
let points: RendezvousPoints | undefined;
/** Installs (or, with undefined, removes) this thread's explorer points. */
export function setRendezvousPoints(p: RendezvousPoints | undefined): void {
  points = p;
}

export class Rendezvous {
  readonly dir: string;
  readonly self?: string;
  private readonly reporter?: WaitReporter;
  /** Where publishes stage their temporary files (same filesystem, not watched by readers). */
  private readonly staging: string | undefined;
  /** Waits in progress, oldest first; the newest is what we report as "waiting for". */
  private readonly pending: WaitingFor[] = [];

  constructor(dir: string, self?: string, reporter?: WaitReporter) {
    if (typeof dir !== 'string' || !path.isAbsolute(dir)) {
      throw new TypeError(`Rendezvous: dir must be an absolute path, got ${JSON.stringify(dir)}`);
    }
    if (self !== undefined) checkName('role', self);
    this.dir = dir;
    this.self = self;
    this.reporter = reporter;
    if (!existsSync(dir)) {
      throw new Error(`Rendezvous: scenario directory ${dir} does not exist (it is created by the orchestrator, or by you)`);
    }
    // Never recursive: a scenario directory removed during shutdown must not be re-created.
    for (const sub of [LAYOUT.handles, LAYOUT.signals, LAYOUT.done, LAYOUT.barriers]) mkdirIfMissing(path.join(dir, sub));
    try {
      mkdirIfMissing(path.join(dir, LAYOUT.staging));
      this.staging = path.join(dir, LAYOUT.staging);
    } catch {
      this.staging = undefined; // publish with temporary files next to the final names instead
    }
  }

  /** Publish bytes under `name`; replaces an earlier value atomically. */
  async publish(name: string, data: Buffer | string): Promise<void> {
    checkName('handle', name);
    if (!Buffer.isBuffer(data) && typeof data !== 'string') {
      throw new TypeError(`publish("${name}"): data must be a Buffer or a string`);
    }
    if (points) return explored(`handle "${name}"`, () => writeFileAtomicSync(handlePath(this.dir, name), data, this.staging));
    writeFileAtomicSync(handlePath(this.dir, name), data, this.staging);
  }

  /** Resolve with the bytes published under `name`, waiting for them up to `timeoutMs`. */
  async await(name: string, opts: AwaitOptions): Promise<Buffer> {
    checkName('handle', name);
    const timeoutMs = checkTimeout(opts, `await("${name}")`);
    const file = handlePath(this.dir, name);
    return this.track({ what: `handle "${name}"`, from: opts.from }, file, () => readIfExists(file), timeoutMs);
  }

  async signal(name: string): Promise<void> {
    checkName('signal', name);
    if (points) return explored(`signal "${name}"`, () => createEmptyFileSync(signalPath(this.dir, name)));
    createEmptyFileSync(signalPath(this.dir, name));
  }

  async awaitSignal(name: string, opts: AwaitOptions): Promise<void> {
    checkName('signal', name);
    const timeoutMs = checkTimeout(opts, `awaitSignal("${name}")`);
    const file = signalPath(this.dir, name);
    await this.track({ what: `signal "${name}"`, from: opts.from }, file, () => existsNow(file), timeoutMs);
  }

  /** Mark `role` (default: this role) as done. */
  async markDone(role?: string): Promise<void> {
    const who = role ?? this.self;
    if (who === undefined) {
      throw new TypeError('markDone(): no role given and this Rendezvous has no self role; pass the role name');
    }
    checkName('role', who);
    if (points) return explored(`done flag of role "${who}"`, () => createEmptyFileSync(donePath(this.dir, who)));
    createEmptyFileSync(donePath(this.dir, who));
  }

  async awaitDone(role: string, opts: { timeoutMs: number }): Promise<void> {
    checkName('role', role);
    const timeoutMs = checkTimeout(opts, `awaitDone("${role}")`);
    const file = donePath(this.dir, role);
    await this.track({ what: `done flag of role "${role}"`, from: role }, file, () => existsNow(file), timeoutMs);
  }

  /**
   * Counted barrier: resolves once `parties` callers (in any processes) have arrived.
   * Arrival takes the lowest free ticket 0..parties-1 with O_EXCL creation; ticket k can only be
   * taken after 0..k-1 exist, so the existence of ticket parties-1 means everyone has arrived.
   * A barrier name is single-use.
   */
  async barrier(name: string, parties: number, opts: { timeoutMs: number }): Promise<void> {
    checkName('barrier', name);
    if (!Number.isInteger(parties) || parties < 1) {
      throw new TypeError(`barrier("${name}"): parties must be an integer >= 1, got ${JSON.stringify(parties)}`);
    }
    const timeoutMs = checkTimeout(opts, `barrier("${name}")`);
    const dir = barrierDir(this.dir, name);
    await fsp.mkdir(dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
    const ticket = await this.takeTicket(dir, name, parties);
    if (ticket === parties - 1) return; // the last to arrive: nothing to wait for
    const last = path.join(dir, String(parties - 1));
    await this.track(
      { what: `barrier "${name}" (${parties} parties)` },
      last,
      () => existsNow(last),
      timeoutMs,
      async () => describeArrivals(dir, parties),
    );
  }

  private async takeTicket(dir: string, name: string, parties: number): Promise<number> {
    const label = `${this.self ?? 'anonymous'} pid ${process.pid}\n`;
    for (let k = 0; k < parties; k++) {
      let fh: fsp.FileHandle;
      try {
        fh = await fsp.open(path.join(dir, String(k)), 'wx', 0o644);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw e;
      }
      try {
        await fh.writeFile(label); // informational only (who arrived); readers tolerate it empty
      } finally {
        await fh.close();
      }
      return k;
    }
    throw new Error(
      `barrier("${name}"): all ${parties} tickets are already taken: more parties arrived than declared, ` +
        `or the barrier name was reused (barrier names are single-use; pick a new name per round)`,
    );
  }

  private async track<T>(
    waiting: WaitingFor,
    file: string,
    check: () => Promise<T | undefined>,
    timeoutMs: number,
    detailOnTimeout?: () => Promise<string>,
  ): Promise<T> {
    this.pending.push(waiting);
    this.reporter?.(waiting);
    const explore = points;
    try {
      // One text per party: with several awaits in flight (awaitSignals, a Promise.all), the oldest.
      explore?.block(awaitWhat(this.pending[0].what));
      const outcome = await waitFor(path.dirname(file), check, timeoutMs, path.basename(file));
      if (outcome.ok) {
        explore?.point(`await ${waiting.what}`);
        return outcome.value;
      }
      const detail = detailOnTimeout ? await detailOnTimeout().catch(() => undefined) : undefined;
      throw new RendezvousTimeoutError(waiting.what, file, outcome.waitedMs, waiting.from, detail);
    } finally {
      this.pending.splice(this.pending.indexOf(waiting), 1);
      this.reporter?.(this.pending.length ? this.pending[this.pending.length - 1] : null);
      if (explore && this.pending.length) this.blockAgainWhenIdle(explore);
    }
  }

  /**
   * Exploring, after one of several awaits in flight returned: once the code it resumed has run
   * (the next turn of the event loop), this thread waits for the others, BLOCKED again on the
   * oldest. Otherwise the explorer took it for running host code, and marked it gone after its
   * stall bound (awaitSignals degraded every round). A thread whose other awaits ended meanwhile
   * is left alone.
   */
  private blockAgainWhenIdle(explore: RendezvousPoints): void {
    setImmediate(() => {
      if (this.pending.length && points === explore) explore.block(awaitWhat(this.pending[0].what));
    });
  }
}

/** What an await of `what` blocks on: the text its publisher wakes (Rendezvous.publish, signal, markDone). */
function awaitWhat(what: string): string {
  return `await ${what}`;
}

/** An explored effect: a point before it, then the parties that await it are woken. */
function explored(what: string, effect: () => void): void {
  points!.point(what);
  effect();
  points!.wake(awaitWhat(what));
}

async function describeArrivals(dir: string, parties: number): Promise<string> {
  const who: string[] = [];
  for (let k = 0; k < parties; k++) {
    const content = await readIfExists(path.join(dir, String(k)));
    if (content === undefined) break;
    who.push(content.toString().trim() || '?');
  }
  return `${who.length} of ${parties} parties arrived` + (who.length ? ` (${who.join(', ')})` : '');
}
