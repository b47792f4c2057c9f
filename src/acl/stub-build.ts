/**
 * Where the CPU stub is built, and building it for an installed package. Pure file-system and
 * child-process code: no koffi.
 *
 * A source checkout builds the stub in place (native-stub/build, `npm run build:stub`). An installed
 * package ships the stub's C sources only (npm 11+ does not run a dependency's install scripts), so
 * `cann-harness setup` (or the first run) builds them into a per-user cache keyed by the package
 * version and the platform: <cache>/stub/<version>-<platform>-<arch>/build. The cache is
 * CANN_HARNESS_CACHE_DIR, else $XDG_CACHE_HOME/cann-ipc-harness, else ~/.cache/cann-ipc-harness.
 */
import type * as ChildProcess from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ENV } from '../env';
import { IS_SOURCE_CHECKOUT, NATIVE_STUB_DIR, PACKAGE_ROOT } from '../paths';

/** node:child_process on first use: every device process imports src/acl but never spawns from it (~4 ms at load). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const childProcess = (): typeof ChildProcess => require('node:child_process');

/** The package root (src/paths; kept under this name for src/acl's public API). */
export const repoRoot: string = PACKAGE_ROOT;
export const isSourceCheckout: boolean = IS_SOURCE_CHECKOUT;

export function packageVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const wanted = env[ENV.cacheDir];
  if (wanted) return path.resolve(wanted);
  const base = env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(os.homedir(), '.cache');
  return path.join(base, 'cann-ipc-harness');
}

/** <cache>/stub/<version>-<platform>-<arch>: a copy of the stub's sources, built in place. */
export function cachedStubTree(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(userCacheDir(env), 'stub', `${packageVersion()}-${process.platform}-${process.arch}`);
}

/** The folder with lib64/libascendcl.so, lib64/libcannharness_hold.so (and _preload.so, and the C API's libcannharness.so) and bin/cannstub_reclaim. */
export function stubBuildDir(env: NodeJS.ProcessEnv = process.env): string {
  return isSourceCheckout ? path.join(NATIVE_STUB_DIR, 'build') : path.join(cachedStubTree(env), 'build');
}

export const BUILD_STUB_HINT = isSourceCheckout
  ? 'Build it with `npm run build:stub` (runs `make -C native-stub`).'
  : 'Build it with `npx cann-harness setup` (needs gcc and make; once per version).';

export class StubBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StubBuildError';
  }
}

/** The stub's sources shipped in the package, enough for `make lib hold api tools`: the stub (src/, include/) and the harness's libraries (harness/). */
const STUB_SOURCES = ['Makefile', 'include', 'src', 'harness'];
const TOOLCHAIN = ['gcc', 'make'];

function missingTools(env: NodeJS.ProcessEnv): string[] {
  return TOOLCHAIN.filter((tool) => childProcess().spawnSync(tool, ['--version'], { env, stdio: 'ignore' }).status !== 0);
}

/**
 * Builds the stub into the per-user cache (a no-op in a source checkout, where `npm run build:stub`
 * owns native-stub/build). Built in a temporary folder and renamed, so a concurrent or interrupted
 * build never leaves half a library where runs look for it. Returns the build folder.
 */
export function buildStub(opts: { env?: NodeJS.ProcessEnv; force?: boolean } = {}): string {
  const env = opts.env ?? process.env;
  if (isSourceCheckout) return stubBuildDir(env);
  const tree = cachedStubTree(env);
  buildTree({ tree, sources: STUB_SOURCES, targets: ['lib', 'hold', 'api', 'tools'], product: path.join('lib64', 'libascendcl.so'), what: 'the CPU stub', env, force: opts.force });
  return path.join(tree, 'build');
}

/** <cache>/conformance/<version>-<platform>-<arch>: the stub's sources with the C conformance suite and the samples it runs. */
export function cachedConformanceTree(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(userCacheDir(env), 'conformance', `${packageVersion()}-${process.platform}-${process.arch}`);
}

/** The C conformance runner: native-stub/build/bin/conformance in a source checkout, else in the per-user cache. */
export function conformanceRunnerPath(env: NodeJS.ProcessEnv = process.env): string {
  return isSourceCheckout
    ? path.join(NATIVE_STUB_DIR, 'build', 'bin', 'conformance')
    : path.join(cachedConformanceTree(env), 'build', 'bin', 'conformance');
}

/**
 * Builds the C conformance runner of an installed package on first use, as the stub is built (a tree
 * of its own: the suite, the samples its cases run, and the stub they link against when no other
 * library is chosen). A source checkout builds it with `npm run build:stub`. Returns the runner.
 */
export function buildConformanceRunner(opts: { env?: NodeJS.ProcessEnv; force?: boolean } = {}): string {
  const env = opts.env ?? process.env;
  const runner = conformanceRunnerPath(env);
  if (isSourceCheckout) return runner;
  buildTree({
    tree: cachedConformanceTree(env),
    sources: [...STUB_SOURCES, 'test', 'samples'],
    targets: ['lib', 'hold', 'api', 'tools', 'conformance', 'samples', 'test-programs'],
    product: path.join('bin', 'conformance'),
    what: 'the conformance runner',
    env,
    force: opts.force,
  });
  return runner;
}

interface TreeBuild {
  tree: string;
  sources: string[];
  targets: string[];
  /** A file under <tree>/build that exists once the build is done. */
  product: string;
  what: string;
  env: NodeJS.ProcessEnv;
  force?: boolean;
}

/** Copies `sources` of native-stub/ to a staging folder, runs make there, and renames it to `tree`. */
function buildTree(b: TreeBuild): void {
  if (!b.force && fs.existsSync(path.join(b.tree, 'build', b.product))) return;
  const missing = missingTools(b.env);
  if (missing.length > 0) {
    throw new StubBuildError(
      `building ${b.what} needs ${TOOLCHAIN.join(' and ')}, but ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not on PATH. ` +
        'Install them (Debian/Ubuntu: `sudo apt-get install gcc make`; RHEL/Fedora: `sudo dnf install gcc make`) and run `npx cann-harness setup` again, ' +
        'or use real CANN (`source <CANN install>/set_env.sh`).',
    );
  }
  fs.mkdirSync(path.dirname(b.tree), { recursive: true });
  const staging = fs.mkdtempSync(`${b.tree}.building-`);
  try {
    for (const entry of b.sources) fs.cpSync(path.join(NATIVE_STUB_DIR, entry), path.join(staging, entry), { recursive: true });
    const make = childProcess().spawnSync('make', ['-s', '-C', staging, `-j${Math.max(1, os.availableParallelism())}`, ...b.targets], { env: b.env, encoding: 'utf8' });
    if (make.status !== 0) {
      throw new StubBuildError(`building ${b.what} in ${staging} failed (${make.error ? `make did not start: ${make.error.message}` : `make exited ${make.status ?? make.signal}`}):\n${`${make.stdout}${make.stderr}`.trim()}`);
    }
    fs.rmSync(b.tree, { recursive: true, force: true });
    fs.renameSync(staging, b.tree);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
