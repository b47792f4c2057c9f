/**
 * Where is libascendcl.so? Pure file-system logic (no koffi, no dlopen), so the orchestrator and
 * Jest may call it to report the mode before any device process starts.
 *
 *   stub: <repo>/native-stub/build/lib64/libascendcl.so (built by `npm run build:stub`)
 *   real: where CANN's set_env.sh points (ASCEND_HOME_PATH, ASCEND_TOOLKIT_HOME, ASCEND_INSTALL_PATH,
 *         each with lib64, runtime/lib64, <arch>-linux/lib64, lib), then LD_LIBRARY_PATH, then what
 *         the system loader would find (ld.so.cache, the default library folders, the default CANN
 *         install under /usr/local/Ascend).
 *   auto: real when found, else the stub; `reason` says which and why in one line.
 * CANN_HARNESS_LIBRARY=/path/libascendcl.so overrides the search in every mode.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BUILD_STUB_HINT, stubBuildDir } from './stub-build';
import { ENV, modeFromEnv, type Mode, type ResolvedMode } from '../env';

export { parseMode } from '../env';

export interface LibraryChoice {
  mode: ResolvedMode;
  requested: Mode;
  path: string;
  /** One line: which library and why. */
  reason: string;
  /** Every path looked at, in order. */
  tried: string[];
}

export interface ResolveOptions {
  mode?: Mode;
  env?: NodeJS.ProcessEnv;
  /** Where the stub lives (tests point this at a missing file). Default: the repo's build. */
  stubPath?: string;
  /** Also search the system loader's locations (default true; tests turn it off for determinism). */
  searchSystem?: boolean;
}

export const LIBRARY_FILE = 'libascendcl.so';
export const HOLD_LIBRARY_FILE = 'libcannharness_hold.so';
const CANN_ROOT_VARS = ['ASCEND_HOME_PATH', 'ASCEND_TOOLKIT_HOME', 'ASCEND_INSTALL_PATH'] as const;
const DEFAULT_CANN_ROOT = '/usr/local/Ascend/ascend-toolkit/latest';

export class LibraryNotFoundError extends Error {
  constructor(
    message: string,
    readonly requested: Mode,
    readonly tried: string[],
  ) {
    super(message);
    this.name = 'LibraryNotFoundError';
  }
}

export { repoRoot } from './stub-build';

/** The stub as built here: native-stub/build in a source checkout, the per-user cache when installed. */
export const defaultStubPath = path.join(stubBuildDir(), 'lib64', LIBRARY_FILE);
const PRELOAD_LIBRARY_FILE = 'libcannharness_preload.so';
export const defaultHoldLibraryPath = path.join(stubBuildDir(), 'lib64', HOLD_LIBRARY_FILE);

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function archTriple(): string {
  return process.arch === 'arm64' ? 'aarch64' : process.arch === 'x64' ? 'x86_64' : process.arch;
}

/** The library folders of one CANN root, in the order set_env.sh-based installs use them. */
function cannRootDirs(root: string): string[] {
  const arch = archTriple();
  const dirs = [
    path.join(root, 'lib64'),
    path.join(root, 'runtime', 'lib64'),
    path.join(root, `${arch}-linux`, 'lib64'),
    path.join(root, 'lib'),
  ];
  // ASCEND_INSTALL_PATH is often the install root (/usr/local/Ascend) rather than the toolkit.
  const toolkit = path.join(root, 'ascend-toolkit', 'latest');
  if (fs.existsSync(toolkit)) dirs.push(...cannRootDirs(toolkit));
  return dirs;
}

/** Full paths of libascendcl.so listed in the dynamic loader cache (what dlopen("libascendcl.so") finds). */
function ldCacheEntries(cacheFile = '/etc/ld.so.cache'): string[] {
  let text: string;
  try {
    text = fs.readFileSync(cacheFile).toString('latin1');
  } catch {
    return [];
  }
  const found = new Set<string>();
  for (const m of text.matchAll(/\/[^\0]*\/libascendcl\.so(?=\0)/g)) found.add(m[0]);
  return [...found];
}

function systemDirs(): string[] {
  const multiarch = `${archTriple()}-linux-gnu`;
  return ['/lib64', '/usr/lib64', `/lib/${multiarch}`, `/usr/lib/${multiarch}`, '/lib', '/usr/lib', '/usr/local/lib64', '/usr/local/lib'];
}

interface Candidate {
  path: string;
  from: string;
}

function realCandidates(env: NodeJS.ProcessEnv, searchSystem: boolean): Candidate[] {
  const out: Candidate[] = [];
  for (const v of CANN_ROOT_VARS) {
    const root = env[v];
    if (root) for (const d of cannRootDirs(root)) out.push({ path: path.join(d, LIBRARY_FILE), from: v });
  }
  for (const d of (env.LD_LIBRARY_PATH ?? '').split(':')) {
    if (d) out.push({ path: path.join(path.resolve(d), LIBRARY_FILE), from: 'LD_LIBRARY_PATH' });
  }
  if (searchSystem) {
    for (const p of ldCacheEntries()) out.push({ path: p, from: 'ld.so.cache' });
    for (const d of systemDirs()) out.push({ path: path.join(d, LIBRARY_FILE), from: 'system library folder' });
    for (const d of cannRootDirs(DEFAULT_CANN_ROOT)) out.push({ path: path.join(d, LIBRARY_FILE), from: 'default CANN install' });
  }
  const seen = new Set<string>();
  return out.filter((c) => (seen.has(c.path) ? false : (seen.add(c.path), true)));
}

function cannEnvSummary(env: NodeJS.ProcessEnv): string {
  return CANN_ROOT_VARS.map((v) => `${v}=${env[v] ? env[v] : '(unset)'}`).join(', ');
}

const SET_ENV_HINT =
  'Set up the CANN environment first: `source <CANN install>/set_env.sh` ' +
  '(typically `source /usr/local/Ascend/ascend-toolkit/set_env.sh`), or point CANN_HARNESS_LIBRARY at libascendcl.so.';

export function resolveLibrary(opts: ResolveOptions = {}): LibraryChoice {
  const env = opts.env ?? process.env;
  const requested = opts.mode ?? modeFromEnv(env);
  if (requested !== 'auto' && requested !== 'stub' && requested !== 'real') {
    throw new Error(`mode must be one of auto, stub, real; got "${String(requested)}"`);
  }
  const stubPath = opts.stubPath ?? defaultStubPath;

  const override = env[ENV.library];
  if (override) {
    const file = path.resolve(override);
    if (!isFile(file)) {
      throw new LibraryNotFoundError(
        `CANN_HARNESS_LIBRARY=${override} does not exist (or is not a file). Fix the path, or unset it to let ` +
          `mode "${requested}" search for the library.` +
          (file === path.resolve(stubPath) ? ` ${BUILD_STUB_HINT}` : ''),
        requested,
        [file],
      );
    }
    const mode = requested === 'auto' ? (samePath(file, stubPath) ? 'stub' : 'real') : requested;
    return { mode, requested, path: file, tried: [file], reason: `${mode}: ${file} (from CANN_HARNESS_LIBRARY)` };
  }

  const tried: string[] = [];
  if (requested === 'real' || requested === 'auto') {
    for (const c of realCandidates(env, opts.searchSystem ?? true)) {
      tried.push(c.path);
      if (isFile(c.path)) {
        const why = requested === 'auto' ? 'auto: found real CANN runtime' : 'real';
        return { mode: 'real', requested, path: c.path, tried, reason: `${why}: ${c.path} (via ${c.from})` };
      }
    }
    if (requested === 'real') {
      throw new LibraryNotFoundError(
        `mode "real" requested but ${LIBRARY_FILE} was not found (${cannEnvSummary(env)}). Tried ${tried.length} paths:\n` +
          tried.map((p) => `  ${p}`).join('\n') +
          `\n${SET_ENV_HINT} To run on the CPU stub instead use CANN_HARNESS_MODE=stub (or auto).`,
        requested,
        tried,
      );
    }
  }

  tried.push(stubPath);
  if (!isFile(stubPath)) {
    const realPart =
      requested === 'auto'
        ? ` No real CANN runtime either (${cannEnvSummary(env)}); tried:\n` +
          tried.slice(0, -1).map((p) => `  ${p}`).join('\n') +
          `\n${SET_ENV_HINT}`
        : '';
    throw new LibraryNotFoundError(
      `the stub library ${stubPath} does not exist. ${BUILD_STUB_HINT}${realPart}`,
      requested,
      tried,
    );
  }
  const reason =
    requested === 'auto'
      ? `auto: using the stub ${stubPath} because no real ${LIBRARY_FILE} was found in ${tried.length - 1} places (${cannEnvSummary(env)})`
      : `stub: ${stubPath}`;
  return { mode: 'stub', requested, path: stubPath, tried, reason };
}

function samePath(a: string, b: string): boolean {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return path.resolve(a) === path.resolve(b);
  }
}

/** The host-function helper library, built beside the stub; it does not link libascendcl. */
export function resolveHoldLibrary(env: NodeJS.ProcessEnv = process.env): string {
  const override = env[ENV.holdLibrary];
  const file = override ? path.resolve(override) : defaultHoldLibraryPath;
  if (!isFile(file)) {
    throw new LibraryNotFoundError(
      `the harness's native helper library ${file} does not exist; every device process's watchdog thread, ` +
        `stream.hold() and stream.latch() need it (in stub and real mode alike). ${BUILD_STUB_HINT}`,
      'stub',
      [file],
    );
  }
  return file;
}

/**
 * The library preloaded into native roles (native-stub/harness/preload/preload.c): it starts their watchdog
 * and records their blocking ACL calls for the hang report. It is built next to the helper library
 * above and loads it from there, so it is looked for in that library's folder.
 */
export function resolvePreloadLibrary(env: NodeJS.ProcessEnv = process.env): string {
  const hold = resolveHoldLibrary(env);
  const file = path.join(path.dirname(hold), PRELOAD_LIBRARY_FILE);
  if (!isFile(file)) {
    throw new LibraryNotFoundError(
      `${file} does not exist: native roles need it next to ${hold} (it starts their watchdog and shows their ACL calls ` +
        `in hang reports). ${BUILD_STUB_HINT}`,
      'stub',
      [file],
    );
  }
  return file;
}
