/**
 * Public types of the orchestrator (see docs/interfaces.md). `RoleContext` is what a role body
 * receives inside its device process.
 */
import type { WaitGraph } from './wait-graph';
import type { Rendezvous, WaitingFor } from '../rendezvous';
import type { HappensBeforeReport } from '../trace/happens-before';
import type { ResolvedMode } from '../env';
import type { AclErrorInfo, AclMode, RoleBody, RoleContext, RoleEntry, RoleError } from '../wire/types';

export type { AclErrorInfo, AclMode, RoleBody, RoleContext, RoleEntry, RoleError };

/** What a native role runs and how its end is judged (RoleSpec.native). */
export interface NativeRoleSpec {
  /** Absolute path of the program (resolved by the caller against the spec's folder or PATH). */
  program: string;
  /** Its arguments; `{device}`, `{index}` and `{dir}` are replaced when it starts. */
  args: string[];
  /** The exit code of success (default 0). */
  expectExit?: number;
  /** Success also needs a line of stdout or stderr to match. */
  expectOutput?: RegExp;
}

export interface RoleSpec {
  name: string;
  device: number;
  index?: number;
  /** A device process running a TypeScript body: give either `entry` or `native`. */
  entry?: RoleEntry;
  /** A native role: a program run as the role (native-role.ts). */
  native?: NativeRoleSpec;
  env?: Record<string, string>;
}

export type RunEvent =
  | { type: 'started'; role: string; device: number; pid: number; dir: string }
  | { type: 'waiting'; role: string; waitingFor: WaitingFor | null }
  | { type: 'mark'; role: string; name: string; tNs: string }
  | { type: 'timeout'; roles: string[] }
  | { type: 'rounds'; role: string; done: number; total: number }
  | { type: 'exited'; role: string; status: RoleStatus; exitCode: number | null; signal: string | null };

export interface RunOptions {
  roles: RoleSpec[];
  timeoutMs: number;
  /** Stop the other roles as soon as one fails (default true). */
  failFast?: boolean;
  /** Time between SIGTERM and SIGKILL when stopping a role (default 2000). */
  graceMs?: number;
  /** Keep the scenario directory even on success (also CANN_HARNESS_KEEP=1). */
  keepDir?: boolean;
  mode?: AclMode;
  label?: string;
  /** Echo children's output live, each line prefixed with [role@devN]. */
  echo?: boolean;
  onEvent?: (e: RunEvent) => void;
  /** Read the stub's per-process trace files (<dir>/trace/trace-<pid>.jsonl) into RunResult.traces. */
  collectTraces?: boolean;
  /** Leave a passing run's directory in place for settleDeferredRun() (a check still to come may fail). */
  deferRemoval?: boolean;
  /**
   * Check the stub's traces for happens-before violations (src/trace/happens-before.ts) once every
   * role has ended; a violation fails the run. Runs without traces (real CANN) are reported skipped.
   */
  checkHappensBefore?: boolean;
  /** `rounds` scenarios: create the round barrier file for this many parties (round-barrier-file.ts) before any role starts. */
  roundBarrierParties?: number;
  /**
   * Brings the deadline forward: when this signal aborts, the run ends as at its deadline (hang
   * report, wait-for graph, the roles still running stopped as `timeout`). For a caller that knows
   * the run is stuck, e.g. a test that waited for its roles to block instead of for a fixed time.
   */
  expireOn?: AbortSignal;
}

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
}

export interface PrecheckOptions {
  mode?: AclMode;
  timeoutMs?: number;
  /** Extra environment for the precheck child (e.g. ACL_STUB_DEVICE_COUNT). */
  env?: Record<string, string>;
}

export interface PrecheckResult {
  ok: boolean;
  mode: ResolvedMode;
  library: string;
  reason: string;
  deviceCount: number;
  ipcSupported: boolean;
  error?: string;
}

