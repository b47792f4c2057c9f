/**
 * Jest's cache folder (issue 36, item 1): Jest runs the transforms it finds in its cacheDirectory,
 * and its default, $TMPDIR/jest_<uid>, is used whoever made it. `cann-harness run` and the preset give
 * Jest a folder of ours instead (the TypeScript cache's jest/, CANN_HARNESS_TS_CACHE), made 0700
 * exclusively, and refuse one that anyone else could have written to. The stranger is a uid that
 * is not ours (files chowned to it as root, removed after).
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runCommand } from '../support/run-child';

jest.setTimeout(90_000);

const repoRoot = path.resolve(__dirname, '..', '..');
const bin = path.join(repoRoot, 'bin', 'cann-harness.js');
const transform = path.join(repoRoot, 'src', 'ts-hook', 'typescript-transform.js');
const asRoot = process.getuid?.() === 0;
/** A uid no account here has (chown works for root without one). */
const STRANGER = 61_234;
const uid = process.getuid?.() ?? 0;

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'cann-jest-cache-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

/** jestCacheDir() in a fresh Node (the module keeps its answer): { dir } or { error }. */
function jestCacheDirIn(env: Record<string, string>): { dir?: string; error?: string } {
  const code =
    `try { console.log(JSON.stringify({ dir: require(${JSON.stringify(transform)}).jestCacheDir() })) } ` +
    'catch (e) { console.log(JSON.stringify({ error: e.message })) }';
  const r = spawnSync(process.execPath, ['-e', code], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return JSON.parse(r.stdout) as { dir?: string; error?: string };
}

describe('jestCacheDir: a private folder of ours, or a clear refusal', () => {
  test('made 0700 as the TypeScript cache jest/ folder', () => {
    const cache = path.join(tmp, 'ts');
    expect(jestCacheDirIn({ CANN_HARNESS_TS_CACHE: cache })).toEqual({ dir: path.join(cache, 'jest') });
    expect(statSync(path.join(cache, 'jest')).mode & 0o777).toBe(0o700);
  });

  (asRoot ? test : test.skip)('one that belongs to another user is refused, named, with the fix', () => {
    const cache = path.join(tmp, 'ts');
    mkdirSync(path.join(cache, 'jest'), { recursive: true, mode: 0o700 });
    chownSync(path.join(cache, 'jest'), STRANGER, STRANGER);
    const r = jestCacheDirIn({ CANN_HARNESS_TS_CACHE: cache });
    expect(r.error).toBe(
      `cann-harness: refusing Jest's cache directory ${path.join(cache, 'jest')}: it belongs to uid ${STRANGER}, ` +
        `not to this user (uid ${uid}), and Jest runs the code it caches there in every test process. ` +
        `Fix: remove it (rm -r ${path.join(cache, 'jest')}) if it is not needed, ` +
        `or set CANN_HARNESS_TS_CACHE to a private directory (Jest's cache is its jest/ folder).`,
    );
  });

  test('one that group or others can write to, a link (even to a private folder of ours) and a file are refused', () => {
    const cache = path.join(tmp, 'ts');
    mkdirSync(path.join(cache, 'jest'), { recursive: true, mode: 0o700 });
    chmodSync(path.join(cache, 'jest'), 0o770);
    expect(jestCacheDirIn({ CANN_HARNESS_TS_CACHE: cache }).error).toMatch(
      /jest: its mode 0770 lets group or others write to it, and Jest runs/,
    );
    rmSync(path.join(cache, 'jest'), { recursive: true });
    mkdirSync(path.join(tmp, 'mine'), { mode: 0o700 });
    symlinkSync(path.join(tmp, 'mine'), path.join(cache, 'jest'));
    expect(jestCacheDirIn({ CANN_HARNESS_TS_CACHE: cache }).error).toMatch(/jest: it is a symbolic link, and Jest runs/);
    rmSync(path.join(cache, 'jest'));
    writeFileSync(path.join(cache, 'jest'), '');
    expect(jestCacheDirIn({ CANN_HARNESS_TS_CACHE: cache }).error).toMatch(/jest: it is not a directory, and Jest runs/);
  });

  (asRoot ? test : test.skip)(
    'without a TypeScript cache (read-only tree) it is $TMPDIR/cann-harness-jest-<uid>, refused when a stranger made it',
    () => {
      writeFileSync(path.join(tmp, 'file'), ''); // a TypeScript cache under a file cannot be made
      const env = { CANN_HARNESS_TS_CACHE: path.join(tmp, 'file', 'ts'), TMPDIR: tmp };
      const fallback = path.join(tmp, `cann-harness-jest-${uid}`);
      expect(jestCacheDirIn(env)).toEqual({ dir: fallback });
      chownSync(fallback, STRANGER, STRANGER);
      expect(jestCacheDirIn(env).error).toMatch(
        new RegExp(`^cann-harness: refusing Jest's cache directory ${fallback}: it belongs to uid ${STRANGER}`),
      );
    },
  );
});

describe('cann-harness run and the preset', () => {
  (asRoot ? test : test.skip)("never use Jest's default $TMPDIR/jest_<uid>, made first by another user", async () => {
    // What a stranger does: makes the folder Jest will use, open to all. Jest used it (and ran the
    // transforms found there) on the old code: its haste map and transform cache were written into it.
    const planted = path.join(tmp, `jest_${uid.toString(36)}`);
    mkdirSync(planted, { mode: 0o777 });
    chmodSync(planted, 0o777);
    chownSync(planted, STRANGER, STRANGER);
    const cache = path.join(repoRoot, 'node_modules', '.cache', 'cann-harness-ts'); // the checkout's (warm: nothing compiled again)
    const env = { TMPDIR: tmp };
    const r = await runCommand(
      process.execPath,
      [
        bin, 'run', '--mode', 'stub', '--specs', path.join(__dirname, 'fixtures', 'cli'),
        '-t', 'quick', '--junit', path.join(tmp, 'junit.xml'),
      ],
      { cwd: repoRoot, env },
    );
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.not.stringContaining('error') });
    expect(readdirSync(planted)).toEqual([]);
    expect(readdirSync(path.join(cache, 'jest')).length).toBeGreaterThan(0); // Jest's cache is ours

    // The preset (jest-preset.js through the compiled package, src/jest/preset.ts in a checkout) says the same.
    const preset = spawnSync(
      process.execPath,
      [
        '-r',
        path.join(repoRoot, 'src', 'ts-hook', 'ts-register.js'),
        '-e',
        `console.log(require(${JSON.stringify(path.join(repoRoot, 'src', 'jest', 'preset.ts'))})` +
          `.harnessPreset(${JSON.stringify(tmp)}).cacheDirectory)`,
      ],
      {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      },
    );
    expect(preset.stdout.trim()).toBe(path.join(cache, 'jest'));
  });

  (asRoot ? test : test.skip)("refuse, with exit 2 before running anything, a cache folder of another user's", async () => {
    const cache = path.join(tmp, 'ts');
    mkdirSync(path.join(cache, 'jest'), { recursive: true, mode: 0o700 });
    chownSync(path.join(cache, 'jest'), STRANGER, STRANGER);
    const r = await runCommand(
      process.execPath,
      [bin, 'run', '--mode', 'stub', '--specs', path.join(__dirname, 'fixtures', 'cli'), '--junit', path.join(tmp, 'junit.xml')],
      { cwd: repoRoot, env: { CANN_HARNESS_TS_CACHE: cache } },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: refusing Jest's cache directory ${path.join(cache, 'jest')}: it belongs to uid ${STRANGER}`);
    expect(r.stdout).not.toContain('probing devices');
  });
});
