/**
 * Process-wide registry of everything that must not outlive this process: child process groups
 * and scenario directories. If the parent is interrupted (Ctrl-C, SIGTERM, SIGHUP) or exits, every
 * registered item is torn down synchronously. Handlers are installed while something is
 * registered and removed afterwards, so code around us (e.g. Jest) keeps its own behaviour.
 */
import { reclaimStubLeftovers } from '../acl';
import { watchRunner } from './runner-watch';

export interface Teardown {
  /** Synchronous: kill process groups, remove directories. Must not throw. */
  emergencyStop(): void;
}

const live = new Set<Teardown>();
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let installed = false;
let stopRunnerWatch: () => void = () => {};

function stopAll(): void {
  if (live.size === 0) return;
  for (const item of [...live]) {
    try {
      item.emergencyStop();
    } catch {
      /* best effort: keep stopping the others */
    }
    live.delete(item);
  }
  // SIGKILLed device processes leave their IPC events' shared memory behind; give the kernel a
  // moment to finish them, then remove what has no live user left. Synchronous: we may be exiting.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  try {
    reclaimStubLeftovers();
  } catch {
    /* best effort */
  }
}

function onSignal(signal: NodeJS.Signals): void {
  stopAll();
  uninstall();
  // Re-raise so the exit status says "killed by SIGINT/SIGTERM", unless somebody else (e.g. Jest)
  // also listens: then the signal is theirs to handle.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function onExit(): void {
  stopAll();
}

/** In a Jest worker whose runner died (SIGKILL: no handler ran there): stop everything, then die. */
function onRunnerGone(): void {
  process.stderr.write('[cann-harness] the Jest runner died: stopping this worker\'s scenarios and exiting\n');
  stopAll();
  process.kill(process.pid, 'SIGKILL');
}

function install(): void {
  if (installed) return;
  installed = true;
  for (const s of SIGNALS) process.on(s, onSignal);
  process.on('exit', onExit);
  stopRunnerWatch = watchRunner(onRunnerGone);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  for (const s of SIGNALS) process.off(s, onSignal);
  process.off('exit', onExit);
  stopRunnerWatch();
}

export function registerLive(item: Teardown): void {
  live.add(item);
  install();
}

export function unregisterLive(item: Teardown): void {
  live.delete(item);
  if (live.size === 0) uninstall();
}
