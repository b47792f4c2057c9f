/**
 * Public types of the orchestrator (see docs/architecture.md). `RoleContext` is what a role body
 * receives inside its device process.
 */
import type { Rendezvous, WaitingFor } from '../rendezvous';
import type { ResolvedMode, Mode } from '../env';
import type { AclErrorInfo, RoleBody, RoleContext, RoleEntry, RoleError } from '../wire/types';

export type { AclErrorInfo, RoleBody, RoleContext, RoleEntry, RoleError };
import type { RoleStatus } from '../wire/results';
import type { ExploreArgs } from '../wire/explore-file';

/** The results of a run: their one home is src/wire/results.ts. */
export type { CancelledTask, FirstFailure, OutputLoss, RoleResult, RoleStatus, RunResult, TraceFile } from '../wire/results';

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
  mode?: Mode;
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
   * The schedule explorer (stub mode): the run's explore file is created in the scenario directory
   * and every role gets ACL_STUB_EXPLORE (src/wire/explore-file.ts); a failing role's schedule comes
   * back in RunResult.explore.
   */
  explore?: ExploreArgs;
  /**
   * Brings the deadline forward: when this signal aborts, the run ends as at its deadline (hang
   * report, wait-for graph, the roles still running stopped as `timeout`). For a caller that knows
   * the run is stuck, e.g. a test that waited for its roles to block instead of for a fixed time.
   */
  expireOn?: AbortSignal;
}

export interface PrecheckOptions {
  mode?: Mode;
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

