/**
 * The allowed imports of each part of the repository (a DEPS list, as in Chromium): checked by
 * test/architecture/boundaries.test.ts in `npm test`, and by `npm run check:boundaries`.
 *
 * A part is a folder (or one file); a file belongs to the longest part that contains it. Inside
 * a part, files import each other freely (but never in a cycle). Node's built-in modules are
 * always allowed, and so are the foundation parts (src/env, src/paths: imported by all, importing nothing).
 * Type-only imports count like any other: a type import is still a dependency.
 * docs/architecture.md ("Layers and import rules") shows the same rules as a picture.
 */

export interface PartRule {
  /** What the part is, in a few words (shown with a broken rule). */
  role: string;
  /** The other parts it may import. */
  mayImport: readonly string[];
  /** Every part may import it (like Node's built-ins); so it may import no part itself. */
  foundation?: true;
}

/** Lowest layer first. */
export const PARTS: Readonly<Record<string, PartRule>> = {
  'src/env': { role: 'environment variables: names, parsing, documentation', mayImport: [], foundation: true },
  'src/paths': { role: "where the harness's own files are (package root, entry points, stub sources)", mayImport: [], foundation: true },
  'src/rendezvous': { role: 'file rendezvous between processes (plain files)', mayImport: [] },
  'src/trace': { role: 'stub traces: Chrome trace JSON and the happens-before check', mayImport: [] },
  'src/mutants': { role: 'the public names of the stub mutants', mayImport: [] },
  'src/suggest': { role: 'spelling suggestions for error messages', mayImport: [] },
  'src/ts-hook': { role: 'the TypeScript require hook and Jest transform (plain JavaScript, loaded by path)', mayImport: [] },
  'src/acl': { role: 'the koffi binding of libascendcl', mayImport: ['src/rendezvous'] },
  'src/wire': {
    role: 'what a device process and its parent share: messages, errors on the wire, JSON checks, hang-request files, mark clocks, the round barrier file, the role context type, the results of a run',
    mayImport: ['src/acl', 'src/rendezvous', 'src/trace'], // src/trace: the happens-before report's type, part of RunResult
  },
  'src/orchestrator': {
    role: 'one forked OS process per role',
    mayImport: ['src/acl', 'src/wire', 'src/rendezvous', 'src/trace', 'src/ts-hook'], // ts-hook: the device processes' cached bundle (source checkout)
  },
  'src/scenario': {
    role: 'the scenario DSL: declarations, plans, templates, running a scenario from Jest',
    mayImport: ['src/acl', 'src/orchestrator', 'src/wire', 'src/rendezvous', 'src/mutants', 'src/suggest'],
  },
  // harness/: the device side, in layers (lowest first), each importing only the layers below it.
  'harness/failure-time.ts': { role: "when this device process's role failed, and with what error", mayImport: [] },
  'harness/scenario/context': {
    role: 'the ctx a scenario body gets (main thread or worker thread), its deadline arithmetic and clean-up',
    mayImport: ['src/scenario', 'src/acl', 'src/wire', 'src/rendezvous'],
  },
  'harness/scenario/body': {
    role: "the one body runner (once is one round without a barrier) and a round's names and barrier verdicts",
    mayImport: ['harness/scenario/context', 'src/acl', 'src/rendezvous'],
  },
  'harness/scenario/threads': {
    role: "a role's worker threads: the pool, the thread task once or in rounds, the gate with the main thread",
    mayImport: [
      'harness/scenario/body',
      'harness/scenario/context',
      'harness/failure-time.ts',
      'src/scenario',
      'src/acl',
      'src/wire',
      'src/rendezvous',
      'src/ts-hook',
    ],
  },
  'harness/scenario': {
    role: "a scenario role's process entry: the role once (with its threads) or in soak rounds",
    mayImport: [
      'harness/scenario/threads',
      'harness/scenario/body',
      'harness/scenario/context',
      'harness/failure-time.ts',
      'src/scenario',
      'src/acl',
      'src/wire',
      'src/trace',
    ],
  },
  harness: {
    role: 'everything else that runs inside device processes: process entry points, the hang watch, the role context',
    mayImport: ['harness/failure-time.ts', 'src/scenario', 'src/acl', 'src/wire', 'src/rendezvous', 'src/ts-hook', 'src/trace'],
  },
  'src/audit': { role: 'the mutant audit: verdicts and table', mayImport: ['src/scenario', 'src/mutants'] },
  'src/config': { role: 'cann-harness.config.ts: defineConfig and its validation', mayImport: ['src/suggest', 'src/ts-hook'] },
  'src/report': { role: 'failure reports and the summary reporter', mayImport: ['src/orchestrator', 'src/trace'] },
  'src/jest': {
    role: 'Jest integration (setup, probe, one test per scenario)',
    mayImport: ['src/acl', 'src/orchestrator', 'src/report', 'src/scenario', 'src/mutants', 'src/config', 'src/ts-hook'], // ts-hook: Jest's cache folder, checked as the TypeScript cache is
  },
  'src/cli': {
    role: 'the cann-harness command',
    mayImport: ['src/rendezvous', 'src/trace', 'src/acl', 'src/orchestrator', 'harness', 'src/scenario', 'src/report', 'src/jest', 'src/audit', 'src/mutants', 'src/config', 'src/ts-hook'],
  },
  'src/index.ts': {
    role: 'the public API that specs import',
    mayImport: ['src/acl', 'src/jest', 'src/report', 'src/scenario', 'src/config'],
  },
  'harness/device-bundle.ts': {
    role: "the entry of the compiled package's device-process bundle: the device process with the public index, one library instance",
    mayImport: ['harness', 'harness/scenario', 'src/index.ts'],
  },
  bin: { role: 'the installed command', mayImport: ['src/cli', 'src/ts-hook'] },
  specs: { role: "user-style spec files: the public API only", mayImport: ['src/index.ts'] },
  bench: { role: 'benchmarks', mayImport: ['src/index.ts', 'src/orchestrator', 'src/rendezvous', 'src/trace', 'src/report'] },
  'jest.config.ts': { role: 'the Jest configuration (builds on the preset)', mayImport: ['src/jest'] },
  tools: { role: 'repository tooling (this check)', mayImport: [] },
  test: {
    role: 'tests (may reach anything they test)',
    mayImport: [
      'src/rendezvous',
      'src/trace',
      'src/mutants',
      'src/suggest',
      'src/audit',
      'src/config',
      'src/ts-hook',
      'src/acl',
      'src/wire',
      'src/orchestrator',
      'harness',
      'harness/failure-time.ts',
      'harness/scenario',
      'harness/scenario/context',
      'harness/scenario/body',
      'harness/scenario/threads',
      'src/scenario',
      'src/report',
      'src/jest',
      'src/cli',
      'src/index.ts',
      'bin',
      'specs',
      'tools',
    ],
  },
};

/** Packages only some parts may use (every other package: any part). */
export const RESTRICTED_PACKAGES: Readonly<Record<string, readonly string[]>> = {
  // "src/acl is the only code that knows koffi"; tests check the binding against it directly;
  // benches read glibc's malloc counters with it (bench/rounds-memory.ts), which no binding offers.
  koffi: ['src/acl', 'test', 'bench'],
  typescript: ['tools', 'test'],
  // The C formatter (WebAssembly) is development tooling: never a dependency of the product.
  '@wasm-fmt/clang-format': ['tools', 'test'],
};

/**
 * Known violations, each with the issue that will remove it. The check passes while they stay
 * as they are, fails on any new violation, and fails on an entry that no longer occurs (delete
 * it: the list only shrinks).
 *   import: "from -> to" (repo-relative files);
 *   cycle: the files of one import cycle, sorted, joined by " | ".
 */
export interface KnownViolation {
  kind: 'import' | 'cycle';
  what: string;
  issue: string;
  why: string;
}

export const KNOWN_VIOLATIONS: readonly KnownViolation[] = [];

/**
 * Load-time rules: what a process kind never loads at startup, checked over the imports that run
 * when a file is loaded (type imports and `require()` inside a function do not; ./imports.ts).
 * `entries` are the files a process kind starts from; `never` lists packages, files or folders.
 */
export interface LoadRule {
  name: string;
  entries: readonly string[];
  never: readonly string[];
  why: string;
}

export const LOAD_RULES: readonly LoadRule[] = [
  {
    name: 'importing src/acl never loads koffi',
    // src/index.ts: the public API, which Jest's process and every device process load with a spec.
    entries: ['src/acl/index.ts', 'src/index.ts'],
    never: ['koffi', 'src/acl/native.ts'],
    why: 'koffi and the native library load in loadAcl() only, so a process that never calls ACL (Jest, the CLI, the parent of the device processes) never loads them',
  },
  {
    name: 'a device process never loads the orchestrator',
    // The device process, the role entry it loads for a scenario, a role's worker threads, the
    // precheck child; and the public API, which the role's spec file loads there.
    entries: ['harness/device-process.ts', 'harness/scenario/role-entry.ts', 'harness/scenario/threads/worker.js', 'harness/precheck.ts', 'src/index.ts'],
    never: ['src/orchestrator', 'src/jest/register.ts', 'src/report', 'src/cli'],
    why: 'the orchestrator starts and watches device processes; loading it there costs start-up time and would let device code reach around its parent',
  },
];
