/**
 * The one host of the harness's child processes (device processes, the precheck child): how they
 * are started (own process group, TypeScript hook, stdout/stderr pipes and a message pipe on fd 3,
 * see protocol.ts),
 * how their output is captured, how they are stopped (SIGTERM to the group, SIGKILL after a
 * grace), and when they are over. Modelled on jest-worker's WorkerStates and Playwright's
 * ProcessHost: the lifecycle is an explicit state with checked transitions.
 *
 *   created -> starting -> running -> stopping -> exited -> closed
 *                  |           \________________/^
 *                  \---(spawn failed: no pid)---/
 *
 * 'closed' (the process has exited AND its stdout, stderr and message pipe are drained) is the only
 * point where a user may decide anything about the child: Node can deliver 'exit' before the last
 * message has been read when many children exit together.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { OutputCapture } from './output-capture';
import { readMessageLines, writeMessageLine } from './message-lines';
import { MESSAGE_FD } from '../wire/protocol';
import { signalGroup } from './process-group';
import { TS_REGISTER } from '../paths';

/** Children load the TypeScript hook first (see src/ts-hook/ts-register.js). */
export function tsExecArgv(): string[] {
  return ['-r', TS_REGISTER];
}

/** Starts a Node script as the leader of its own process group, with the TypeScript hook, piped output and the message pipe. */
export function startInOwnGroup(script: string, env: NodeJS.ProcessEnv, args: string[] = []): ChildProcess {
  const stdio: ('ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe'];
  stdio[MESSAGE_FD] = 'pipe'; // a socket pair: the job goes down, messages come up
  return spawn(process.execPath, [...tsExecArgv(), script, ...args], {
    detached: true, // own process group: one kill reaches the child and all it started
    stdio,
    env,
    cwd: process.cwd(),
  });
}

/**
 * The synchronous form, for callers that cannot wait (collecting a Jest spec file): runs a Node
 * script with the TypeScript hook to completion. It has no lifecycle to observe, so no state.
 */
export function runScriptSync(script: string, env: NodeJS.ProcessEnv, timeoutMs: number) {
  return spawnSync(process.execPath, [...tsExecArgv(), script], { env, encoding: 'utf8', timeout: timeoutMs });
}

export type HostState = 'created' | 'starting' | 'running' | 'stopping' | 'exited' | 'closed';

/** Every legal move; anything else is a bug in the host and throws. */
const TRANSITIONS: Readonly<Record<HostState, readonly HostState[]>> = {
  created: ['starting'],
  starting: ['running', 'stopping', 'exited'], // 'exited' straight away: the spawn failed (no pid)
  running: ['stopping', 'exited'],
  stopping: ['exited'],
  exited: ['closed'],
  closed: [],
};

/** Throws IllegalHostTransition unless `from -> to` is one of TRANSITIONS. */
export function checkTransition(from: HostState, to: HostState, what: string): void {
  if (!TRANSITIONS[from].includes(to)) throw new IllegalHostTransition(from, to, what);
}

export class IllegalHostTransition extends Error {
  constructor(readonly from: HostState, readonly to: HostState, readonly what: string) {
    super(`process host ${what}: illegal transition ${from} -> ${to} (allowed from ${from}: ${TRANSITIONS[from].join(', ') || 'none'})`);
    this.name = 'IllegalHostTransition';
  }
}

/**
 * After 'exit', how long to wait for 'close'. Only a descendant that left the child's process group
 * while holding its stdout/stderr open can delay 'close' that long; then its output is cut here.
 */
export const CLOSE_AFTER_EXIT_BOUND_MS = 5_000;

export interface ProcessHostOptions {
  /** A name for messages (the role's name, 'precheck'). */
  what: string;
  /** Starts the child: normally startInOwnGroup(); tests substitute a scripted ChildProcess. */
  spawn: () => ChildProcess;
  stdout: OutputCapture;
  stderr: OutputCapture;
  /** Each message the child wrote to its message pipe, in order. */
  onMessage?: (message: unknown) => void;
  /** A line on the message pipe that is not JSON (`problem` quotes it). */
  onBadMessage?: (problem: string) => void;
  /** Once, when the state becomes 'closed': everything the child sent is in. */
  onClosed?: () => void;
}

export class ProcessHost {
  private current: HostState = 'created';
  private child?: ChildProcess;
  pid: number | null = null;
  /** Date.now() at start and when the parent saw the exit. */
  startedAt = 0;
  endedAt = 0;
  /** CLOCK_MONOTONIC ns when the parent saw the process exit. */
  endedAtNs: bigint | null = null;
  exitCode: number | null = null;
  exitSignal: NodeJS.Signals | null = null;
  /** spawn() failures (e.g. EAGAIN) and other 'error' events of the child. */
  spawnError?: Error;
  private killTimer?: NodeJS.Timeout;
  private closeTimer?: NodeJS.Timeout;
  /** Resolves once the state is 'closed' (after onClosed ran). */
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;

  constructor(private readonly opts: ProcessHostOptions) {
    this.closed = new Promise((r) => (this.resolveClosed = r));
  }

  get state(): HostState {
    return this.current;
  }

  /** Started and not yet exited. */
  get alive(): boolean {
    return this.current === 'starting' || this.current === 'running' || this.current === 'stopping';
  }

  /** The process has exited (its output may still be draining). */
  get hasExited(): boolean {
    return this.current === 'exited' || this.current === 'closed';
  }

  start(): void {
    this.moveTo('starting');
    this.startedAt = Date.now();
    const child = this.opts.spawn();
    this.child = child;
    this.pid = child.pid ?? null;
    child.stdout?.on('data', (d) => this.opts.stdout.push(d));
    child.stderr?.on('data', (d) => this.opts.stderr.push(d));
    const messages = child.stdio?.[MESSAGE_FD] as Readable | null | undefined;
    if (messages) {
      readMessageLines(messages, (m) => {
        if (m.ok) this.opts.onMessage?.(m.value);
        else if ('problem' in m) this.opts.onBadMessage?.(m.problem);
        else this.opts.stderr.push(`[harness] it ended in the middle of a message (${m.cutOffBytes} bytes, not used: its exit status says what happened)\n`);
      });
      messages.on('error', () => undefined); // EPIPE/ECONNRESET when the child dies: 'close' still follows
    }
    child.on('error', (e) => {
      // spawn() failures arrive here; neither 'exit' nor 'close' may follow.
      this.spawnError = e;
      if (this.pid === null && !this.hasExited) {
        this.onExit(null, null);
        this.onClose();
      }
    });
    child.on('exit', (code, signal) => {
      if (this.hasExited) return;
      this.onExit(code, signal);
      // 'close' normally follows at once; see CLOSE_AFTER_EXIT_BOUND_MS for when it would not.
      this.closeTimer = setTimeout(() => {
        this.opts.stderr.push(`[harness] its output pipes were still open ${CLOSE_AFTER_EXIT_BOUND_MS} ms after it exited (a descendant outside its process group holds them?); output after that point is not shown\n`);
        child.stdout?.destroy();
        child.stderr?.destroy();
        child.stdio?.[MESSAGE_FD]?.destroy();
        this.onClose();
      }, CLOSE_AFTER_EXIT_BOUND_MS);
      this.closeTimer.unref();
    });
    child.on('close', () => {
      if (this.current === 'exited') this.onClose();
    });
    if (this.pid !== null) this.moveTo('running');
  }

  /** Writes a message to the child's message pipe while alive; a failure goes to `onError` (not thrown: the child may be dying). */
  send(message: unknown, onError?: (err: Error) => void): void {
    const pipe = this.child?.stdio?.[MESSAGE_FD] as Writable | null | undefined;
    if (!this.alive || !pipe) return;
    writeMessageLine(pipe, message, onError);
  }

  /** SIGTERM to the whole group now, SIGKILL after graceMs if anything is still there. False if it was not alive or already stopping. */
  stop(graceMs: number): boolean {
    if (this.current !== 'starting' && this.current !== 'running') return false;
    this.moveTo('stopping');
    this.signal('SIGTERM');
    this.killTimer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    return true;
  }

  /** Synchronous last resort: SIGKILL to the group (no-op once exited: the group was killed then). */
  killNow(): void {
    if (this.hasExited || this.current === 'created') return;
    if (this.current !== 'stopping') this.moveTo('stopping');
    this.signal('SIGKILL');
  }

  private moveTo(next: HostState): void {
    checkTransition(this.current, next, this.opts.what);
    this.current = next;
  }

  private signal(sig: NodeJS.Signals): void {
    if (this.pid === null) return;
    try {
      signalGroup(this.pid, sig);
    } catch {
      /* EPERM cannot happen for our own children; nothing useful to do otherwise */
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.moveTo('exited');
    this.endedAt = Date.now();
    this.endedAtNs = process.hrtime.bigint();
    this.exitCode = code;
    this.exitSignal = signal;
    if (this.killTimer) clearTimeout(this.killTimer);
    // The leader is gone; anything it left running in its group goes too.
    this.signal('SIGKILL');
  }

  /** Everything the process sent is in. */
  private onClose(): void {
    this.moveTo('closed');
    if (this.closeTimer) clearTimeout(this.closeTimer);
    this.opts.stdout.flush();
    this.opts.stderr.flush();
    this.opts.onClosed?.();
    this.resolveClosed();
  }
}
