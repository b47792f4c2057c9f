/**
 * The results of a run, as its parent reports them: each role's result and the run's. Their one
 * home: the orchestrator produces them, the scenario layer and the reports read them, and the
 * result a device process sends up is part of them. Types only.
 */
import type { CallInProgress } from '../acl/call-record';
import type { WaitingFor } from '../rendezvous';
import type { HappensBeforeReport } from '../trace/happens-before';
import type { RoleError } from './types';

export interface TraceFile {
  pid: number;
  /** The role whose device process wrote it (null for other processes, e.g. a role's children). */
  role: string | null;
  /** The file's content: one JSON object per line, as written by the stub. */
  jsonl: string;
}

export type RoleStatus = 'passed' | 'failed' | 'crashed' | 'timeout' | 'stopped';

/** Output of one stream that is missing from RoleResult.stdout / stderr, and why. */
export interface OutputLoss {
  stream: 'stdout' | 'stderr';
  /** Characters the parent received but did not keep (it keeps the last 8 MiB of each stream). */
  notKeptChars: number;
  /** Bytes the device process had written but could not flush before it exited. */
  unflushedBytes: number;
}

export interface RoleResult {
  name: string;
  device: number;
  index: number;
  pid: number | null;
  /** stopped: killed because another role failed (or the run was aborted). */
  status: RoleStatus;
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
  value?: unknown;
  error?: RoleError;
  stdout: string;
  stderr: string;
  /**
   * ctx.mark() calls in order. tNs: CLOCK_MONOTONIC ns, a decimal string (exact; it exceeds 2^53).
   * tMs: milliseconds since the run started (RunResult.startNs), a number (ns precision).
   */
  marks: { name: string; tNs: string; tMs?: number }[];
  waitingFor?: WaitingFor;
  /**
   * When this role failed, CLOCK_MONOTONIC ns (the same clock in every process): the device
   * process's own time of the error it reported, else when the parent saw it end (crash, exit
   * without a result) or the deadline (timeout). Set for failed, crashed and timeout roles.
   */
  failedAtNs?: string;
  /**
   * CLOCK_MONOTONIC ns at which the harness began stopping this role (SIGTERM at the deadline, or
   * after another role's failure): a task of it that ended from then on was ended by the stop.
   */
  stoppedAtNs?: string;
  /** What a stopped role reported while it was being stopped (not its result: it was stopped first). */
  errorWhileStopping?: RoleError;
  /** The role whose failure came first, when this role failed after it or was stopped because of it. */
  consequenceOf?: string;
  /** Present when some of its output is missing from stdout / stderr. */
  outputLoss?: OutputLoss[];
  /** Device work its process queued but never ran (the stub's trace says "cancel"), stub mode only. */
  cancelledTasks?: CancelledTask[];
  /** Native roles: the libascendcl.so seen in its memory map (null: none seen before it ended). */
  library?: string | null;
}

/** One task the stub dropped without running it (at aclFinalize or exit), from its trace. */
export interface CancelledTask {
  /** record, wait, reset, ipc_record, ipc_wait or host_func */
  kind: string;
  device: number;
  stream: number;
  event: number;
  /** IPC object id (hex) for IPC tasks, else null. */
  ipc: string | null;
  slot: number | null;
  /** CLOCK_MONOTONIC ns of the cancellation. */
  tNs: string;
}

/** The earliest failure of a run (by CLOCK_MONOTONIC time): the one the report blames. */
export interface FirstFailure {
  role: string;
  status: RoleStatus;
  atNs: string;
}

export interface RunResult {
  ok: boolean;
  dir: string;
  kept: boolean;
  timedOut: boolean;
  durationMs: number;
  /**
   * When the run started (before any device process), in decimal CLOCK_MONOTONIC ns: the zero of
   * every mark's tMs. Always set by runRoles.
   */
  startNs?: string;
  roles: RoleResult[];
  summary: string;
  /** The earliest failure; absent when no role failed (a run can still time out without one). */
  firstFailure?: FirstFailure;
  /** Only with RunOptions.collectTraces. */
  traces?: TraceFile[];
  /** With the traces: the name each IPC event was shared under (rendezvous), by its trace id (`ipc`), so reports name it once. */
  ipcNames?: Record<string, string>;
  /** Only with RunOptions.checkHappensBefore. */
  happensBefore?: HappensBeforeReport;
  /** With RunOptions.deferRemoval: the passing run's directory is still there (settleDeferredRun). */
  removalDeferred?: boolean;
  /** Only when the run failed: a few lines per role of what ran on which stream, when (stub mode). */
  timeline?: string[];
  /** Only when the run timed out: who waited for whom at the deadline (its lines head `summary`). */
  waitGraph?: WaitGraph;
  /**
   * Only when the run timed out: when the deadline expired, in decimal nanoseconds of CLOCK_MONOTONIC
   * (the clock of the stub's trace lines and of marks). A string because it exceeds 2^53.
   */
  deadlineNs?: string;
  /** Only when the directory was kept and part of its post-mortem could not be written: what, and why. */
  postMortemProblems?: string[];
  /** With RunOptions.explore, when a role failed in an explored round: that round's schedule (src/wire/explore-file.ts) and who left it. */
  explore?: { schedule: string; role: string };
}

/** Who waited for whom at the deadline of a run that timed out (built by src/orchestrator/wait-graph.ts). */
export interface WaitStep {
  /** Text of this link, e.g. 'awaits signal "go" from producer'. */
  text: string;
  /** The role this step leads to; absent for the chain's end. */
  next?: string;
  /** A role this step waits on that the chain does not follow further (e.g. the owner of a record not yet executed). */
  on?: string;
}

export interface WaitChain {
  /** The roles on the path, from the start; for a deadlock, the cycle's roles in order. */
  roles: string[];
  deadlock: boolean;
  text: string;
  /** Who waits for whom along this chain ("A waits for B"), for drawing: followed steps and the roles steps wait on. */
  edges?: { from: string; to: string }[];
}

export interface WaitGraph {
  chains: WaitChain[];
  deadlock: boolean;
  /** The lines for the top of the timeout report. */
  lines: string[];
  /** The ACL call each role was in, by role name. */
  calls: Record<string, CallInProgress>;
  /** Where the stub state of each role in an ACL call came from. */
  sources: Record<string, StubSource>;
}

/** 'live': the stub's live view; 'trace': its trace file; 'none': neither (real CANN, no trace). */
export type StubSource = 'live' | 'trace' | 'none';
