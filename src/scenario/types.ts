/**
 * The shapes a spec author writes (declarations) and receives (contexts, results).
 * Only types here: this file is imported by device processes, worker threads and Jest alike.
 */
import type { Acl, DeviceBuffer, Event, IpcEventHandle, Latch, MappedBuffer, Notify, Stream } from '../acl';
import type { MutantName } from '../mutants';
import type { RoleContext } from '../wire/types';
import type { RoleResult, RunResult } from '../wire/results';

/** Free-form scenario parameters; re-evaluated in every process, so keep them deterministic. */
export type Params = Record<string, unknown>;

/** Where every role of the scenario runs (given to each role, e.g. to count consumers). */
export interface RoleInfo {
  /** Unique role name: the key for single roles, `<key>-<i>` for replicated ones. */
  name: string;
  /** The key in `roles` this role came from. */
  group: string;
  device: number;
  index: number;
  threads: number;
}

/** Options for helpers that wait on another role. */
export interface AwaitOptions {
  /** Role expected to produce it (named in timeout messages). */
  from?: string;
  /** Defaults to the time left before the scenario's timeout. */
  timeoutMs?: number;
}

/** What a role body receives: the orchestrator's RoleContext plus scenario helpers. */
/** Options of shareMemory / shareNotify. */
export interface ShareOptions {
  /** Roles (or groups) allowed to import; default: every other role. Their pids go on the whitelist. */
  importers?: readonly string[];
  /** false exports without a pid whitelist (ACL_RT_..._DISABLE_PID_VALIDATION). Default true. */
  pidValidation?: boolean;
  timeoutMs?: number;
}

/**
 * The data part of a scenario body's `ctx`: device memory, IPC memory, IPC notify and VMM memory
 * shared between roles (harness/scenario/context/data-context.ts).
 */
export interface DataContext {
  /** aclrtMalloc on this role's device; freed when the body returns. */
  alloc(bytes: number): DeviceBuffer;
  /** Export `buf` under `name`; with the whitelist on, waits for the importers' pids first. Returns the key. */
  shareMemory(name: string, buf: DeviceBuffer, opts?: ShareOptions): Promise<string>;
  /** Await memory shared under `name` and import it (a new address here); closed when the body returns. */
  openSharedMemory(name: string, opts?: AwaitOptions & { peerAccess?: boolean }): Promise<DeviceBuffer>;
  /** aclrtCreateNotify on this role's device; destroyed when the body returns. */
  createNotify(): Notify;
  /** Export the notify under `name` (whitelist as for shareMemory). Returns the key. */
  shareNotify(name: string, notify: Notify, opts?: ShareOptions): Promise<string>;
  /** Await a notify shared under `name` and import it (this role may record it; waits belong to its creator). */
  openSharedNotify(name: string, opts?: AwaitOptions & { peerAccess?: boolean }): Promise<Notify>;
  /**
   * VMM physical memory on this role's device, `bytes` rounded up to the allocation granularity,
   * reserved, mapped and made read-write here; used like `alloc`'s buffers. Unmapped, released
   * and freed when the body returns.
   */
  allocPhysical(bytes: number): MappedBuffer;
  /**
   * Export `buf`'s physical memory (aclrtMemExportToShareableHandle) under `name`; with the
   * whitelist on, waits for the importers' pids and lists them (aclrtMemSetPidToShareableHandle)
   * first. Returns the shareable handle.
   */
  sharePhysical(name: string, buf: MappedBuffer, opts?: ShareOptions): Promise<bigint>;
  /**
   * Await physical memory shared under `name`, import it on this role's device and map it here
   * (its own addresses). Unmapped, released and freed when the body returns, before this role's
   * own memory.
   */
  openSharedPhysical(name: string, opts?: AwaitOptions): Promise<MappedBuffer>;
}

/** The `ctx` a scenario role body (and setup) receives: its role, device, ACL, data and round calls. */
export interface ScenarioContext<P = Params> extends DataContext {
  /** ACL API, aclInit done, device set on this thread. */
  readonly acl: Acl;
  readonly device: number;
  readonly role: string;
  readonly group: string;
  readonly index: number;
  readonly dir: string;
  readonly scenario: string;
  readonly params: P;
  readonly roles: readonly RoleInfo[];
  readonly rendezvous: RoleContext['rendezvous'];
  log(...args: unknown[]): void;
  /** A CLOCK_MONOTONIC timestamped marker, checked later with toHaveMarkOrder. */
  mark(name: string): void;

  /** This role's (or thread's) own stream, created on first use and destroyed afterwards. */
  readonly stream: Stream;
  /** Milliseconds left before the scenario's deadline. */
  timeLeftMs(): number;
  /** Roles whose group is `group` (e.g. every consumer), in index order. */
  rolesIn(group: string): RoleInfo[];
  /** A new IPC event (destroyed automatically when the body returns, unless already destroyed). */
  createIpcEvent(): Event;
  /** Export `event`'s IPC handle under `name` for other roles (atomically published). */
  shareEvent(name: string, event: Event): Promise<IpcEventHandle>;
  /** Await the handle published under `name` and open it on this thread's device. */
  openSharedEvent(name: string, opts?: AwaitOptions): Promise<Event>;
  /** Block `stream` (default: ctx.stream) until release(); released automatically at the end. */
  latch(stream?: Stream): Latch;
  /**
   * Throw unless `stream` is still blocked after `ms` (default 100): proof that a wait on it
   * really captured a pending record instead of being a no-op. On the stub, blocked means that
   * its executor sleeps in a wait (or runs a host function): until it does (an executor that has
   * not run yet on a loaded machine), it looks again every `ms`.
   */
  assertBlocked(stream?: Stream, ms?: number): void;
  signal(name: string): Promise<void>;
  awaitSignal(name: string, opts?: AwaitOptions): Promise<void>;
  /** Await several signals (all of them, in any order). */
  awaitSignals(names: readonly string[], opts?: Omit<AwaitOptions, 'from'>): Promise<void>;
  sleep(ms: number): Promise<void>;

  /** Soak rounds (README "Soak rounds"): this round's number, 1..rounds (1 when the scenario has no rounds). */
  readonly round: number;
  /** How many rounds this run has (1 without rounds). */
  readonly rounds: number;
  /**
   * What the role's `setup` body returned (undefined without one, and in `setup` itself); in a
   * worker thread, what that thread's `threadSetup` returned.
   */
  readonly setup: any;
  /**
   * Waits until every body of the scenario called it too: each role's run body and each of its
   * worker threads' thread bodies (the fast round barrier: a futex, not a file). Only in a scenario
   * run with rounds; every body must call it the same number of times.
   */
  barrier(): void;
}

/** The `ctx` of a worker thread of a role that declared `threads: k`: a ScenarioContext plus its thread. */
export interface ThreadContext<P = Params> extends ScenarioContext<P> {
  /** 0..threads-1 */
  readonly thread: number;
  readonly threads: number;
}

export type RoleBody<P = Params> = (ctx: ScenarioContext<P>) => unknown | Promise<unknown>;
export type ThreadBody<P = Params> = (ctx: ThreadContext<P>, thread: number) => unknown | Promise<unknown>;

export interface RoleDeclaration<P = Params> {
  /** Device id, 0 .. devices-1. */
  device: number;
  /** Body run on the process's main thread. */
  run?: RoleBody<P>;
  /** Number of worker threads (piscina), each with its own stream; needs `thread`. */
  threads?: number;
  /** Body run on each worker thread. */
  thread?: ThreadBody<P>;
  /** Extra environment variables for this role's process. */
  env?: Record<string, string>;
  /**
   * A native role: a program run instead of a body, `exec: ['build/proc_b', '{device}', '1']`.
   * The program is a path relative to the spec file's folder, or a name found on PATH; `{device}`,
   * `{index}` and `{dir}` in the arguments are replaced. Its cwd is the scenario directory.
   */
  exec?: readonly string[];
  /** Native roles: success also needs a line of its stdout or stderr to match (like `grep -q`). */
  expectOutput?: RegExp;
  /** Native roles: the exit code that means success (default 0). */
  expectExit?: number;
  /**
   * Soak rounds: runs once in the role's process before round 1; what it returns is `ctx.setup` in
   * every round. What it creates through ctx (IPC events, shared names, memory) lives for the
   * whole run; names it shares are not per round.
   */
  setup?: RoleBody<P>;
  /**
   * Soak rounds, roles with worker threads: runs once in each worker thread before round 1; what it
   * returns is that thread's `ctx.setup` in every round (the role's `setup` state stays in the main
   * thread: IPC events and memory cannot cross threads). What it creates through ctx lives for the
   * whole run.
   */
  threadSetup?: ThreadBody<P>;
}

/** `precheck: { exec: ['build/precheck', '4'] }`: exit 0 runs the scenario, 2 skips it (the last output line says why). */
export interface PrecheckDeclaration {
  exec: readonly string[];
  /** Default 30 000. */
  timeoutMs?: number;
}

export const REPLICATED = Symbol.for('cann-ipc-harness.replicated');

/**
 * The function a device process calls for a role: exported by harness/scenario/role-entry.ts
 * (which checks the name against its export), forked by path from run.ts (which never imports it).
 */
export const ROLE_ENTRY_EXPORT = 'runScenarioRole';

/** `replicate(n, i => role)`: n copies of a role, named `<key>-0` .. `<key>-(n-1)`. */
export interface ReplicatedRole<P = Params> {
  readonly [REPLICATED]: true;
  readonly count: number;
  readonly make: (i: number) => RoleDeclaration<P>;
}

export interface ScenarioDeclaration<P = Params> {
  /** Devices the scenario needs; default: highest role device + 1. Fewer available -> skipped. */
  devices?: number;
  /** Whole-scenario timeout; every process is killed when it expires. Default 30 000. */
  timeoutMs?: number;
  params?: P;
  roles: Record<string, RoleDeclaration<P> | ReplicatedRole<P>>;
  /** Checks on the result, in Jest (use expect). Runs only when every role succeeded. */
  verify?: (result: ScenarioResult) => void | Promise<void>;
  /**
   * Intervals measured in every run that passes, as if verify called result.between(from, to):
   * `cann-harness run` prints their percentiles across runs (e.g. with --repeat-each) and writes
   * intervals.json. A passing run without one of the marks fails, naming it.
   */
  intervals?: [from: string, to: string][];
  /** For `cann-harness audit`: mutants this scenario survives on purpose, and why. */
  audit?: AuditDeclaration;
  /** A program deciding, before the scenario, whether it can run here (native roles' precheck). */
  precheck?: PrecheckDeclaration;
  /** A shell command run once per run, in the spec file's folder, before its scenarios: `build: 'make -C native'`. */
  build?: string;
  /**
   * Soak rounds: each role's process starts once and runs its body this many times, every round
   * checked (README "Soak rounds"). `run --rounds N` / CANN_HARNESS_ROUNDS override it.
   */
  rounds?: number;
}

/**
 * `audit: { expectSurvive: ['wait-noop'], reason: 'faithful copy of CANN sample 0_ipcevent: its wait is a no-op' }`:
 * the audit then reports those survivals as expected instead of as a scenario that does not test
 * its waits.
 */
export interface AuditDeclaration {
  expectSurvive: MutantName[];
  reason: string;
}

/** A mark from a role's main thread (thread undefined) or one of its worker threads. */
export interface ScenarioMark {
  name: string;
  /** CLOCK_MONOTONIC ns, an exact decimal string (the same clock in every process and the stub's trace). */
  tNs: string;
  /** Milliseconds since the run started (ScenarioResult.startNs): always set in results. */
  tMs?: number;
  thread?: number;
}

/** A mark in a result: its time as a number too. */
export interface TimedMark extends ScenarioMark {
  tMs: number;
}

export interface ScenarioRoleResult extends Omit<RoleResult, 'marks' | 'value'> {
  group: string;
  /** What `run` returned. */
  value?: unknown;
  /** What each worker thread returned, by thread index. */
  threadValues?: unknown[];
  marks: TimedMark[];
}

export interface ScenarioResult extends Omit<RunResult, 'roles'> {
  scenario: string;
  /** A soak-rounds run: its rounds (the happens-before figures then cover every checked round). */
  rounds?: RoundsSummary;
  /** An explored run (`--explore`) with rounds whose order was not fully controlled. */
  exploreDegraded?: ExploreDegradedRounds;
  roles: ScenarioRoleResult[];
  /** The role named `name`; throws naming the known roles if there is none. */
  role(name: string): ScenarioRoleResult;
  /** Every role of a group (`consumer` -> consumer-0, consumer-1, ...). */
  group(name: string): ScenarioRoleResult[];
  /**
   * Per role of `to`: ms from the one `from` mark to its first `to` mark, e.g. between('producer:release', 'consumer:after-wait').
   * `cann-harness run` collects every interval asked for in a passing verify() and prints percentiles across runs.
   */
  between(from: string, to: string): { role: string; ms: number }[];
}

/** A validated, expanded declaration: what the runner and the device processes work from. */
export interface PlannedRole<P = Params> extends RoleInfo {
  run?: RoleBody<P>;
  thread?: ThreadBody<P>;
  env?: Record<string, string>;
  /** A native role's program and arguments as declared (placeholders not yet replaced). */
  exec?: string[];
  expectOutput?: RegExp;
  expectExit?: number;
  setup?: RoleBody<P>;
  threadSetup?: ThreadBody<P>;
}

export interface ScenarioPlan<P = Params> {
  name: string;
  devices: number;
  /** Without a declared `devices`: the role whose device set it ("role x is on device 15"), for skip reasons. */
  devicesSetBy?: string;
  timeoutMs: number;
  params: P;
  roles: PlannedRole<P>[];
  verify?: (result: ScenarioResult) => void | Promise<void>;
  intervals?: [string, string][];
  audit?: AuditDeclaration;
  precheck?: { exec: string[]; timeoutMs: number };
  build?: string;
  /** The declared `rounds` (CANN_HARNESS_ROUNDS wins when set). */
  rounds?: number;
}

/** JSON args the orchestrator passes to harness/scenario/role-entry.ts. */
export interface RoleEntryArgs {
  specFile: string;
  scenario: string;
  role: string;
  /** JSON of the params as planned where the scenario was declared (Jest): every process must agree. */
  paramsJson?: string;
  /** Soak rounds of this run (set: the role runs in rounds, harness/scenario/rounds.ts). */
  rounds?: RoundsArgs;
}

/** How a device process runs its rounds (decided where the test is registered). */
export interface RoundsArgs {
  total: number;
  /** The run's jitter: seed of round 1 and max_us; each later round's seed follows (src/scenario/round-seed.ts). */
  jitter?: { seed: number; maxUs: number };
}

/** What role-entry returns; unwrapped by the runner into ScenarioRoleResult. */
export interface RoleEnvelope {
  __scenarioEnvelope: 1;
  value?: unknown;
  threadValues?: unknown[];
  threadMarks: ScenarioMark[];
  /** Soak rounds: how many ran, and (the checking role) the happens-before figures of the rounds it checked and discarded. */
  rounds?: { done: number; total: number; checked?: RoundsCheckedStats };
  /** The schedule explorer's rounds that were not fully ordered (the first role reports them, when there were any). */
  exploreDegraded?: ExploreDegradedRounds;
}

/** Explored rounds whose order was not fully controlled: a party left the explored points (docs/guide/soak-rounds.md). */
export interface ExploreDegradedRounds {
  rounds: number;
  firstRound: number;
  /** The first such round's note, e.g. "producer/main left the explored points after step 9 (running 61 ms since ...)". */
  first: string;
}

/** Happens-before figures summed over the rounds a rounds run checked as it went (their traces are gone). */
export interface RoundsCheckedStats {
  rounds: number;
  tasks: number;
  waits: number;
  blockedWaits: number;
  noopWaits: number;
  syncs: number;
}

/** A soak-rounds run: what the result says about its rounds. */
export interface RoundsSummary {
  total: number;
  /** Rounds every role completed (the failing round not counted). */
  done: number;
  /** The round that failed, or null. */
  failedRound: number | null;
}
