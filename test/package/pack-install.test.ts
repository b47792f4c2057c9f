/**
 * The package as a user gets it: `npm pack` of the repository's compiled dist/ (built by `npm ci`'s
 * `prepare`; packed with --ignore-scripts so that this test neither compiles it again nor replaces
 * the dist/ other package tests are reading; test/support/fresh-dist.ts refuses a stale one),
 * install the tarball into an empty project, write one spec, run `jest` with the
 * preset and `npx cann-harness run`. Offline: the tarball's dependencies come from a copy of this
 * repository's node_modules (`cp -a`: a tenth of the CPU of fs.cpSync over its 10,000 files),
 * declared in the project's lockfile, so npm needs no registry.
 * (--legacy-peer-deps: npm checks a peer range against the registry's packument even when the
 * installed jest satisfies it, and offline there is none.)
 * One tarball and one installed project for every test here; `npx` once, for cann-harness (the bin
 * this package declares), the other commands (jest's too) through node_modules/.bin directly (npx
 * adds an npm start-up, about 1.5 s of CPU, and nothing else to check).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { assertFreshDist } from '../support/fresh-dist';
import { brokenLinks, markdownLinks } from '../support/markdown-links';
import { runCommand } from '../support/run-child';

const repoRoot = path.resolve(__dirname, '..', '..');
const repoPackage = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };

// The install copies node_modules, the first run builds the stub: tens of seconds on 2 busy cores.
jest.setTimeout(240_000);

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

let work: string;
let project: string;
let cacheDir: string;
/** The files in the tarball, as `npm pack --json` lists them. */
let packed: string[];

/**
 * What a user needs: compiled code and declarations, the command, the preset, the stub's sources, the
 * documentation, and the C conformance suite with the samples its cases run (`cann-harness conformance`
 * builds them).
 */
const SHIPPED = [
  /^dist\/(src|harness)\/.*\.(js|d\.ts)$/,
  /^bin\/cann-harness\.js$/,
  /^jest-preset\.js$/,
  /^native-stub\/(Makefile|include\/.*\.h|src\/.*\.[ch]|harness\/(hold|preload|api)\/[a-z_]+\.[ch]|harness\/include\/[a-z_]+\.h)$/,
  /^(README\.md|package\.json|LICENSE|CHANGELOG\.md|CONTRIBUTING\.md)$/,
  /^docs\/.*\.md$/,
  /^docs\/[^/]+\.png$/,
  /^(src\/[^/]+|native-stub|bench)\/README\.md$/,
  /^native-stub\/test\/((programs\/)?[a-z_]+\.[ch]|test\.mk|README\.md)$/,
  /^native-stub\/samples\/[a-z0-9_]+\/([a-z_]+\.[ch]|run\.sh)$/,
];

/**
 * The stub the first run builds from the shipped sources, without the optimizer (make reads
 * variables from MAKEFLAGS as from its command line): what this file proves is that the shipped
 * files suffice and the build into the cache works; the same Makefile, flags and sources at -O2
 * -g are the repository's own `npm run build:stub`, which `npm ci` runs. -O0: ~40 % less CPU.
 */
const UNOPTIMIZED_STUB = { MAKEFLAGS: 'CFLAGS_FLAVOR=-O0' };

/** Runs a command in the user project, its stub cache in the temp dir, with none of the outer run's settings. */
function run(cmd: string, args: string[], cwd = project, env: Record<string, string> = {}): Promise<Ran> {
  return runCommand(cmd, args, { cwd, env: { CANN_HARNESS_CACHE_DIR: cacheDir, ...UNOPTIMIZED_STUB, ...env }, dropEnv: ['CANN_HARNESS_MODE'] });
}

/** A command npm linked into the project's node_modules/.bin. */
const bin = (name: string): string => path.join(project, 'node_modules', '.bin', name);

function expectOk(r: Ran, what: string): void {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
}

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'cann-harness-pack-'));
  project = path.join(work, 'user-project');
  cacheDir = path.join(work, 'cache');
  mkdirSync(project);

  assertFreshDist();
  const pack = await run('npm', ['pack', '--silent', '--json', '--ignore-scripts', '--pack-destination', work], repoRoot);
  expectOk(pack, 'npm pack');
  packed = (JSON.parse(pack.stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack left no tarball in ${work}`);

  // An empty project with what a TypeScript Jest project has, resolvable offline from this repository's tree.
  const devDependencies = Object.fromEntries(['jest', 'typescript', '@types/jest', '@types/node'].map((d) => [d, repoPackage.devDependencies[d]]));
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, devDependencies }, null, 2));
  const lock = JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8'));
  lock.name = 'user-project';
  lock.packages[''] = { name: 'user-project', devDependencies };
  writeFileSync(path.join(project, 'package-lock.json'), JSON.stringify(lock, null, 2));
  // Symbolic links copied as they are (the .bin entries); not the caches or npm's record of the tree.
  execFileSync('cp', ['-a', path.join(repoRoot, 'node_modules'), path.join(project, 'node_modules')]);
  for (const f of ['.cache', '.package-lock.json']) rmSync(path.join(project, 'node_modules', f), { recursive: true, force: true });
  expectOk(
    await run('npm', ['install', '--offline', '--legacy-peer-deps', '--no-audit', '--no-fund', path.join(work, tarball)]),
    'npm install <tarball>',
  );

  writeFileSync(path.join(project, 'jest.config.js'), "module.exports = { preset: 'cann-ipc-harness' };\n");
  writeFileSync(
    path.join(project, 'cann-harness.config.ts'),
    "import { defineConfig } from 'cann-ipc-harness';\n\nexport default defineConfig({ specs: 'specs', reporters: { junit: 'out/junit.xml' } });\n",
  );
  mkdirSync(path.join(project, 'specs'));
  writeFileSync(
    path.join(project, 'specs', 'fan-out.spec.ts'),
    [
      "import { oneToMany, scenario, type ScenarioResult } from 'cann-ipc-harness';",
      '',
      "scenario('fan-out from an installed package', oneToMany({ consumers: 2 }));",
      "export const roleNames = (r: ScenarioResult): string[] => r.roles.map((role) => role.name);",
      '',
    ].join('\n'),
  );
  // The device-process probe of test/package/device-bundle.test.ts, importing the package as users do.
  const fixtures = path.join(__dirname, 'fixtures');
  const probeSpec = readFileSync(path.join(fixtures, 'one-instance.spec.ts'), 'utf8');
  const asUserImport = probeSpec.replace(/^const \{ (.+) \} = require\('cann-ipc-harness'\) as typeof import\('.*'\);$/m, "import { $1 } from 'cann-ipc-harness';");
  if (asUserImport === probeSpec) throw new Error('one-instance.spec.ts: its require of cann-ipc-harness changed; update this rewrite');
  writeFileSync(path.join(project, 'specs', 'one-instance.spec.ts'), asUserImport);
  cpSync(path.join(fixtures, 'one-instance-check.ts'), path.join(project, 'specs', 'one-instance-check.ts'));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('npm pack lists only what users need: no tests, specs, benches, source maps or build output', () => {
  expect(packed).toContain('dist/src/index.d.ts');
  expect(packed).toContain('native-stub/src/stream.c');
  expect(packed).toContain('LICENSE'); // the terms that "license" names travel with the code
  expect(packed).toContain('native-stub/harness/hold/watch.h'); // watch.c and preload.c include it: the install's build needs it
  expect(packed).toContain('native-stub/harness/preload/preload.c');
  expect(packed).toContain('native-stub/harness/api/api.h'); // the C API's sources include it
  expect(packed).toContain('native-stub/harness/include/cannharness.h');
  expect(packed.filter((f) => !SHIPPED.some((re) => re.test(f)))).toEqual([]);
});

test("every relative link of the shipped Markdown files (the README first) resolves to a file of the tarball, as npm's page and an installed copy show them", () => {
  const installed = path.join(project, 'node_modules', 'cann-ipc-harness');
  const read = (f: string): string => readFileSync(path.join(installed, f), 'utf8');
  const markdown = packed.filter((f) => f.endsWith('.md'));
  expect(markdown).toEqual(expect.arrayContaining(['README.md', 'docs/guide/writing-scenarios.md', 'docs/reference/environment.md', 'docs/acl-contract.md']));
  expect(markdownLinks('README.md', read('README.md')).length).toBeGreaterThan(20);
  expect(brokenLinks(markdown, new Set(packed), read)).toEqual([]);
});

test('the tarball ships compiled JavaScript, declarations, the preset and the stub sources, not our tests', () => {
  const pkg = path.join(project, 'node_modules', 'cann-ipc-harness');
  for (const f of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/harness/device-process.bundle.js', 'jest-preset.js', 'bin/cann-harness.js', 'native-stub/Makefile', 'native-stub/src/stream.c']) {
    expect(existsSync(path.join(pkg, f))).toBe(true);
  }
  for (const f of ['src/index.ts', 'test', 'specs', 'bench/run.ts', 'native-stub/bench', 'native-stub/build', 'tsconfig.json']) {
    expect(existsSync(path.join(pkg, f))).toBe(false);
  }
});

test('jest with the preset and a config file runs TypeScript specs importing cann-ipc-harness (the first run builds the stub); device processes run the bundle, one library instance', async () => {
  const r = await run(bin('jest'), ['--verbose']); // two spec files: Jest lists tests only when verbose
  expectOk(r, 'jest');
  expect(r.stderr).toContain(`building the CPU stub once for this version into ${path.join(cacheDir, 'stub', `${repoPackage.version}-${process.platform}-${process.arch}`, 'build')}`);
  expect(r.stderr).toMatch(/✓ fan-out from an installed package/);
  expect(r.stderr).toMatch(/✓ one library instance in the device process/); // its verify: the bundle, one instance, no crypto
  expect(r.stderr).toMatch(/Tests:\s+2 passed, 2 total/);
  // The preset read cann-harness.config.ts (loaded through the same TypeScript hook).
  expect(readFileSync(path.join(project, 'out', 'junit.xml'), 'utf8')).toContain('fan-out from an installed package');
});

test('the spec type-checks against the shipped declarations (package exports); a wrong declaration does not', async () => {
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      // lib without the DOM (the default for a target): a Node project's, and tsc alone takes ~3.8 -> 3.0 s of CPU.
      compilerOptions: { module: 'node16', moduleResolution: 'node16', target: 'ES2022', lib: ['ES2022'], strict: true, noEmit: true, skipLibCheck: true, types: ['node', 'jest'] },
      include: ['specs', 'typecheck', 'cann-harness.config.ts'],
    }),
  );
  mkdirSync(path.join(project, 'typecheck'));
  writeFileSync(path.join(project, 'typecheck', 'wrong.ts'), "import { scenario } from 'cann-ipc-harness';\nscenario('x', { roles: 3 });\n");
  try {
    const r = await run(bin('tsc'), ['-p', '.']);
    expect(r.code).not.toBe(0);
    // One run checks both: the spec compiles, and the declarations are real (not `any`).
    const errorFiles = [...new Set([...r.stdout.matchAll(/^(\S+)\(\d+,\d+\): error/gm)].map((m) => m[1]))];
    expect(errorFiles).toEqual(['typecheck/wrong.ts']);
  } finally {
    rmSync(path.join(project, 'typecheck'), { recursive: true, force: true });
  }
});

test('npx cann-harness: --version, setup, doctor (where the stub is) and run on ./specs', async () => {
  const version = await run('npx', ['cann-harness', '--version']);
  expectOk(version, 'cann-harness --version');
  expect(version.stdout.trim()).toBe(repoPackage.version);

  // The same bin, without npx.
  const setup = await run(bin('cann-harness'), ['setup']);
  expectOk(setup, 'cann-harness setup');
  expect(setup.stdout).toContain(`ready: ${path.join(cacheDir, 'stub')}`);

  const doctor = await run(bin('cann-harness'), ['doctor', '--mode', 'stub']);
  expectOk(doctor, 'cann-harness doctor');
  expect(doctor.stdout).toMatch(new RegExp(`stub build\\s+${cacheDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/stub/\\S+/build \\(built; rebuild: npx cann-harness setup --force\\)`));
  expect(doctor.stdout).toMatch(/stub\s+\d+\.\d+\.\d+/);

  const cli = await run(bin('cann-harness'), ['run', '--mode', 'stub']);
  expectOk(cli, 'cann-harness run');
  expect(cli.stdout).toContain('✓ specs/fan-out.spec.ts › fan-out from an installed package');
});

test('npx cann-harness conformance builds its runner on first use and checks the stub: PASS per case, stub-only cases run, exit 0', async () => {
  const r = await run(bin('cann-harness'), ['conformance', '--mode', 'stub', '--jobs', '2', 'device_bad_ids_return_107001,headers_runtime_codes']);
  expectOk(r, 'cann-harness conformance');
  const runner = path.join(cacheDir, 'conformance', `${repoPackage.version}-${process.platform}-${process.arch}`, 'build', 'bin', 'conformance');
  expect(r.stdout).toContain(`building the conformance runner once for this version (${runner})`);
  const stub = path.join(cacheDir, 'stub', `${repoPackage.version}-${process.platform}-${process.arch}`, 'build', 'lib64', 'libascendcl.so');
  expect(r.stdout).toContain(`conformance: library ${stub} (the stub: it exports cannstub_live_view; every case runs)`);
  expect(r.stdout).toMatch(/^PASS device_bad_ids_return_107001 /m);
  expect(r.stdout).toMatch(/^PASS headers_runtime_codes_are_macros /m);
  expect(r.stdout).toContain(`cann-harness ${repoPackage.version} conformance: ${stub} (the stub): 2 passed, 0 failed, 0 left out`);
});

test('setup without a compiler fails with one clear error naming the fix (exit 2)', async () => {
  // A PATH with node only: no gcc, no make.
  const nodeOnly = path.join(work, 'node-only-bin');
  mkdirSync(nodeOnly, { recursive: true });
  symlinkSync(process.execPath, path.join(nodeOnly, 'node'));
  const bin = path.join(project, 'node_modules', 'cann-ipc-harness', 'bin', 'cann-harness.js');
  expectOk(await run(process.execPath, [bin, 'setup']), 'cann-harness setup'); // built (a no-op if it is already)
  const r = await run(process.execPath, [bin, 'setup', '--force'], project, { PATH: nodeOnly });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('building the CPU stub needs gcc and make, but gcc and make are not on PATH');
  expect(r.stderr).toContain('sudo apt-get install gcc make');
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  // The stub built earlier is still there: a failed rebuild never removes a working one.
  expect(existsSync(path.join(cacheDir, 'stub', `${repoPackage.version}-${process.platform}-${process.arch}`, 'build', 'lib64', 'libascendcl.so'))).toBe(true);
});

test("an installed project's Jest config can name the HTML reporter as 'cann-ipc-harness/html': reports/html/index.html and a page per scenario", async () => {
  const r = await run(bin('jest'), ['fan-out', '--reporters', 'default', '--reporters', 'cann-ipc-harness/html']); // the pattern first: --reporters takes every value after it
  expectOk(r, 'jest --reporters cann-ipc-harness/html');
  expect(r.stdout).toContain(`HTML report: ${path.join('reports', 'html', 'index.html')}`);
  const index = readFileSync(path.join(project, 'reports', 'html', 'index.html'), 'utf8');
  expect(index).toContain('fan-out from an installed package');
  const page = readFileSync(path.join(project, 'reports', 'html', 'scenarios', '0.html'), 'utf8');
  expect(page).toMatch(/data-role="consumer-1"/);
});
