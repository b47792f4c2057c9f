/**
 * The stub's trace read as a stream, for soak rounds: take() returns what each process wrote
 * since the last discard(), which empties the files once the round is checked, so 100,000 rounds
 * never hold (or leave on disk) more than one round of trace, and a round that fails its check
 * leaves its own trace in the files (kept with the scenario directory, for the report). Only safe while no process writes: the rounds runner calls it
 * while it holds the round-end crossing of the round barrier (every other role asleep in it, every
 * role's streams drained: the stub writes a task's end line before its synchronize can return).
 *
 * Cheap per round: each trace file stays open (one read and one ftruncate per file and take), and
 * the directory is listed again only when its mtime says that files came or went, or is too recent
 * to tell (a file made within the same clock tick as the last listing leaves the mtime unchanged).
 */
import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { TraceSource } from './stub-trace';

const TRACE_FILE = /^trace-(\d+)\.jsonl$/;
/** A directory modified less than this long ago is listed again: its mtime has a coarse clock. */
const RECENT_MTIME_MS = 2_000;

interface OpenTrace {
  pid: number;
  fd: number;
}

export class TraceTail {
  #open = new Map<string, OpenTrace>();
  #listedMtimeNs = -1n;
  #buf = Buffer.alloc(64 * 1024);
  /** Files read by the last take(), emptied by discard(). */
  #taken: number[] = [];

  constructor(
    readonly dir: string,
    private readonly roleOf: (pid: number) => string | null = () => null,
  ) {}

  take(): TraceSource[] {
    if (!this.#list()) return []; // no trace directory (real CANN, or ACL_STUB_TRACE unset)
    const out: TraceSource[] = [];
    this.#taken = [];
    for (const { pid, fd } of this.#open.values()) {
      const bytes = this.#readAll(fd);
      if (bytes === 0) continue;
      this.#taken.push(fd);
      out.push({ pid, role: this.roleOf(pid), jsonl: this.#buf.toString('utf8', 0, bytes) });
    }
    return out;
  }

  /** Empties the files the last take() read (same rule: only while no process writes). */
  discard(): void {
    for (const fd of this.#taken.splice(0)) ftruncateSync(fd, 0); // the stub appends (O_APPEND): its next line starts the file again
  }

  /** Closes the trace files (the runner calls it once, at the end of the run). */
  close(): void {
    for (const { fd } of this.#open.values()) closeSync(fd);
    this.#open.clear();
  }

  /** Opens trace files that appeared since the last listing; false without a trace directory. */
  #list(): boolean {
    let mtimeNs: bigint;
    try {
      mtimeNs = statSync(this.dir, { bigint: true }).mtimeNs;
    } catch {
      return false;
    }
    const recent = Number(mtimeNs / 1_000_000n) > Date.now() - RECENT_MTIME_MS;
    if (mtimeNs === this.#listedMtimeNs && !recent) return true;
    for (const name of readdirSync(this.dir)) {
      const m = TRACE_FILE.exec(name);
      if (!m || this.#open.has(name)) continue;
      let fd: number;
      try {
        // Never through a link: only the stub's own files are read (and emptied).
        fd = openSync(path.join(this.dir, name), constants.O_RDWR | constants.O_NOFOLLOW);
      } catch {
        continue;
      }
      if (!fstatSync(fd).isFile()) {
        closeSync(fd);
        continue;
      }
      this.#open.set(name, { pid: Number(m[1]), fd });
    }
    this.#listedMtimeNs = mtimeNs;
    return true;
  }

  /** Reads the whole file into #buf (grown as needed); returns its length. */
  #readAll(fd: number): number {
    let n = 0;
    for (;;) {
      if (n === this.#buf.length) {
        const bigger = Buffer.alloc(this.#buf.length * 2);
        this.#buf.copy(bigger, 0, 0, n);
        this.#buf = bigger;
      }
      const got = readSync(fd, this.#buf, n, this.#buf.length - n, n);
      if (got === 0) return n;
      n += got;
      if (n < this.#buf.length) return n; // a short read of a regular file: its end
    }
  }
}
