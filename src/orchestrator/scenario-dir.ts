/** The per-run scenario directory: created with `tmp`, removed after the run unless kept. */
import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tmp from 'tmp';
import { LAYOUT } from '../rendezvous';
import { toChromeTrace } from '../trace/chrome-trace';
import { roleLogFile } from './output-capture';
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

/**
 * When a directory is kept, leave the logs and the result next to the rendezvous files. Never
 * follows a link planted in the directory (role code can write there). Returns what could not be
 * written, one phrase each (empty when everything was); the report shows them.
 */
export function writePostMortem(dir: string, roles: RoleResult[], result: unknown, cut?: RunCut): string[] {
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
        try {
          writeOwnFile(roleLogFile(dir, r.name, stream), text);
        } catch (e) {
          problems.push(`logs/${r.name}.${stream}.log (${reason(e)})`);
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
