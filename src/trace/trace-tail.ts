/**
 * The stub's trace read as a stream, for soak rounds: take() returns what each process wrote
 * since the last take() and empties the files, so 100,000 rounds never hold (or leave on disk)
 * more than one round of trace. Only safe while no process writes: the rounds runner calls it
 * between a round's end barrier and the next round's start, when every role's streams are
 * drained (the stub writes a task's end line before its synchronize can return).
 */
import { readFileSync, readdirSync, truncateSync } from 'node:fs';
import * as path from 'node:path';
import type { TraceSource } from './stub-trace';

const TRACE_FILE = /^trace-(\d+)\.jsonl$/;

export class TraceTail {
  constructor(
    readonly dir: string,
    private readonly roleOf: (pid: number) => string | null = () => null,
  ) {}

  take(): TraceSource[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return []; // no trace directory (real CANN, or ACL_STUB_TRACE unset)
    }
    const out: TraceSource[] = [];
    for (const name of names) {
      const m = TRACE_FILE.exec(name);
      if (!m) continue;
      const file = path.join(this.dir, name);
      const jsonl = readFileSync(file, 'utf8');
      if (jsonl === '') continue;
      truncateSync(file, 0); // the stub appends (O_APPEND): its next line starts the file again
      const pid = Number(m[1]);
      out.push({ pid, role: this.roleOf(pid), jsonl });
    }
    return out;
  }
}
