/** The per-run scenario directory: created with `tmp`, removed after the run unless kept. */
import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tmp from 'tmp';
import { LAYOUT } from '../rendezvous';
import { toChromeTrace } from '../trace/chrome-trace';
import { MAX_CAPTURE_CHARS, roleLogFile, type OutputSink } from './output-capture';
import type { RunCut } from './run-cut';
import type { CancelledTask, RoleResult, TraceFile } from './types';
import { ENV, envOff, envOn } from '../env';

/** Scenario directories are named <base>/cann-harness-<parent pid>-<random> (see scenarioBaseDir). */
export const SCENARIO_DIR_PREFIX = 'cann-harness-';

/**
 * Where scenario directories go: CANN_HARNESS_TMPDIR if set, else the OS temp dir. On a disk the
 * fsync of every publish dominates rendezvous latency; a tmpfs (e.g. /dev/shm) makes it free.
 */
export function scenarioBaseDir(env: NodeJS.ProcessEnv = process.env): string {
  const wanted = env[ENV.tmpDir];
  if (!wanted) return os.tmpdir();
  if (!path.isAbsolute(wanted) || !existsSync(wanted) || !statSync(wanted).isDirectory()) {
    throw new Error(`CANN_HARNESS_TMPDIR=${wanted} must be an absolute path to an existing directory (or unset it)`);
  }
  return wanted;
}

export function createScenarioDir(): string {
  const base = scenarioBaseDir();
  let dir: string;
  try {
    // tmp appends "-<pid>-<random>" to the prefix
    dir = tmp.dirSync({ prefix: 'cann-harness', tmpdir: base }).name;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const where = process.env[ENV.tmpDir] ? `CANN_HARNESS_TMPDIR=${base}` : `the OS temp dir ${base}`;
    throw new Error(
      `cannot create a scenario directory in ${where} (${err.code ?? 'error'}: ${err.message}): ` +
        'set CANN_HARNESS_TMPDIR to a writable directory, e.g. CANN_HARNESS_TMPDIR=/dev/shm',
      { cause: e },
    );
  }
  for (const sub of [LAYOUT.handles, LAYOUT.signals, LAYOUT.done, LAYOUT.barriers, LAYOUT.trace, LAYOUT.staging]) {
    mkdirSync(path.join(dir, sub));
  }
  return dir;
}

export function removeScenarioDir(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    /* best effort: called from exit paths too */
  }
}

export function keepRequested(keepDir: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  // CANN_HARNESS_TRACE=1 (run --trace): keep passing runs too, for their timeline (trace.json).
  return keepDir === true || envOn(ENV.keep, env) || envOn(ENV.trace, env);
}

/**
 * Writes `file` without following a link someone planted at its name: the data goes to a new file
 * made exclusively under a random name (O_EXCL | O_NOFOLLOW), which is then renamed over the name
 * (a rename replaces a symlink, never what it points at).
 */
export function writeOwnFile(file: string, data: string): void {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    writeFileSync(fd, data);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

function reason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err.code ?? err.message;
}

type Stream = 'stdout' | 'stderr';
/** Bytes a role log gathers before one write: bounds its memory and its system calls (4 per MiB). */
const LOG_WRITE_BLOCK_BYTES = 256 * 1024;

/**
 * One stream of one role written in full to logs/<role>.<stream>.log while the role runs. The file is
 * made exclusively before the role starts (openRoleLogs); writes are synchronous, in blocks of
 * LOG_WRITE_BLOCK_BYTES, so memory stays flat whatever the role prints and the file is complete as
 * soon as close() returns (exit paths need no event loop). A write that fails (ENOSPC) ends it: the
 * post-mortem then writes what the capture kept in memory, and says so.
 */
export class RoleLogFile implements OutputSink {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private written = 0;
  private failure: string | null = null;

  constructor(private fd: number | null) {}

  write(chunk: Buffer | string): void {
    if (this.fd === null) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= LOG_WRITE_BLOCK_BYTES) this.flush();
  }

  /** Writes what is pending and closes the file; later writes are ignored. */
  close(): void {
    this.flush();
    this.release();
  }

  /**
   * Whether `file` holds the whole stream: closed without a failed write, still a regular file (not
   * a link role code put there) of the length written. The same inode is not required: a kept directory
   * copied to the results folder across file systems (results-dir.ts) has a copy. Null if complete, else why not.
   */
  incompleteAt(file: string): string | null {
    if (this.fd !== null) return 'still open';
    if (this.failure !== null) return this.failure;
    try {
      const st = lstatSync(file);
      return st.isFile() && st.size === this.written ? null : 'replaced or changed by someone else';
    } catch (e) {
      return reason(e);
    }
  }

  private flush(): void {
    if (this.fd === null || this.pendingBytes === 0) return;
    const data = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    try {
      for (let off = 0; off < data.length; ) off += writeSync(this.fd, data, off);
      this.written += data.length;
    } catch (e) {
      this.failure = reason(e);
      this.release();
    }
  }

  private release(): void {
    this.pending = [];
    this.pendingBytes = 0;
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already closed: nothing more to write */
    }
    this.fd = null;
  }
}

/** The full logs of one run's roles (openRoleLogs), by role and stream; a missing one is written by the post-mortem from the capture. */
export class RoleLogs {
  private readonly files = new Map<string, RoleLogFile>();
  /** Why no file could be made for a stream (shown only if the capture then lost part of it). */
  private readonly notMade = new Map<string, string>();

  get(role: string, stream: Stream): RoleLogFile | undefined {
    return this.files.get(`${role}.${stream}`);
  }

  /** null when the file in `dir` holds the whole stream, else why it does not. */
  incompleteAt(dir: string, role: string, stream: Stream): string | null {
    const file = this.get(role, stream);
    return file ? file.incompleteAt(roleLogFile(dir, role, stream)) : (this.notMade.get(`${role}.${stream}`) ?? 'not made');
  }

  /** Flushes and closes every file (before the post-mortem, and on every exit path). */
  close(): void {
    for (const f of this.files.values()) f.close();
  }

  static open(dir: string, roles: string[]): RoleLogs {
    const logs = new RoleLogs();
    const note = (why: string) => {
      for (const role of roles) for (const stream of ['stdout', 'stderr'] as const) logs.notMade.set(`${role}.${stream}`, why);
    };
    try {
      // Not recursive, and before any role starts: a logs/ that already exists (or is a link) is not ours to write in.
      mkdirSync(path.join(dir, LAYOUT.logs), { mode: 0o755 });
    } catch (e) {
      note(`logs/ could not be made at the start: ${reason(e)}`);
      return logs;
    }
    for (const role of roles) {
      for (const stream of ['stdout', 'stderr'] as const) {
        const file = roleLogFile(dir, role, stream);
        try {
          const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
          logs.files.set(`${role}.${stream}`, new RoleLogFile(fd));
        } catch (e) {
          logs.notMade.set(`${role}.${stream}`, `not made at the start: ${reason(e)}`);
        }
      }
    }
    return logs;
  }
}

/**
 * Opens logs/<role>.<stream>.log for every role before any starts, for its full output (see
 * RoleLogFile). What cannot be made is left to the post-mortem, as before: the last 8 MiB.
 */
export function openRoleLogs(dir: string, roles: string[]): RoleLogs {
  return RoleLogs.open(dir, roles);
}

/**
 * When a directory is kept, leave the logs and the result next to the rendezvous files. Never
 * follows a link planted in the directory (role code can write there). A role's log streamed in
 * full while it ran (`streamed`, closed before this) stays as it is; any other is written from what
 * the capture kept. Returns what could not be written, one phrase each (empty when everything was);
 * the report shows them.
 */
export function writePostMortem(dir: string, roles: RoleResult[], result: unknown, cut?: RunCut, streamed?: RoleLogs): string[] {
  const problems: string[] = [];
  const logs = path.join(dir, LAYOUT.logs);
  let logsUsable = false;
  try {
    // Not recursive: if the directory is gone (removed by a watchdog, or by hand), it stays gone.
    mkdirSync(logs, { mode: 0o755 });
    logsUsable = true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return ['the scenario directory was removed meanwhile'];
    if (code === 'EEXIST') {
      // Made by a role: use it if it is a real directory, never where a link points.
      const st = lstatSync(logs);
      if (st.isDirectory()) logsUsable = true;
      else problems.push(`logs/ (something else already had the name: a ${st.isSymbolicLink() ? 'symbolic link' : 'file'})`);
    } else {
      problems.push(`logs/ (${reason(e)})`);
    }
  }
  if (logsUsable) {
    for (const r of roles) {
      for (const [stream, text] of [['stdout', r.stdout], ['stderr', r.stderr]] as const) {
        const incomplete = streamed ? streamed.incompleteAt(dir, r.name, stream) : 'not streamed';
        if (incomplete === null) continue; // the full log, already in place
        try {
          writeOwnFile(roleLogFile(dir, r.name, stream), text);
        } catch (e) {
          problems.push(`logs/${r.name}.${stream}.log (${reason(e)})`);
          continue;
        }
        const lost = r.outputLoss?.find((l) => l.stream === stream)?.notKeptChars ?? 0;
        if (streamed && lost > 0) {
          problems.push(`logs/${r.name}.${stream}.log in full (${incomplete}; it has the last ${MAX_CAPTURE_CHARS / (1024 * 1024)} MiB instead)`);
        }
      }
    }
  }
  try {
    writeOwnFile(path.join(dir, 'result.json'), JSON.stringify(result, null, 2));
  } catch (e) {
    problems.push(`result.json (${reason(e)})`);
  }
  // CANN_HARNESS_TRACE=0 (config trace: 'never'): no timeline; `cann-harness trace <dir>` can build it later.
  if (!envOff(ENV.trace)) {
    try {
      writeTimeline(dir, roles, cut);
    } catch (e) {
      problems.push(`trace.json (${reason(e)})`);
    }
  }
  return problems;
}

/**
 * One timeline of every process's stream tasks and marks, for ui.perfetto.dev / chrome://tracing:
 * `<dir>/trace.json`. `cut` (runCut: the deadline or the first failure) is where unfinished tasks,
 * and those only the harness's stop ended, end. Returns the file, or null when the directory has no stub traces.
 */
export function writeTimeline(dir: string, roles: Pick<RoleResult, 'name' | 'pid' | 'marks'>[], cut?: RunCut): string | null {
  const traces = readTraces(dir, new Map(roles.filter((r) => r.pid !== null).map((r) => [r.pid!, r.name])));
  if (traces.length === 0) return null;
  const marks = roles.map((r) => ({ role: r.name, pid: r.pid, marks: r.marks }));
  const file = path.join(dir, 'trace.json');
  writeOwnFile(file, JSON.stringify(toChromeTrace(traces, marks, cut && { endNs: cut.endNs, endLabel: cut.label, stoppedAt: cut.stoppedAt })));
  return file;
}

/** Tasks the stub cancelled (trace lines with "op":"cancel"), by the role whose process queued them. */
export function readCancelledTasks(dir: string, roleByPid: Map<number, string>): Map<string, CancelledTask[]> {
  const out = new Map<string, CancelledTask[]>();
  for (const trace of readTraces(dir, roleByPid)) {
    if (trace.role === null || !trace.jsonl.includes('"op":"cancel"')) continue;
    for (const line of trace.jsonl.split('\n')) {
      if (!line.includes('"op":"cancel"')) continue;
      try {
        // t is a 64-bit ns count: keep its digits exact rather than going through a double.
        const t = /"t":(\d+)/.exec(line)?.[1] ?? '0';
        const r = JSON.parse(line) as { kind: string; device: number; stream: number; event: number; ipc: string | null; slot: number | null };
        const task: CancelledTask = { kind: r.kind, device: r.device, stream: r.stream, event: r.event, ipc: r.ipc, slot: r.slot, tNs: t };
        out.set(trace.role, [...(out.get(trace.role) ?? []), task]);
      } catch {
        /* a torn last line of a killed process */
      }
    }
  }
  return out;
}

/** The stub's trace files of one run, tagged with the role whose process wrote each. */
export function readTraces(dir: string, roleByPid: Map<number, string>): TraceFile[] {
  const traceDir = path.join(dir, LAYOUT.trace);
  let names: string[];
  try {
    names = readdirSync(traceDir);
  } catch {
    return [];
  }
  const out: TraceFile[] = [];
  for (const name of names.sort()) {
    const m = /^trace-(\d+)\.jsonl$/.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    out.push({ pid, role: roleByPid.get(pid) ?? null, jsonl: readFileSync(path.join(traceDir, name), 'utf8') });
  }
  return out;
}
