/**
 * Runs one program to completion for Jest's collection, where nothing can be awaited (a native
 * scenario's `build:` command and its `precheck: { exec }`): started by src/jest/native-gate.ts with
 * spawnSync, it starts the program as the leader of its own process group, keeps a bounded part of
 * its output (the head and the tail of each stream: a build printing 300 MB must not exhaust the
 * caller's buffer), enforces the deadline (SIGTERM to the group, SIGKILL after a grace), SIGKILLs the
 * group when the program ends (whatever it forked goes too), and prints one JSON line: ExecOutcome.
 *
 * It also stops the program's group when its own parent (the Jest worker or runner blocked in
 * spawnSync) dies, even by SIGKILL: the parent's pid is compared with getppid() (exact: see
 * harness/parent-watch.ts). And it says every `progressMs` that the program is still running, on
 * its stderr, which is the caller's (the caller is blocked and cannot).
 *
 * argv[2]: JSON Job. The environment is the program's.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

interface Job {
  program: string;
  args: string[];
  cwd: string;
  timeoutMs: number;
  /** The caller's pid: when our parent is no longer it, stop. */
  parentPid?: number;
  /** Bytes kept of each stream: half from its start, half from its end. */
  keepBytes?: number;
  /** When set: "<label> still running (N s)" on stderr this often. */
  progressMs?: number;
  label?: string;
}

const GRACE_MS = 2000;
const PARENT_POLL_MS = 200;
const DEFAULT_KEEP = 256 * 1024;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is empty */
  }
}

function parentPid(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return process.ppid;
  }
}

/** The first and the last `keep / 2` bytes of a stream, and how many were dropped in between. */
export class HeadTail {
  private head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  dropped = 0;

  constructor(private readonly keep: number) {}

  push(chunk: Buffer): void {
    const half = Math.floor(this.keep / 2);
    if (this.headLen < half) {
      const take = chunk.subarray(0, half - this.headLen);
      this.head.push(take);
      this.headLen += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailLen += chunk.length;
    while (this.tailLen - this.tail[0].length >= half) {
      this.dropped += this.tail[0].length;
      this.tailLen -= this.tail.shift()!.length;
    }
    // The loop leaves at most one chunk's worth too much: cut the oldest chunk so the tail is `half` at most.
    if (this.tailLen > half) {
      const cut = this.tailLen - half;
      this.dropped += cut;
      this.tail[0] = this.tail[0].subarray(cut);
      this.tailLen = half;
    }
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    return this.dropped > 0 ? `${head}\n[... ${this.dropped} bytes of output left out ...]\n${tail}` : head + tail;
  }
}

function main(): void {
  const job = JSON.parse(process.argv[2] ?? '{}') as Job;
  const started = Date.now();
  const child = spawn(job.program, job.args, { cwd: job.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = new HeadTail(job.keepBytes ?? DEFAULT_KEEP);
  const err = new HeadTail(job.keepBytes ?? DEFAULT_KEEP);
  let lastLine = '';
  const remember = (d: Buffer) => {
    const lines = d.toString('utf8').split('\n').filter((l) => l.trim());
    if (lines.length) lastLine = lines[lines.length - 1].slice(0, 200);
  };
  child.stdout.on('data', (d: Buffer) => (out.push(d), remember(d)));
  child.stderr.on('data', (d: Buffer) => (err.push(d), remember(d)));
  let timedOut = false;
  let spawnError: string | undefined;
  let spawnCode: string | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    if (child.pid) killGroup(child.pid, 'SIGTERM');
    setTimeout(() => child.pid && killGroup(child.pid, 'SIGKILL'), GRACE_MS).unref();
  }, job.timeoutMs);
  const progress = job.progressMs
    ? setInterval(() => {
        const s = Math.round((Date.now() - started) / 1000);
        process.stderr.write(
          `[cann-harness] ${job.label ?? job.program} still running (${s} s of at most ${Math.round(job.timeoutMs / 1000)} s)` +
            `${lastLine ? `: ${lastLine}` : ''}\n`,
        );
      }, job.progressMs)
    : undefined;
  const watch =
    job.parentPid !== undefined
      ? setInterval(() => {
          if (parentPid() === job.parentPid) return;
          if (child.pid) killGroup(child.pid, 'SIGKILL');
          process.exit(1);
        }, PARENT_POLL_MS)
      : undefined;
  child.on('error', (e: NodeJS.ErrnoException) => {
    spawnError = e.message;
    spawnCode = e.code;
  });
  child.on('close', (code, signal) => {
    clearTimeout(timer);
    clearInterval(progress);
    clearInterval(watch);
    if (child.pid) killGroup(child.pid, 'SIGKILL');
    process.stdout.write(`${JSON.stringify({ code, signal, timedOut, spawnError, spawnCode, stdout: out.text(), stderr: err.text() })}\n`);
  });
  // Our parent (a Jest worker) may be interrupted, or its group (Ctrl-C): take the program's group with us.
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(sig, () => {
      if (child.pid) killGroup(child.pid, 'SIGKILL');
      process.exit(1);
    });
  }
}

if (require.main === module) main();
