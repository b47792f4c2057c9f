/**
 * Parent-side view of one role's process: starts it in its own process group, collects output,
 * marks, "waiting for" updates and the result, and decides the final status. What differs between
 * kinds of role (how to start it, its environment, its job, its own marks and verdict) its RoleKind
 * says (role-kind.ts), chosen once by roleKindFor (role-kinds.ts): nothing here asks which kind it is.
 *
 * The status is decided at 'close' (the process has exited AND its stdout, stderr and message pipe
 * are all drained), never at 'exit': Node can deliver 'exit' before the last message has been read
 * when many children exit together, and a role that reported success would then look like it died
 * silently.
 */
import type { ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { isFromChild, parseFromChild, type FromChild } from '../wire/protocol';
import { protocolError } from '../wire/wire-error';
import { OutputCapture, rolePrefix, type OutputSink } from './output-capture';
import { CLOSE_AFTER_EXIT_BOUND_MS, ProcessHost, type HostState } from './process-host';
import type { RoleKind } from './role-kind';
import { roleKindFor } from './role-kinds';
import type { OutputLoss, RoleError, RoleResult, RoleSpec, RoleStatus, RunEvent } from './types';
import type { WaitingFor } from '../rendezvous';
import { ENV, type Mode } from '../env';

export { CLOSE_AFTER_EXIT_BOUND_MS };

export type StopReason = 'timeout' | 'stopped';

/** The subset of ChildProcess that RoleProcess uses (tests substitute a scripted one). */
export type StartDevice = (env: NodeJS.ProcessEnv) => ChildProcess;

export interface RoleLaunch {
  spec: RoleSpec;
  index: number;
  dir: string;
  mode: Mode;
  echo: boolean;
  emit: (e: RunEvent) => void;
  /** Replaces starting the process its kind starts (tests script the order of child events). */
  startDevice?: StartDevice;
  /** CLOCK_MONOTONIC ns native roles get as CANN_HARNESS_DEADLINE_NS (run-roles.ts nativeDeadlineNs: after the harness stops them). */
  deadlineNs?: bigint;
  /** The cached device bundle checkDeviceProcessScript found current (source checkout), for CANN_HARNESS_DEVICE_BUNDLE. */
  deviceBundle?: string;
  /** Where each stream also goes in full (run-roles.ts: the scenario directory's logs/). */
  logs?: Partial<Record<'stdout' | 'stderr', OutputSink>>;
}

export class RoleProcess {
  readonly name: string;
  readonly device: number;
  readonly index: number;
  private readonly host: ProcessHost;
  private readonly stdout: OutputCapture;
  private readonly stderr: OutputCapture;
  private readonly marks: { name: string; tNs: string }[] = [];
  private waitingFor: WaitingFor | null = null;
  /**
   * What it was waiting for when we stopped it, by its own clock: a wait that ended before the stop
   * (its message still on the way) is not shown, one that ends while it is dying still is.
   */
  private waitingWhenStopped: WaitingFor | null = null;
  private reported?: { ok: true; value?: unknown } | { ok: false; error: RoleError };
  private unflushed?: { stdout: number; stderr: number };
  private stopReason: StopReason | null = null;
  private stopDetail = '';
  /** CLOCK_MONOTONIC ns when we decided to stop it. */
  private stoppedAtNs: bigint | null = null;
  /** A result the role reported after we had decided to stop it (not its result; shown in reports). */
  private saidWhileStopping?: { ok: true } | { ok: false; error: RoleError };
  private status?: RoleStatus;
  private onEnd: (role: RoleProcess) => void = () => undefined;
  /** What differs with its kind (a TypeScript body, a native program, ...): role-kind.ts. */
  readonly kind: RoleKind;
  /** Resolves once the process has exited and its output pipes are drained. */
  readonly finished: Promise<void>;

  constructor(private readonly launch: RoleLaunch) {
    this.name = launch.spec.name;
    this.device = launch.spec.device;
    this.index = launch.index;
    this.kind = roleKindFor(launch);
    const prefix = rolePrefix(this.name, this.device, this.index);
    this.stdout = new OutputCapture(launch.echo ? process.stdout : undefined, prefix, launch.logs?.stdout);
    this.stderr = new OutputCapture(launch.echo ? process.stderr : undefined, prefix, launch.logs?.stderr);
    this.host = new ProcessHost({
      what: `of role "${this.name}"`,
      spawn: () => (launch.startDevice ?? ((env) => this.kind.spawn(env)))(this.childEnv()),
      stdout: this.stdout,
      stderr: this.stderr,
      onMessage: (m) => this.onRawMessage(m),
      onBadMessage: (problem) => this.onProtocolError(problem),
      onClosed: () => this.onClosed(),
    });
    this.finished = this.host.closed;
  }

  get pid(): number | null {
    return this.host.pid;
  }

  /** Where its process is in its lifecycle (see process-host.ts). */
  get state(): HostState {
    return this.host.state;
  }

  /** Started and not yet exited. */
  get alive(): boolean {
    return this.host.alive;
  }

  /** Set once the process has exited and everything it sent has been read. */
  get finalStatus(): RoleStatus | undefined {
    return this.status;
  }

  start(onEnd: (role: RoleProcess) => void): void {
    this.onEnd = onEnd;
    this.host.start();
    const { pid } = this;
    if (pid === null) return;
    const host = this.host;
    this.kind.afterStart({
      pid,
      get alive() {
        return host.alive;
      },
      send: (message, onError) => host.send(message, onError),
      note: (text) => this.stderr.push(text),
    });
    // No event loop to write a Node report: the hang report need not wait for one.
    if (!this.kind.eventLoop) this.diagnosticReport = null;
    this.launch.emit({ type: 'started', role: this.name, device: this.device, pid, dir: this.launch.dir });
  }

  private childEnv(): NodeJS.ProcessEnv {
    const { spec, dir, mode } = this.launch;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...spec.env,
      [ENV.role]: spec.name,
      [ENV.device]: String(spec.device),
      [ENV.index]: String(this.index),
      [ENV.dir]: dir,
      [ENV.mode]: mode,
      [ENV.parentPid]: String(process.pid), // lets the child notice a parent that died early
      [ENV.stubTrace]: spec.env?.[ENV.stubTrace] ?? path.join(dir, 'trace'),
    };
    if (this.launch.deviceBundle !== undefined) env[ENV.deviceBundle] = this.launch.deviceBundle;
    return this.kind.env(env);
  }

  /** SIGTERM to the whole group now, SIGKILL after graceMs if anything is still there. */
  stop(reason: StopReason, detail: string, graceMs: number): void {
    if (!this.alive || this.stopReason) return;
    this.stopReason = reason;
    this.stopDetail = detail;
    this.stoppedAtNs = process.hrtime.bigint();
    this.waitingWhenStopped = this.waitingFor;
    this.host.stop(graceMs);
  }

  /** Synchronous last resort (parent exiting or interrupted). */
  killNow(): void {
    if (this.host.hasExited) return; // exited: its group was already killed then
    if (!this.stopReason && this.alive) {
      this.stopReason = 'stopped';
      this.stopDetail = 'the orchestrating process was interrupted';
      this.stoppedAtNs = process.hrtime.bigint();
      this.waitingWhenStopped = this.waitingFor;
    }
    this.host.killNow();
  }

  /** The diagnostic report file the main thread wrote for a hang report (null: it failed to; undefined: no answer, see hang-watch.ts). */
  diagnosticReport: string | null | undefined;

  /** A program rather than a body (its kind has no event loop): its waits are C API calls (hang-report.ts). */
  get native(): boolean {
    return !this.kind.eventLoop;
  }

  get exitedBeforeNow(): boolean {
    return this.host.hasExited;
  }

  get currentWait(): WaitingFor | null {
    return this.stoppedAtNs !== null ? this.waitingWhenStopped : this.waitingFor;
  }

  result(): RoleResult {
    const status = this.status ?? 'stopped';
    const { host } = this;
    const r: RoleResult = {
      name: this.name,
      device: this.device,
      index: this.index,
      pid: this.pid,
      status,
      exitCode: host.exitCode,
      signal: host.exitSignal,
      durationMs: (host.endedAt || Date.now()) - host.startedAt,
      stdout: this.stdout.text,
      stderr: this.stderr.text,
      marks: [...this.marks],
    };
    const library = this.kind.loadedLibrary();
    if (library !== undefined) r.library = library;
    if (this.reported?.ok && this.reported.value !== undefined) r.value = this.reported.value;
    if (status !== 'passed') {
      r.error = this.reported && !this.reported.ok ? this.reported.error : { message: this.describeEnd() };
    }
    const waiting = this.currentWait;
    if (waiting && (status === 'timeout' || status === 'stopped')) r.waitingFor = { ...waiting };
    const failedAt = this.failedAtNs(status);
    if (failedAt !== null) r.failedAtNs = failedAt.toString();
    if (this.stoppedAtNs !== null) r.stoppedAtNs = this.stoppedAtNs.toString();
    if (this.saidWhileStopping && !this.saidWhileStopping.ok) r.errorWhileStopping = this.saidWhileStopping.error;
    const loss = this.outputLoss();
    if (loss.length > 0) r.outputLoss = loss;
    return r;
  }

  /** The role's own time of failure when it reported one; otherwise when we saw it end or stopped it. */
  private failedAtNs(status: RoleStatus): bigint | null {
    if (status === 'failed' && this.reported && !this.reported.ok && this.reported.error.tNs) return BigInt(this.reported.error.tNs);
    if (status === 'timeout') return this.stoppedAtNs ?? this.host.endedAtNs;
    if (status === 'failed' || status === 'crashed') return this.host.endedAtNs ?? process.hrtime.bigint();
    return null;
  }

  private outputLoss(): OutputLoss[] {
    const out: OutputLoss[] = [];
    for (const [stream, capture] of [['stdout', this.stdout], ['stderr', this.stderr]] as const) {
      const unflushedBytes = this.unflushed?.[stream] ?? 0;
      if (capture.droppedChars > 0 || unflushedBytes > 0) out.push({ stream, notKeptChars: capture.droppedChars, unflushedBytes });
    }
    return out;
  }

  /** Checked at the boundary: a malformed message fails the role with a protocol error naming it, instead of crashing here later. */
  private onRawMessage(raw: unknown): void {
    if (!isFromChild(raw)) return; // not a message of ours: ignored, as always
    const parsed = parseFromChild(raw);
    if (parsed.ok) return this.onMessage(parsed.value);
    this.onProtocolError(parsed.problem);
  }

  private onProtocolError(problem: string): void {
    const error = { ...protocolError(`role "${this.name}"`, problem), tNs: process.hrtime.bigint().toString() };
    this.stderr.push(`[harness] ${error.message}\n`);
    this.onMessage({ type: 'result', ok: false, error });
  }

  private onMessage(m: FromChild): void {
    switch (m.type) {
      case 'waiting':
        this.waitingFor = m.waitingFor;
        if (this.stoppedAtNs !== null && m.tNs !== undefined && BigInt(m.tNs) < this.stoppedAtNs) this.waitingWhenStopped = m.waitingFor;
        this.launch.emit({ type: 'waiting', role: this.name, waitingFor: m.waitingFor });
        break;
      case 'diagnosed':
        this.diagnosticReport = m.file;
        break;
      case 'rounds':
        this.launch.emit({ type: 'rounds', role: this.name, done: m.done, total: m.total });
        break;
      case 'mark':
        this.marks.push({ name: m.name, tNs: m.tNs });
        this.launch.emit({ type: 'mark', role: this.name, name: m.name, tNs: m.tNs });
        break;
      case 'result':
        if (this.reported || this.saidWhileStopping) break;
        if (m.unflushed) this.unflushed = m.unflushed;
        if (this.stopReason && !this.failedBeforeStop(m) && !this.ownAclFailure(m)) {
          // We already decided to stop it: what it says while dying (e.g. "The service was stopped"
          // when the group SIGTERM also took down esbuild's service process) is not its result.
          this.saidWhileStopping = m.ok ? { ok: true } : { ok: false, error: m.error };
          break;
        }
        this.reported = m.ok ? { ok: true, value: m.value } : { ok: false, error: m.error };
        break;
    }
  }

  /**
   * A failure the role caught (by its own clock) before we decided to stop it is its own failure,
   * even if it reaches us after that decision: it is what started the trouble, not an echo of it.
   */
  private failedBeforeStop(m: Outcome): boolean {
    return !m.ok && m.error.tNs !== undefined && this.stoppedAtNs !== null && BigInt(m.error.tNs) < this.stoppedAtNs;
  }

  /**
   * An ACL error a role stopped by fail-fast reports is its own failure too, whenever it arrives:
   * our stop reaches the role only through SIGTERM, whose handler sends nothing new, so the ACL call
   * failed on its own (typically on what the first failure destroyed). Counted as a failure, it is
   * reported the same way whether its message came before or after our stop: as a consequence
   * when it came after the first failure (blame.ts).
   */
  private ownAclFailure(m: Outcome): boolean {
    return this.stopReason === 'stopped' && !m.ok && m.error.acl !== undefined;
  }

  /** Everything the process sent is in (host state 'closed'): decide its status, once. */
  private onClosed(): void {
    this.marks.push(...this.kind.marksAtEnd());
    this.status = this.decideStatus();
    this.launch.emit({ type: 'exited', role: this.name, status: this.status, exitCode: this.host.exitCode, signal: this.host.exitSignal });
    this.onEnd(this);
  }

  private decideStatus(): RoleStatus {
    if (this.reported) {
      // A result that arrived before we stopped it stands; the exit code must agree with it.
      if (this.reported.ok) return this.host.exitCode === 0 ? 'passed' : 'failed';
      return 'failed';
    }
    // Once we decided to stop it, the outcome is ours (stopped / timeout) whatever it does while
    // dying: a result sent after that point was ignored in onMessage, and a crash while finalizing
    // is noted in its stderr (and `signal`) rather than turning a stop into a failure.
    const signal = this.host.exitSignal;
    if (this.stopReason) {
      const ourSignal = signal === 'SIGTERM' || signal === 'SIGKILL';
      if (signal && !ourSignal) this.stderr.push(`[harness] while being stopped it died by ${signal}\n`);
      if (this.saidWhileStopping) {
        const said = this.saidWhileStopping.ok ? 'a success' : `an error: ${this.saidWhileStopping.error.message}`;
        this.stderr.push(`[harness] while being stopped it reported ${said}\n`);
      }
      return this.stopReason;
    }
    if (signal) return 'crashed'; // a signal we did not send: SIGSEGV, SIGABRT, ...
    // Ended by itself without a result: its kind may judge it (a native program is judged by its end).
    const { host } = this;
    const verdict = this.kind.verdict({
      pid: this.pid,
      exitCode: host.exitCode,
      spawnError: host.spawnError,
      endedAtNs: host.endedAtNs,
      stdout: this.stdout.text,
      stderr: this.stderr.text,
      env: () => this.childEnv(),
    });
    if (verdict === null) return 'failed';
    this.reported = verdict;
    return verdict.ok ? 'passed' : 'failed';
  }

  private describeEnd(): string {
    const { exitCode, exitSignal, spawnError } = this.host;
    if (spawnError) return `could not start the device process: ${spawnError.message}`;
    if (this.reported?.ok) return `reported success but then exited with code ${exitCode} signal ${exitSignal}`;
    if (this.stopReason && this.saidWhileStopping?.ok) {
      // Else it reads as "timeout: exit code 0", a contradiction with no reason given.
      return `${this.stopDetail}; its body then finished with success while it was being stopped (exit code ${exitCode ?? '-'}), too late to count`;
    }
    if (this.stopReason) return this.stopDetail;
    if (exitSignal) return `killed by signal ${exitSignal} before reporting a result`;
    return `exited with code ${exitCode} before reporting a result`;
  }
}

type Outcome = Extract<FromChild, { type: 'result' }>;
