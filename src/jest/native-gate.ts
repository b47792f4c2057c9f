/**
 * The native parts of a scenario decided while Jest collects the spec (a skip can only be decided
 * then): its `build:` command, run once per run before its scenarios, and its
 * `precheck: { exec }`, whose exit code says run (0), skip (2, the last output line is the reason)
 * or fail (anything else, with its output). Both run through harness/native-exec.ts, which gives
 * the program its own process group and a deadline.
 */
import { spawn, spawnSync } from 'node:child_process';
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

/** One program run by harness/native-exec.ts (see execSync), or a pause while another worker builds. */
type Step =
  | { kind: 'exec'; program: string; args: string[]; cwd: string; timeoutMs: number; env: NodeJS.ProcessEnv; progress?: string }
  | { kind: 'sleep'; ms: number };

function execArgs(step: Extract<Step, { kind: 'exec' }>): string[] {
  const { program, args, cwd, timeoutMs, progress } = step;
  const job = JSON.stringify({ program, args, cwd, timeoutMs, parentPid: process.pid, ...(progress ? { progressMs: BUILD_PROGRESS_MS, label: progress } : {}) });
  return [...tsExecArgv(), NATIVE_EXEC, job];
}

function parseOutcome(stdout: string, died: () => string): ExecOutcome {
  const line = stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as ExecOutcome;
  } catch {
    return { code: null, signal: null, timedOut: false, spawnError: `the harness's runner died (${died()}; its messages are above)`, stdout: '', stderr: '' };
  }
}

/**
 * Runs a program to completion in its own process group (harness/native-exec.ts), which keeps the
 * head and tail of its output, stops it when this process dies (even by SIGKILL), and prints the
 * progress of a long build on our stderr (its stderr is ours). Synchronous: for Jest's collection,
 * when the async preparation (prepareNativeSteps) did not run; the main thread is blocked meanwhile.
 */
function execSync(step: Extract<Step, { kind: 'exec' }>): ExecOutcome {
  const r = spawnSync(process.execPath, execArgs(step), { env: step.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: step.timeoutMs + 30_000, maxBuffer: 16 * 1024 * 1024 });
  return parseOutcome(r.stdout ?? '', () => r.error?.message ?? r.signal ?? `exit ${r.status}`);
}

/** The same, awaited: the event loop stays free (a signal to this process is handled at once). */
function execAsync(step: Extract<Step, { kind: 'exec' }>): Promise<ExecOutcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, execArgs(step), { env: step.env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => (stdout += d));
    child.on('error', (e) => resolve(parseOutcome('', () => e.message)));
    child.on('close', (code, signal) => resolve(parseOutcome(stdout, () => signal ?? `exit ${code}`)));
  });
}

/** Drives a step generator synchronously. */
function runSync<T>(steps: Generator<Step, T, ExecOutcome | undefined>): T {
  let next = steps.next();
  while (!next.done) {
    const step = next.value;
    if (step.kind === 'exec') next = steps.next(execSync(step));
    else {
      sleepSync(step.ms);
      next = steps.next(undefined);
    }
  }
  return next.value;
}

/** Drives a step generator with awaits. */
async function runAsync<T>(steps: Generator<Step, T, ExecOutcome | undefined>): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    const step = next.value;
    if (step.kind === 'exec') next = steps.next(await execAsync(step));
    else {
      await new Promise((r) => setTimeout(r, step.ms));
      next = steps.next(undefined);
    }
  }
  return next.value;
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
function* buildSteps(command: string, cwd: string, env: NodeJS.ProcessEnv): Generator<Step, ExecOutcome, ExecOutcome | undefined> {
  const key = createHash('sha256').update(`${cwd}\0${command}`).digest('hex').slice(0, 16);
  const known = builds.get(key);
  if (known) return known;
  // An audit runs the suite once per mutant: its private folder (the declaration log's), which
  // lives for the whole audit, makes the build once per audit rather than once per pass.
  const auditLog = env[ENV.auditLog];
  const notes = env[ENV.notesLog];
  const shared = auditLog ? path.dirname(auditLog) : notes ? path.dirname(notes) : undefined;
  const timeoutMs = buildTimeoutMs(env);
  const step: Step = { kind: 'exec', program: '/bin/sh', args: ['-c', command], cwd, timeoutMs, env, progress: `build: ${command}` };
  const say = () => process.stderr.write(`[cann-harness] build: ${command} (in ${cwd})\n`);
  let outcome: ExecOutcome | undefined;
  if (!shared || !existsSync(shared)) {
    say();
    outcome = (yield step)!;
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
        say();
        outcome = (yield step)!;
        writeFileSync(`${resultFile}.tmp`, JSON.stringify(outcome), { flag: 'wx' });
        renameSync(`${resultFile}.tmp`, resultFile);
        break;
      }
      const holder = Number(readFileSync(lockFile, 'utf8')); // empty (0) until the builder wrote its pid
      if (holder > 0 && !processAlive(holder) && !existsSync(resultFile)) {
        throw new Error(`build ${JSON.stringify(command)}: the Jest worker that started it (pid ${holder}) died before it finished: run the tests again`);
      }
      if (Date.now() > end) throw new Error(`build ${JSON.stringify(command)}: another Jest worker started it and gave no outcome within ${timeoutMs} ms`);
      yield { kind: 'sleep', ms: 100 };
    }
  }
  builds.set(key, outcome);
  return outcome;
}

export function buildOnce(command: string, cwd: string, env: NodeJS.ProcessEnv = process.env): ExecOutcome {
  return runSync(buildSteps(command, cwd, env));
}

type GatePlan = Pick<ScenarioPlan<any>, 'name' | 'build' | 'precheck'>;

/** Gate outcomes of this process (the async preparation's, for the collection that follows it), by spec file and plan. */
const gates = new Map<string, NativeGate>();
const gateKey = (plan: GatePlan, specFile: string, mode: Mode) => JSON.stringify([specFile, plan.name, plan.build ?? null, plan.precheck ?? null, mode]);

/** Builds (once per run), then runs the precheck: whether the scenario runs, is skipped, or fails and why. */
function* gateSteps(plan: GatePlan, specFile: string, mode: Mode, env: NodeJS.ProcessEnv): Generator<Step, NativeGate, ExecOutcome | undefined> {
  const specDir = path.dirname(specFile);
  if (plan.build) {
    const b = yield* buildSteps(plan.build, specDir, env);
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
  const o = (yield { kind: 'exec', program: file, args, cwd: specDir, timeoutMs: plan.precheck.timeoutMs, env: childEnv })!;
  if (o.spawnError) o.spawnError = explainSpawnError(file, Object.assign(new Error(o.spawnError), { code: o.spawnCode }));
  if (o.code === 0 && !o.signal && !o.spawnError) return { run: true };
  if (o.code === PRECHECK_SKIP_EXIT && !o.spawnError) {
    const last = lastLine(o.stdout) ?? lastLine(o.stderr) ?? `${path.basename(file)} exited with ${PRECHECK_SKIP_EXIT} without saying why`;
    return { run: false, skip: true, reason: last };
  }
  return { run: false, skip: false, reason: `precheck ${[program, ...args].join(' ')} ${howItEnded(o, plan.precheck.timeoutMs)} (0 runs the scenario, ${PRECHECK_SKIP_EXIT} skips it); its output:\n${outputOf(o)}` };
}

/** For Jest's collection (synchronous): the async preparation's outcome, else builds and prechecks now. */
export function nativeGate(plan: GatePlan, specFile: string, mode: Mode, env: NodeJS.ProcessEnv = process.env): NativeGate {
  return gates.get(gateKey(plan, specFile, mode)) ?? runSync(gateSteps(plan, specFile, mode, env));
}

/** The same with awaits (prepareNativeSteps, before the collection), remembered for nativeGate. */
export async function nativeGateAsync(plan: GatePlan, specFile: string, mode: Mode, env: NodeJS.ProcessEnv = process.env): Promise<NativeGate> {
  const key = gateKey(plan, specFile, mode);
  const gate = gates.get(key) ?? (await runAsync(gateSteps(plan, specFile, mode, env)));
  gates.set(key, gate);
  return gate;
}

function lastLine(text: string): string | undefined {
  return text.split('\n').map((l) => l.trim()).filter(Boolean).pop();
}
