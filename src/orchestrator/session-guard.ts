/**
 * Interrupt handling for a whole test session (a `cann-harness run` or an `npx jest`), installed in
 * the process that owns the session: the CLI's own process, and Jest's global setup (which runs in
 * Jest's main process, not in a test sandbox).
 *
 * Why not the handlers of live-runs.ts: inside Jest, test code sees a copy of `process` whose
 * `on('SIGINT')` never hears a real signal, and Jest's workers die by the signal as well. Their
 * device processes then notice that their parent is gone and SIGKILL themselves, which leaves the
 * shared memory of their IPC events behind; nobody was left to reclaim it.
 *
 * So the session owner marks its environment with a session id (CANN_HARNESS_SESSION, inherited by
 * Jest workers and device processes, appended to by nested sessions) and, on SIGINT, SIGTERM or
 * SIGHUP: SIGKILLs every process that carries the id (workers first and their forks as they show
 * up; each device process with its group), removes the scenario directories those processes were
 * using, runs the stub's reclaim tool, and then dies by the same signal. Finding processes by the
 * id in /proc/<pid>/environ works even after they were re-parented (a worker that already died).
 */
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import { reclaimStubLeftovers } from '../acl/reclaim';
import { SCENARIO_DIR_PREFIX, removeScenarioDir, scenarioBaseDir } from './scenario-dir';
import { signalGroup } from './process-group';
import { ENV } from '../env';

export const SESSION_ENV = ENV.session;
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** How long the guard keeps looking for session processes that are still starting or dying. */
const SWEEP_BOUND_MS = 5_000;

interface GuardState {
  id: string;
  users: number;
  previousEnv: string | undefined;
  onSignal: (signal: NodeJS.Signals) => void;
  /** What the session owner made outside scenario directories (onSessionStop), removed on a signal too. */
  cleanups: Set<() => void>;
}

// One guard per process, even if this module is loaded twice (Jest's transform and esbuild-register).
const STATE = Symbol.for('cann-ipc-harness.session-guard');
type GlobalWithGuard = typeof globalThis & { [STATE]?: GuardState };

/**
 * Installs the guard (reference-counted: the CLI installs it, then Jest's global setup again).
 * Returns the session id.
 */
export function installSessionGuard(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): string {
  const g = globalThis as GlobalWithGuard;
  const existing = g[STATE];
  if (existing) {
    existing.users++;
    return existing.id;
  }
  const id = `s${process.pid}x${randomBytes(4).toString('hex')}`;
  const previousEnv = process.env[SESSION_ENV];
  // Appended, so that the outer session's guard also finds the processes of a nested one.
  process.env[SESSION_ENV] = previousEnv ? `${previousEnv}:${id}` : id;
  const state: GuardState = {
    id,
    users: 1,
    previousEnv,
    cleanups: new Set(),
    onSignal: (signal) => {
      log(`[cann-harness] ${signal}: stopping device processes, removing scenario directories and shared memory`);
      const swept = stopSession(id);
      if (swept.killed > 0 || swept.dirs > 0 || swept.reclaimed > 0) {
        log(`[cann-harness] stopped ${swept.killed} process(es), removed ${swept.dirs} scenario director${swept.dirs === 1 ? 'y' : 'ies'} and ${swept.reclaimed} shared-memory object(s)`);
      }
      for (const fn of state.cleanups) {
        try {
          fn();
        } catch {
          /* the process is about to die: the other clean-ups still run */
        }
      }
      remove(g);
      // The session is over: die by the same signal (for the exit status). Another listener may
      // still be registered (e.g. signal-exit, which Jest's cache writes load): it then gets the
      // re-raised signal, and exits by it once it is the last one. If nothing exits, we do.
      process.kill(process.pid, signal);
      setTimeout(() => process.exit(128 + (os.constants.signals[signal] ?? 1)), 1000);
    },
  };
  g[STATE] = state;
  for (const s of SIGNALS) process.on(s, state.onSignal);
  return id;
}

/**
 * Runs `fn` also when a signal stops the session (before this process dies by it), e.g. the
 * audit's private directory. Needs an installed guard; returns what unregisters `fn`.
 */
export function onSessionStop(fn: () => void): () => void {
  const state = (globalThis as GlobalWithGuard)[STATE];
  if (!state) throw new Error('onSessionStop: install the session guard first (installSessionGuard)');
  state.cleanups.add(fn);
  return () => state.cleanups.delete(fn);
}

export function uninstallSessionGuard(): void {
  const g = globalThis as GlobalWithGuard;
  const state = g[STATE];
  if (!state || --state.users > 0) return;
  remove(g);
}

function remove(g: GlobalWithGuard): void {
  const state = g[STATE];
  if (!state) return;
  for (const s of SIGNALS) process.off(s, state.onSignal);
  if (state.previousEnv === undefined) delete process.env[SESSION_ENV];
  else process.env[SESSION_ENV] = state.previousEnv;
  delete g[STATE];
}

interface SessionProcess {
  pid: number;
  /** CANN_HARNESS_DIR of a device process. */
  dir?: string;
}

/** Live processes (not zombies) other than this one whose environment carries session `id`. */
export function sessionProcesses(id: string): SessionProcess[] {
  const out: SessionProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    let stat: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
      stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
    } catch {
      continue; // gone, or not ours to read
    }
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') continue;
    const vars = environ.split('\0');
    const session = vars.find((v) => v.startsWith(`${SESSION_ENV}=`));
    if (!session || !session.slice(SESSION_ENV.length + 1).split(':').includes(id)) continue;
    const dir = vars.find((v) => v.startsWith(`${ENV.dir}=`))?.slice(ENV.dir.length + 1);
    out.push(dir ? { pid: Number(entry), dir } : { pid: Number(entry) });
  }
  return out;
}

/**
 * Synchronous (it runs in a signal handler of a process about to die): kill, remove, reclaim.
 * Never throws.
 */
export function stopSession(id: string): { killed: number; dirs: number; reclaimed: number } {
  const killed = new Set<number>();
  const dirs = new Set<string>();
  const end = Date.now() + SWEEP_BOUND_MS;
  for (;;) {
    let found: SessionProcess[];
    try {
      found = sessionProcesses(id);
    } catch {
      break;
    }
    if (found.length === 0 || Date.now() > end) break;
    for (const p of found) {
      if (p.dir) dirs.add(p.dir);
      killed.add(p.pid);
      try {
        signalGroup(p.pid, 'SIGKILL'); // a device process leads its own group: its descendants too
      } catch {
        /* not a group leader */
      }
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    sleepSync(50);
  }
  // Scenario directories of runs whose processes were already gone: named after their owner pid,
  // and not kept on purpose (a kept directory has result.json).
  const owners = new Set([process.pid, ...killed]);
  try {
    const base = scenarioBaseDir();
    for (const name of readdirSync(base)) {
      const m = new RegExp(`^${SCENARIO_DIR_PREFIX}(\\d+)-`).exec(name);
      if (m && owners.has(Number(m[1])) && !existsSync(path.join(base, name, 'result.json'))) dirs.add(path.join(base, name));
    }
  } catch {
    /* best effort */
  }
  for (const d of dirs) removeScenarioDir(d);
  let reclaimed = 0;
  try {
    reclaimed = reclaimStubLeftovers().length;
  } catch {
    /* best effort */
  }
  return { killed: killed.size, dirs: [...dirs].filter((d) => !existsSync(d)).length, reclaimed };
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
