/**
 * Test helper: run a TypeScript file in a fresh Node process (never in Jest's own worker),
 * so that native code (koffi, libascendcl) is only ever loaded in throwaway children.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..');

/**
 * `node -r` of the harness's own TypeScript hook (the device processes' one): its transforms are
 * cached on disk, so a child whose files were compiled before never starts esbuild. esbuild-register
 * starts esbuild's worker thread and service process in every child (measured: 0.5 s of CPU per
 * child against 0.2 s).
 */
export const TS_HOOK = path.join(repoRoot, 'src', 'ts-hook', 'ts-register.js');

/** Children of these helpers still running (Jest gives each test file its own copy of this module). */
const running = new Set<ChildProcess>();

function track(child: ChildProcess): void {
  running.add(child);
  child.on('close', () => running.delete(child));
}

/**
 * SIGKILLs every child these helpers started that is still running, with its process group: the
 * test that awaited it timed out or failed. Otherwise it would outlive the test file (seen: two
 * `cann-harness run` children of a timed-out test alive for half an hour). Returns their pids.
 * Called after every test file (test/support/child-reaper.ts).
 */
export function killLeftoverChildren(): number[] {
  const pids: number[] = [];
  for (const child of running) {
    if (child.pid === undefined) continue;
    pids.push(child.pid);
    for (const target of [-child.pid, child.pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        /* no such group (not detached) or already gone */
      }
    }
  }
  running.clear();
  return pids;
}

export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The last stdout line that parses as JSON, if any. */
  json: unknown;
}

export function runTsChild(
  file: string,
  args: string[] = [],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', TS_HOOK, file, ...args], {
      cwd: opts.cwd ?? repoRoot,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    track(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      let json: unknown;
      for (const line of stdout.trim().split('\n').reverse()) {
        try {
          json = JSON.parse(line);
          break;
        } catch {
          /* not JSON */
        }
      }
      resolve({ code, signal, stdout, stderr, json });
    });
  });
}

/**
 * Runs a command the way a user's shell would, collecting its output. The outer Jest run's probe
 * and settings (and any `dropEnv` variable not given in `env`) are removed from its environment, so
 * it probes and configures itself; colours are off.
 */
export function runCommand(
  cmd: string,
  args: string[],
  opts: { cwd: string; env?: Record<string, string>; dropEnv?: string[] },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', ...opts.env };
  for (const k of ['CANN_HARNESS_PROBE', 'CANN_HARNESS_REQUIRE_DEVICES', 'JEST_WORKER_ID', ...(opts.dropEnv ?? [])]) if (!(k in (opts.env ?? {}))) delete env[k];
  return new Promise((resolve, reject) => {
    // Its own process group, as a command started from a shell: killLeftoverChildren takes what it started too.
    const child = spawn(cmd, args, { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    track(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
