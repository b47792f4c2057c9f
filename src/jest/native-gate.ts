/**
 * The native parts of a scenario decided while Jest collects the spec (a skip can only be decided
 * then): its `build:` command, run once per run before its scenarios, and its
 * `precheck: { exec }`, whose exit code says run (0), skip (2, the last output line is the reason)
 * or fail (anything else, with its output). Both run through harness/native-exec.ts, which gives
 * the program its own process group and a deadline.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tsExecArgv } from '../orchestrator/process-host';
import { processAlive } from '../orchestrator/dead-runs';
import { explainSpawnError, nativeLibrary, nativeRoleEnv } from '../orchestrator/native-role';
import { resolveProgram, NativeProgramError } from '../scenario/native-exec';
import type { ScenarioPlan } from '../scenario/types';
import { harnessScript } from '../paths';
import { ENV, type Mode } from '../env';
import type { DeviceGate } from './probe';

const NATIVE_EXEC = harnessScript('native-exec');
export const BUILD_TIMEOUT_MS = 10 * 60_000;
/** How often a running build says it still runs. */
const BUILD_PROGRESS_MS = 15_000;

/** The build step's deadline: CANN_HARNESS_BUILD_TIMEOUT_MS, else 10 minutes. */
export function buildTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[ENV.buildTimeoutMs];
  if (raw === undefined || raw === '') return BUILD_TIMEOUT_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms <= 0) throw new Error(`${ENV.buildTimeoutMs}=${raw} must be a positive whole number of milliseconds (or unset it: 10 minutes)`);
  return ms;
}
/** The exit code with which a precheck says "skip" (as the CANN samples' run.sh reads it). */
export const PRECHECK_SKIP_EXIT = 2;

/** The same shape as the device gate: a failure's `reason` is its message. */
export type NativeGate = DeviceGate;

interface ExecOutcome {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  spawnError?: string;
  /** The spawn error's code (ENOENT, EACCES). */
  spawnCode?: string;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program to completion in its own process group (harness/native-exec.ts), which keeps the
 * head and tail of its output, stops it when this process dies (even by SIGKILL), and prints the
 * progress of a long build on our stderr (its stderr is ours: we are blocked meanwhile).
 */
function execSync(program: string, args: string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv, progress?: string): ExecOutcome {
  const job = JSON.stringify({ program, args, cwd, timeoutMs, parentPid: process.pid, ...(progress ? { progressMs: BUILD_PROGRESS_MS, label: progress } : {}) });
  const r = spawnSync(process.execPath, [...tsExecArgv(), NATIVE_EXEC, job], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: timeoutMs + 30_000, maxBuffer: 16 * 1024 * 1024 });
  const line = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as ExecOutcome;
  } catch {
    return { code: null, signal: r.signal, timedOut: false, spawnError: `the harness's runner died (${r.error?.message ?? r.signal ?? `exit ${r.status}`}; its messages are above)`, stdout: '', stderr: '' };
  }
}

function outputOf(o: ExecOutcome): string {
  return [o.stdout.trimEnd(), o.stderr.trimEnd()].filter(Boolean).join('\n') || '(no output)';
}

function howItEnded(o: ExecOutcome, timeoutMs: number): string {
  if (o.spawnError) return `could not start: ${o.spawnError}`;
  if (o.timedOut) return `timed out after ${timeoutMs} ms`;
  return o.signal ? `died by ${o.signal}` : `exited with code ${o.code}`;
}

/** Build outcomes of this process, by command and folder. */
const builds = new Map<string, ExecOutcome>();

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Runs `command` in `cwd` once per run (once per audit): Jest's workers share the outcome through
 * the run's private folder (the one of its notes file, made by the global setup and removed at its
 * teardown; in an audit, the audit's folder); the
 * first worker to create the lock file (holding its pid) runs it, the others wait for its outcome,
 * and stop waiting with an error if that worker died before writing it.
 */
export function buildOnce(command: string, cwd: string, env: NodeJS.ProcessEnv = process.env): ExecOutcome {
  const key = createHash('sha256').update(`${cwd}\0${command}`).digest('hex').slice(0, 16);
  const known = builds.get(key);
  if (known) return known;
  // An audit runs the suite once per mutant: its private folder (the declaration log's), which
  // lives for the whole audit, makes the build once per audit rather than once per pass.
  const auditLog = env[ENV.auditLog];
  const notes = env[ENV.notesLog];
  const shared = auditLog ? path.dirname(auditLog) : notes ? path.dirname(notes) : undefined;
  const timeoutMs = buildTimeoutMs(env);
  const run = () => {
    process.stderr.write(`[cann-harness] build: ${command} (in ${cwd})\n`);
    return execSync('/bin/sh', ['-c', command], cwd, timeoutMs, env, `build: ${command}`);
  };
  let outcome: ExecOutcome | undefined;
  if (!shared || !existsSync(shared)) {
    outcome = run();
  } else {
    const resultFile = path.join(shared, `build-${key}.json`);
    const end = Date.now() + timeoutMs + 60_000;
    while (!outcome) {
      if (existsSync(resultFile)) {
        outcome = JSON.parse(readFileSync(resultFile, 'utf8')) as ExecOutcome;
        break;
      }
      const lockFile = path.join(shared, `build-${key}.lock`);
      let lock: number | undefined;
      try {
        lock = openSync(lockFile, 'wx');
      } catch {
        /* another worker is building: wait for its outcome */
      }
      if (lock !== undefined) {
        writeFileSync(lock, String(process.pid));
        closeSync(lock);
        outcome = run();
        writeFileSync(`${resultFile}.tmp`, JSON.stringify(outcome), { flag: 'wx' });
        renameSync(`${resultFile}.tmp`, resultFile);
        break;
      }
      const holder = Number(readFileSync(lockFile, 'utf8')); // empty (0) until the builder wrote its pid
      if (holder > 0 && !processAlive(holder) && !existsSync(resultFile)) {
        throw new Error(`build ${JSON.stringify(command)}: the Jest worker that started it (pid ${holder}) died before it finished: run the tests again`);
      }
      if (Date.now() > end) throw new Error(`build ${JSON.stringify(command)}: another Jest worker started it and gave no outcome within ${timeoutMs} ms`);
      sleepSync(100);
    }
  }
  builds.set(key, outcome);
  return outcome;
}

/** Builds (once per run), then runs the precheck: whether the scenario runs, is skipped, or fails and why. */
export function nativeGate(plan: Pick<ScenarioPlan<any>, 'name' | 'build' | 'precheck'>, specFile: string, mode: Mode, env: NodeJS.ProcessEnv = process.env): NativeGate {
  const specDir = path.dirname(specFile);
  if (plan.build) {
    const b = buildOnce(plan.build, specDir, env);
    if (b.code !== 0 || b.signal || b.spawnError) {
      return { run: false, skip: false, reason: `build ${JSON.stringify(plan.build)} (in ${specDir}) ${howItEnded(b, buildTimeoutMs(env))}; its output:\n${outputOf(b)}` };
    }
  }
  if (!plan.precheck) return { run: true };
  const [program, ...args] = plan.precheck.exec;
  let file: string;
  try {
    file = resolveProgram(program, specDir, 'precheck');
  } catch (e) {
    if (e instanceof NativeProgramError) return { run: false, skip: false, reason: e.message };
    throw e;
  }
  const lib = nativeLibrary(mode, env);
  if ('error' in lib) return { run: false, skip: false, reason: `precheck: no libascendcl.so to run it with: ${lib.error}` };
  const childEnv = nativeRoleEnv({ ...env, [ENV.mode]: mode }, lib.path, undefined, '');
  const o = execSync(file, args, specDir, plan.precheck.timeoutMs, childEnv);
  if (o.spawnError) o.spawnError = explainSpawnError(file, Object.assign(new Error(o.spawnError), { code: o.spawnCode }));
  if (o.code === 0 && !o.signal && !o.spawnError) return { run: true };
  if (o.code === PRECHECK_SKIP_EXIT && !o.spawnError) {
    const last = lastLine(o.stdout) ?? lastLine(o.stderr) ?? `${path.basename(file)} exited with ${PRECHECK_SKIP_EXIT} without saying why`;
    return { run: false, skip: true, reason: last };
  }
  return { run: false, skip: false, reason: `precheck ${[program, ...args].join(' ')} ${howItEnded(o, plan.precheck.timeoutMs)} (0 runs the scenario, ${PRECHECK_SKIP_EXIT} skips it); its output:\n${outputOf(o)}` };
}

function lastLine(text: string): string | undefined {
  return text.split('\n').map((l) => l.trim()).filter(Boolean).pop();
}
