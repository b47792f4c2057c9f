/**
 * The compiled package's device process is one bundled file (dist/harness/device-process.bundle.js,
 * `npm run build:js`): a spec scenario run through dist/ runs the bundle, with one library instance
 * (the spec's `require('cann-ipc-harness')` gets the bundle's exports), nothing of dist/src loaded
 * again and no node:crypto; also when the package is installed as a symlink. Uses the repository's
 * dist/ (built by `npm ci`; rebuild it after changing src/ or harness/, or the tests stop and say so).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTsChild } from '../support/run-child';
import { assertFreshDist } from '../support/fresh-dist';
import { expectOneLibraryInstance, type LoadProbe } from './fixtures/one-instance-check';

jest.setTimeout(60_000);

const repoRoot = path.resolve(__dirname, '..', '..');
const dist = path.join(repoRoot, 'dist');
const fixtures = path.join(__dirname, 'fixtures');
const driver = path.join(fixtures, 'run-compiled.ts');

beforeAll(assertFreshDist);

async function runOnce(packageDist: string, specFile: string, env?: NodeJS.ProcessEnv): Promise<LoadProbe> {
  const r = await runTsChild(driver, [packageDist, specFile], { env });
  const out = r.json as { ok: boolean; summary: string; values: unknown[] } | undefined;
  if (r.code !== 0 || !out?.ok) throw new Error(`the scenario failed (exit ${r.code}):\n${out?.summary ?? ''}\n${r.stderr}`);
  return out.values[0] as LoadProbe;
}

/**
 * What the device process loaded. The driver collects the spec first, through the same cached
 * TypeScript transform (as a Jest worker does), so the device process finds the spec and its imports
 * in the cache: a miss would load esbuild, and esbuild loads node:crypto (the probe fails then).
 */
const probeThroughCompiledPackage = runOnce;

test('a device process of the compiled package runs the bundle: one library instance, no dist/src module, no crypto', async () => {
  const probe = await probeThroughCompiledPackage(dist, path.join(fixtures, 'one-instance.spec.ts'));
  expectOneLibraryInstance(probe, realpathSync(dist));
});

test('a role with worker threads runs from the bundle (the threads load the compiled thread entry)', async () => {
  await runOnce(dist, path.join(fixtures, 'threads.spec.ts'));
});

test('a deadlock through the bundle: the wait-for graph comes from the native watchdog and the stub live view', async () => {
  const r = await runTsChild(driver, [dist, path.join(fixtures, 'hang.spec.ts')], { env: { CANN_HARNESS_KEEP: '0' } });
  const out = r.json as { ok: boolean; timedOut: boolean; dir: string; summary: string; waitGraph?: { deadlock: boolean; sources: Record<string, string>; chains: string[] } };
  expect(out).toMatchObject({ ok: false, timedOut: true });
  expect(existsSync(out.dir)).toBe(false); // CANN_HARNESS_KEEP=0: removed even though it failed
  // The consumer is blocked inside aclrtSynchronizeStream: its answer can only come from the watchdog thread.
  expect(out.waitGraph).toMatchObject({ deadlock: true, sources: { consumer: 'live' } });
  expect(out.waitGraph!.chains).toEqual([
    expect.stringMatching(/consumer \(aclrtSynchronizeStream stream=0x[0-9a-f]+, for [\d.]+ m?s\) ← waits IPC event "ev" .* recorded by producer stream \d+ ← queued behind a latch \(host function on stream \d+\) held by producer/),
  ]);
});

test('a compiled package without the bundle (tsc alone) fails with one clear error naming the fix', async () => {
  // A copy of the package: package.json, node_modules (linked) and dist/ without the bundle.
  const pkg = mkdtempSync(path.join(os.tmpdir(), 'cann-harness-nobundle-'));
  try {
    cpSync(path.join(repoRoot, 'package.json'), path.join(pkg, 'package.json'));
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(pkg, 'node_modules'), 'dir');
    cpSync(dist, path.join(pkg, 'dist'), { recursive: true, filter: (f) => !f.endsWith('.map') });
    const runRolesIn = (d: string) => runTsChild(path.join(fixtures, 'run-roles-compiled.ts'), [d], { env: { CANN_HARNESS_TS_CACHE: path.join(pkg, 'ts-cache') } });
    expect((await runRolesIn(path.join(pkg, 'dist'))).json).toMatchObject({ ok: true }); // the copy works with its bundle

    const bundle = path.join(pkg, 'dist', 'harness', 'device-process.bundle.js');
    rmSync(bundle);
    expect((await runRolesIn(path.join(pkg, 'dist'))).json).toEqual({
      error: `${bundle} is missing, so no device process can start: rebuild the package with \`npm run build:js\` (tsc, then the device-process bundle)`,
    });
  } finally {
    rmSync(pkg, { recursive: true, force: true });
  }
});

test('the same with the package installed as a symlink (npm link, workspaces)', async () => {
  const project = mkdtempSync(path.join(os.tmpdir(), 'cann-harness-linked-'));
  try {
    mkdirSync(path.join(project, 'node_modules'));
    symlinkSync(repoRoot, path.join(project, 'node_modules', 'cann-ipc-harness'), 'dir');
    mkdirSync(path.join(project, 'specs'));
    for (const f of ['one-instance.spec.ts', 'one-instance-check.ts']) cpSync(path.join(fixtures, f), path.join(project, 'specs', f));
    const linkedDist = path.join(project, 'node_modules', 'cann-ipc-harness', 'dist');
    // (its own TypeScript cache: entries for a temporary spec path would pile up in the shared one)
    const probe = await probeThroughCompiledPackage(linkedDist, path.join(project, 'specs', 'one-instance.spec.ts'), { CANN_HARNESS_TS_CACHE: path.join(project, 'ts-cache') });
    expectOneLibraryInstance(probe, realpathSync(dist));
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});
