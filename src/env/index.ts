/**
 * Every environment variable of the harness and of the CPU stub, in one place: its name, who sets
 * it, one line on what it does, and the parsing and validation of the ones with a format. Product
 * code reads them through this module (`env[ENV.keep]`, `modeFromEnv()`), never by a string
 * literal. The tables of docs/reference/environment.md are checked against VARIABLES
 * (test/env/env.test.ts). A leaf: it imports nothing of the repository, so every part may use it.
 * (src/ts-hook/typescript-transform.js runs before any TypeScript can load; it names its one variable itself.)
 */

/** `user`: you set it; `harness`: the harness sets it for its own children (documented, not to be set by hand). */
export type SetBy = 'user' | 'harness';

export interface EnvVariable {
  name: string;
  setBy: SetBy;
  /** Read by the stub's C code (native-stub/src) rather than by TypeScript. */
  readInC?: true;
  /** One line: what it does. */
  doc: string;
}

const VARIABLES_BY_KEY = {
  mode: { name: 'CANN_HARNESS_MODE', setBy: 'user', doc: 'auto (default), stub or real: which libascendcl.so to load' },
  library: { name: 'CANN_HARNESS_LIBRARY', setBy: 'user', doc: 'explicit path of libascendcl.so; skips the search' },
  holdLibrary: { name: 'CANN_HARNESS_HOLD_LIBRARY', setBy: 'user', doc: 'explicit path of libcannharness_hold.so' },
  requireDevices: { name: 'CANN_HARNESS_REQUIRE_DEVICES', setBy: 'user', doc: 'N: scenarios needing up to N devices fail instead of being skipped' },
  keep: { name: 'CANN_HARNESS_KEEP', setBy: 'user', doc: '1: keep every scenario directory; 0: not even failed ones' },
  trace: { name: 'CANN_HARNESS_TRACE', setBy: 'user', doc: '1: keep every scenario directory with its trace.json timeline; 0: no trace.json even in kept ones' },
  echo: { name: 'CANN_HARNESS_ECHO', setBy: 'user', doc: "1: echo every role's output live" },
  timeoutMs: { name: 'CANN_HARNESS_TIMEOUT_MS', setBy: 'user', doc: 'default scenario deadline in ms' },
  rounds: { name: 'CANN_HARNESS_ROUNDS', setBy: 'user', doc: 'N: every scenario runs its role bodies N times in one set of processes (soak rounds; `run --rounds N`)' },
  cacheDir: { name: 'CANN_HARNESS_CACHE_DIR', setBy: 'user', doc: 'where an installed package builds the CPU stub' },
  tsCache: { name: 'CANN_HARNESS_TS_CACHE', setBy: 'user', doc: 'where compiled TypeScript is cached' },
  tmpDir: { name: 'CANN_HARNESS_TMPDIR', setBy: 'user', doc: 'where scenario directories are made' },
  resultsDir: { name: 'CANN_HARNESS_RESULTS_DIR', setBy: 'user', doc: 'where kept scenario directories go (default test-results/cann-harness)' },
  buildTimeoutMs: { name: 'CANN_HARNESS_BUILD_TIMEOUT_MS', setBy: 'user', doc: "a native scenario's `build:` deadline in ms (default 600000)" },
  hbCheck: { name: 'CANN_HARNESS_HB_CHECK', setBy: 'user', doc: '0: turn the happens-before check off' },
  stubDeviceCount: { name: 'ACL_STUB_DEVICE_COUNT', setBy: 'user', readInC: true, doc: "the stub's device count, 1..64 (default 8)" },
  stubTrace: { name: 'ACL_STUB_TRACE', setBy: 'user', readInC: true, doc: "directory of the stub's per-process JSON-lines trace" },
  stubLog: { name: 'ACL_STUB_LOG', setBy: 'user', readInC: true, doc: "the stub's log level: off, error, warn, info, debug" },
  stubMutant: { name: 'ACL_STUB_MUTANT', setBy: 'user', readInC: true, doc: 'a deliberately broken stub (wait-noop, record-instant, wait-latest, sync-noop)' },
  stubJitter: { name: 'ACL_STUB_JITTER', setBy: 'user', readInC: true, doc: '<seed>:<max_us>: seeded delays before stream tasks' },
  stubExplore: { name: 'ACL_STUB_EXPLORE', setBy: 'user', readInC: true, doc: '<file>:<seed>:<depth> or <file>:replay:<schedule file>: the schedule explorer (`run --explore`), for the role processes' },
  stubExploreStallMs: { name: 'ACL_STUB_EXPLORE_STALL_MS', setBy: 'user', readInC: true, doc: 'ms a party may run between explored points while others wait before the explorer goes on without it (default 50)' },
  stubFault: { name: 'ACL_STUB_FAULT', setBy: 'user', readInC: true, doc: '<call>:<code>[:<nth>]: fault injection' },
  stubScope: { name: 'ACL_STUB_SCOPE', setBy: 'user', readInC: true, doc: "a name in every stub object's name; the stub reclaims only objects of its own scope (unset: the harness gives each run harness-<pid>)" },
  stubPageable: { name: 'ACL_STUB_PAGEABLE', setBy: 'user', readInC: true, doc: 'sync (default) or async: async copies of malloc memory wait for their stream, or are queued' },
  stubSocName: { name: 'ACL_STUB_SOC_NAME', setBy: 'user', readInC: true, doc: 'what aclrtGetSocName answers (default Ascend910B1, an Atlas A2 SoC)' },
  stubPidNamespace: { name: 'ACL_STUB_PID_NAMESPACE', setBy: 'user', readInC: true, doc: 'host (default) or container: in container, aclrtDeviceGetBareTgid is getpid() + 1000000000 and every pid whitelist is checked against it' },
  role: { name: 'CANN_HARNESS_ROLE', setBy: 'harness', doc: "a device process's role name (the stub's jitter also mixes it in)" },
  device: { name: 'CANN_HARNESS_DEVICE', setBy: 'harness', doc: "a device process's device" },
  index: { name: 'CANN_HARNESS_INDEX', setBy: 'harness', doc: "a device process's role index" },
  dir: { name: 'CANN_HARNESS_DIR', setBy: 'harness', doc: "a device process's scenario directory" },
  parentPid: { name: 'CANN_HARNESS_PARENT_PID', setBy: 'harness', doc: "the orchestrator's pid, watched by its children" },
  deviceBundle: { name: 'CANN_HARNESS_DEVICE_BUNDLE', setBy: 'harness', doc: "which cached device bundle the orchestrator found current (a source checkout's device processes then do not compare it with the sources again)" },
  deadlineNs: { name: 'CANN_HARNESS_DEADLINE_NS', setBy: 'harness', readInC: true, doc: "a native role's scenario deadline (CLOCK_MONOTONIC ns): the C API's awaits give up there" },
  nativeWatch: { name: 'CANN_HARNESS_NATIVE_WATCH', setBy: 'harness', readInC: true, doc: "1: libcannharness_preload.so starts the watchdog in a native role (and removes the variable)" },
  runnerPid: { name: 'CANN_HARNESS_RUNNER_PID', setBy: 'harness', doc: "the Jest runner's pid (global setup), watched by its worker processes" },
  session: { name: 'CANN_HARNESS_SESSION', setBy: 'harness', doc: 'session ids of the run, inherited by every process of it' },
  probe: { name: 'CANN_HARNESS_PROBE', setBy: 'harness', doc: "the device probe's result (JSON), for Jest's workers" },
  progressDir: { name: 'CANN_HARNESS_PROGRESS_DIR', setBy: 'harness', doc: 'where runs write live progress for `cann-harness run`' },
  repeatEach: { name: 'CANN_HARNESS_REPEAT_EACH', setBy: 'harness', doc: '`run --repeat-each N`, for the workers' },
  jitterUs: { name: 'CANN_HARNESS_JITTER_US', setBy: 'harness', doc: '`run --jitter [max_us]`, for the workers' },
  explore: { name: 'CANN_HARNESS_EXPLORE', setBy: 'user', doc: '<seed> or fresh: the schedule explorer for every scenario (`run --explore [seed]`)' },
  exploreDepth: { name: 'CANN_HARNESS_EXPLORE_DEPTH', setBy: 'user', doc: "the explorer's PCT depth, 1..8 (default 2; `run --explore-depth d`)" },
  exploreReplay: { name: 'CANN_HARNESS_EXPLORE_REPLAY', setBy: 'user', doc: 'ex1.<token> or @<file>: replay one recorded schedule (`run --explore-replay`)' },
  retries: { name: 'CANN_HARNESS_RETRIES', setBy: 'harness', doc: '`run --retries N`, for the workers' },
  shard: { name: 'CANN_HARNESS_SHARD', setBy: 'harness', doc: '`run --shard i/n`, for the workers' },
  intervalsLog: { name: 'CANN_HARNESS_INTERVALS_LOG', setBy: 'harness', doc: "`cann-harness run`'s file of interval samples, for the workers" },
  htmlData: { name: 'CANN_HARNESS_HTML_DATA', setBy: 'harness', doc: "the HTML reporter's folder of scenario records, for the workers" },
  notesLog: { name: 'CANN_HARNESS_NOTES_LOG', setBy: 'harness', doc: "the run's file of notes (skips, passes with only no-op waits), for the workers" },
  auditLog: { name: 'CANN_HARNESS_AUDIT_LOG', setBy: 'harness', doc: "`cann-harness audit`'s file of audit declarations" },
  stubTestDieInLock: { name: 'ACL_STUB_TEST_DIE_IN_LOCK', setBy: 'harness', readInC: true, doc: "the C conformance suite's crash-while-locked test only" },
  stubTestExactReserve: { name: 'ACL_STUB_TEST_EXACT_RESERVE', setBy: 'harness', readInC: true, doc: "the C conformance suite's /dev/shm growth tests only (page-less reserves)" },
} as const satisfies Record<string, EnvVariable>;

type Key = keyof typeof VARIABLES_BY_KEY;

/** Names by key: `env[ENV.keep]` (a misspelt key is a compile error, a misspelt string is not). */
export const ENV = Object.fromEntries(Object.entries(VARIABLES_BY_KEY).map(([k, v]) => [k, v.name])) as {
  readonly [K in Key]: (typeof VARIABLES_BY_KEY)[K]['name'];
};

export type EnvName = (typeof ENV)[Key];

/** Every variable, in documentation order. */
export const VARIABLES: readonly EnvVariable[] = Object.values(VARIABLES_BY_KEY);

/** The variable is exactly '1' (how every on/off switch of the harness is turned on). */
export function envOn(name: EnvName, env: NodeJS.ProcessEnv = process.env): boolean {
  return env[name] === '1';
}

/** The variable is exactly '0' (for switches that are on unless turned off). */
export function envOff(name: EnvName, env: NodeJS.ProcessEnv = process.env): boolean {
  return env[name] === '0';
}

export const MODES = ['auto', 'stub', 'real'] as const;
export type Mode = (typeof MODES)[number];
/** The library a process loaded: what `auto` resolved to. */
export type ResolvedMode = Exclude<Mode, 'auto'>;

/** `source` names where the value came from (a variable, an option) in the error. */
export function parseMode(value: string | undefined, source: string): Mode {
  if (value === undefined || value === '') return 'auto';
  if ((MODES as readonly string[]).includes(value)) return value as Mode;
  throw new Error(`${source} must be one of ${MODES.join(', ')}; got "${value}" (or leave it unset for auto: real CANN when found, else the stub)`);
}

export function modeFromEnv(env: NodeJS.ProcessEnv = process.env): Mode {
  return parseMode(env[ENV.mode], ENV.mode);
}

/** CANN_HARNESS_REQUIRE_DEVICES: null when unset. */
export function requiredDevicesFromEnv(env: NodeJS.ProcessEnv = process.env): number | null {
  const name = ENV.requireDevices;
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  if (!/^\d+$/.test(raw.trim())) {
    throw new Error(`${name} must be a whole number of devices (got ${JSON.stringify(raw)}), e.g. ${name}=8`);
  }
  return Number(raw.trim());
}

