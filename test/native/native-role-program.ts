/**
 * Runs native-stub's test program `native_role` (native-stub/test/programs/native_role.c: a C role
 * built with -lascendcl -lcannharness only) as the harness runs a native role: its own process
 * group, the scenario directory as cwd and CANN_HARNESS_DIR.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import * as path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..');
const FLAVOR_DIRS: Record<string, string> = { release: 'build', asan: 'build-asan', tsan: 'build-tsan' };
export const buildDir = path.join(repoRoot, 'native-stub', FLAVOR_DIRS[process.env.CANN_STUB_FLAVOR || 'release'] ?? 'build');
export const nativeRoleProgram = path.join(buildDir, 'test-programs', 'native_role');
export const preloadLibrary = path.join(buildDir, 'lib64', 'libcannharness_preload.so');

export function requireBuilt(): void {
  for (const f of [nativeRoleProgram, preloadLibrary]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run \`npm run build:stub\` (make -C native-stub)`);
  }
}

export interface NativeRun {
  child: ChildProcess;
  pid: number;
  stdout: () => string;
  stderr: () => string;
  /** Exit code (128 + signal when killed), once it exited and its output is drained. */
  exited: Promise<number>;
}

export function startNativeRole(dir: string, steps: string[], env: Record<string, string> = {}): NativeRun {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, CANN_HARNESS_DIR: dir, CANN_HARNESS_ROLE: 'native', ...env };
  delete childEnv.CANN_HARNESS_DEADLINE_NS;
  if (env.CANN_HARNESS_DEADLINE_NS) childEnv.CANN_HARNESS_DEADLINE_NS = env.CANN_HARNESS_DEADLINE_NS;
  const child = spawn(nativeRoleProgram, steps, { cwd: dir, env: childEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
  return { child, pid: child.pid!, stdout: () => out, stderr: () => err, exited };
}

/** Kills the run's whole process group (it leads its own) and waits for it. */
export async function killNativeRole(run: NativeRun): Promise<void> {
  try {
    process.kill(-run.pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
  await run.exited;
}
