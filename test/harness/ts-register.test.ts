/**
 * src/ts-hook/ts-register.js (the device processes' TypeScript require hook: esbuild transformSync with cached
 * transforms): an edited file is never served stale, a hit is served from the cache, and stack
 * traces still point at TypeScript lines; a cache directory that others could write to is refused.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const loader = path.join(repoRoot, 'src', 'ts-hook', 'ts-register.js');
const cacheDir = path.join(repoRoot, 'node_modules', '.cache', 'cann-harness-ts');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ts-register-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Loads `file` in a fresh node with the loader (env added to ours) and returns how it ended. */
function run(file: string, probe: string, env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ['-r', loader, '-e', `const m = require(${JSON.stringify(file)}); console.log(${probe})`], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, ...env },
  });
}

/** Loads `file` in a fresh node with the loader and prints what `probe` evaluates to. */
function load(file: string, probe: string, env: NodeJS.ProcessEnv = {}): string {
  const r = run(file, probe, env);
  if (r.status !== 0) throw new Error(`node exited ${r.status}: ${r.stderr}`);
  return r.stdout.trim();
}

/** Cache entries holding code that contains `tag` (other test files may add entries meanwhile). */
function entriesWith(tag: string): string[] {
  return readdirSync(cacheDir)
    .map((n) => path.join(cacheDir, n))
    .filter((f) => {
      try {
        return readFileSync(f, 'utf8').includes(tag);
      } catch {
        return false; // renamed away meanwhile
      }
    });
}

test('an edited file is transformed again (its entry replaced), an unchanged one comes from the cache', () => {
  const file = path.join(dir, 'mod.ts');
  const tag = `tag-${process.pid}-${Date.now()}`; // a source text no earlier run has cached
  try {
    writeFileSync(file, `export const v: number = 1; export const tag: string = '${tag}';\n`);
    expect(load(file, 'm.v')).toBe('1');
    const [entry] = entriesWith(tag);
    expect(entriesWith(tag)).toEqual([entry]);

    // A hit is served from the entry: doctor its code part (after the source) and see it run.
    const text = readFileSync(entry, 'utf8');
    const codeStart = text.lastIndexOf(`'${tag}';\n`) + `'${tag}';\n`.length;
    writeFileSync(entry, text.slice(0, codeStart) + text.slice(codeStart).replace('v = 1', 'v = 41'));
    expect(load(file, 'm.v')).toBe('41');
    expect(entriesWith(tag)).toEqual([entry]); // a hit adds nothing

    writeFileSync(file, `export const v: number = 2; export const tag: string = '${tag}';\n`);
    expect(load(file, 'm.v')).toBe('2'); // the stored source differs: a miss, never the doctored code
    expect(entriesWith(tag)).toEqual([entry]); // one entry per file, replaced
    expect(readFileSync(entry, 'utf8')).not.toContain('v = 41');
  } finally {
    for (const f of entriesWith(tag)) rmSync(f, { force: true });
  }
});

test('an entry made for another key (another file or esbuild version with the same hash) is a miss', () => {
  const file = path.join(dir, 'keyed.ts');
  const tag = `tag-${process.pid}-${Date.now()}`;
  const source = `export const v: number = 1; export const tag: string = '${tag}';\n`;
  try {
    writeFileSync(file, source);
    expect(load(file, 'm.v')).toBe('1');
    const [entry] = entriesWith(tag);
    // Same source, but the key part says another esbuild version: must not be served.
    const text = readFileSync(entry, 'utf8');
    const eol = text.indexOf('\n');
    const [keyLength] = text.slice(0, eol).split(' ').map(Number);
    const key = text.slice(eol + 1, eol + 1 + keyLength);
    const otherKey = key.replace(/^[^\0]*/, (version) => '9'.repeat(version.length)); // same length: only the key text differs
    const doctored = `${otherKey.length} ${source.length}\n${otherKey}${source}${text.slice(eol + 1 + keyLength + source.length).replace('v = 1', 'v = 41')}`;
    writeFileSync(entry, doctored);
    expect(load(file, 'm.v')).toBe('1');
  } finally {
    for (const f of entriesWith(tag)) rmSync(f, { force: true });
  }
});

test('stack traces of cached modules point at the TypeScript lines', () => {
  const file = path.join(dir, 'thrower.ts');
  const tag = `tag-${process.pid}-${Date.now()}`;
  writeFileSync(
    file,
    [
      'interface Shape { x: number }',
      'type Alias = Shape & { y: string };',
      `export const unused: Alias | string = '${tag}';`,
      'export function boom(): string {',
      "  return new Error('here').stack ?? '';",
      '}',
      '',
    ].join('\n'),
  );
  try {
    for (let run = 0; run < 2; run++) expect(load(file, 'm.boom()')).toContain(`${file}:5:`);
  } finally {
    for (const f of entriesWith(tag)) rmSync(f, { force: true });
  }
});

describe('a cache directory that someone else could have written to is refused (CANN_HARNESS_TS_CACHE)', () => {
  /** A cache made privately (0700, by the hook), whose one entry then gets a line that must never run. */
  function plantedCache(): { cache: string; file: string } {
    const cache = path.join(dir, 'cache');
    const file = path.join(dir, 'victim.ts');
    writeFileSync(file, 'export const v: number = 1;\n');
    expect(load(file, 'm.v', { CANN_HARNESS_TS_CACHE: cache })).toBe('1');
    expect(statSync(cache).mode & 0o777).toBe(0o700); // created private
    const [entry] = readdirSync(cache);
    const text = readFileSync(path.join(cache, entry), 'utf8');
    writeFileSync(path.join(cache, entry), `${text}\nconsole.log('PLANTED');\n`);
    expect(load(file, 'm.v', { CANN_HARNESS_TS_CACHE: cache })).toBe('PLANTED\n1'); // a private cache is trusted
    return { cache, file };
  }

  function expectRefused(cache: string, file: string, why: RegExp): void {
    const r = run(file, 'm.v', { CANN_HARNESS_TS_CACHE: cache });
    expect(r.stdout).not.toContain('PLANTED');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`refusing the TypeScript compile cache ${cache}: `);
    expect(r.stderr).toMatch(why);
    expect(r.stderr).toContain('Fix: use a directory only you can write');
  }

  test('writable by group or others', () => {
    const { cache, file } = plantedCache();
    chmodSync(cache, 0o777);
    expectRefused(cache, file, /its mode 0777 lets group or others write to it/);
    chmodSync(cache, 0o720);
    expectRefused(cache, file, /its mode 0720 lets group or others write to it/);
  });

  test('a symbolic link to a cache', () => {
    const { cache, file } = plantedCache();
    const link = path.join(dir, 'link');
    symlinkSync(cache, link);
    expectRefused(link, file, /it is a symbolic link/);
  });

  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  (asRoot ? test : test.skip)('owned by another user (needs root to chown)', () => {
    const { cache, file } = plantedCache();
    chownSync(cache, 65534, 65534);
    expectRefused(cache, file, /it belongs to uid 65534, not to this user \(uid 0\)/);
  });

  test('a missing cache directory is created private, parents included', () => {
    const cache = path.join(dir, 'a', 'b');
    const file = path.join(dir, 'fresh.ts');
    writeFileSync(file, 'export const v: number = 3;\n');
    mkdirSync(path.join(dir, 'a'), { mode: 0o700 });
    expect(load(file, 'm.v', { CANN_HARNESS_TS_CACHE: cache })).toBe('3');
    expect(statSync(cache).mode & 0o777).toBe(0o700);
  });
});
