/**
 * src/ts-hook/code-cache.js: the V8 code cache of the device bundles. A module runs with the same
 * semantics as Module._compile (exports, require, __filename, stack trace lines and columns); a
 * cache is made at exit when there was none, and used only for the exact code it was made from
 * (V8 itself checks only the length); a link or a file of another user is never read, and a cache
 * V8 rejects is replaced.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, lstatSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const codeCacheModule = path.resolve(__dirname, '..', '..', 'src', 'ts-hook', 'code-cache.js');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'code-cache-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A module body of fixed length: `value` is one letter, so two versions differ only in that byte. */
const moduleCode = (value: string) =>
  [
    `exports.value = '${value}';`,
    'exports.where = [__filename, __dirname, require.resolve("./sibling")];',
    'exports.inner = function inner() { return new Error("thrown here").stack.split("\\n")[1].trim(); };',
    'exports.inner();', // compiled while it ran: the cache made at exit holds it
  ].join('\n');

interface Ran {
  fromCache: boolean;
  value: string;
  where: string[];
  frame: string;
}

/** Runs `code` through runWithCodeCache in a fresh Node (the cache is written at its exit); cacheDir '': none; null: through Module._compile instead. */
function run(code: string, cacheDir: string | null = dir): Ran {
  const script = `
    const Module = require('node:module');
    const { runWithCodeCache } = require(${JSON.stringify(codeCacheModule)});
    const filename = ${JSON.stringify(path.join(dir, 'bundle.js'))};
    const m = new Module(filename, module);
    m.filename = filename;
    m.paths = Module._nodeModulePaths(${JSON.stringify(dir)});
    const code = process.env.CODE;
    const fromCache = process.env.DIR === 'null' ? m._compile(code, filename) ?? false : runWithCodeCache(m, code, Buffer.from(code, 'latin1'), process.env.DIR || undefined, 'probe');
    console.log(JSON.stringify({ fromCache, value: m.exports.value, where: m.exports.where, frame: m.exports.inner() }));`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, CODE: code, DIR: cacheDir === null ? 'null' : cacheDir } });
  if (r.status !== 0) throw new Error(`node exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Ran;
}

const cacheFiles = () => readdirSync(dir).filter((n) => n.endsWith('.v8cache'));

beforeEach(() => writeFileSync(path.join(dir, 'sibling.js'), ''));

test('a module runs as Module._compile would run it, and from the cache it made at exit the next time', () => {
  const { fromCache, ...expected } = run(moduleCode('A'), null); // Module._compile
  expect(fromCache).toBe(false);
  expect(expected).toEqual({ value: 'A', where: [path.join(dir, 'bundle.js'), dir, path.join(dir, 'sibling.js')], frame: `at Object.inner (${path.join(dir, 'bundle.js')}:3:43)` });
  expect(cacheFiles()).toEqual([]);
  expect(run(moduleCode('A'))).toEqual({ fromCache: false, ...expected });
  expect(cacheFiles()).toEqual([expect.stringMatching(/^probe-[0-9a-f]{8}\.v8cache$/)]);
  expect(run(moduleCode('A'))).toEqual({ fromCache: true, ...expected }); // the same lines and columns
  expect(run(moduleCode('A'), '')).toEqual({ fromCache: false, ...expected }); // no cache directory: plain
});

test('a cache is used only for the very code it was made from, not for another code of the same length', () => {
  run(moduleCode('A'));
  expect(run(moduleCode('A')).fromCache).toBe(true);
  // V8 would take A's cache for B (it checks the length only) and run A's top level: value 'A'.
  expect(run(moduleCode('B'))).toMatchObject({ fromCache: false, value: 'B' });
  expect(run(moduleCode('B'))).toMatchObject({ fromCache: true, value: 'B' }); // B's process replaced it
  expect(run(moduleCode('A'))).toMatchObject({ fromCache: false, value: 'A' });
});

test('a cache V8 rejects (here: cut short, as a write interrupted by a crash could leave it) is replaced by a good one', () => {
  run(moduleCode('A'));
  const [name] = cacheFiles();
  const file = path.join(dir, name);
  writeFileSync(file, readFileSync(file).subarray(0, -64)); // header, key and code intact: V8's own check refuses it
  expect(run(moduleCode('A'))).toMatchObject({ fromCache: false, value: 'A' });
  expect(run(moduleCode('A'))).toMatchObject({ fromCache: true, value: 'A' });
});

test('a symbolic link in place of the cache file is not followed, and is replaced by a file', () => {
  run(moduleCode('A'));
  const [name] = cacheFiles();
  const target = path.join(dir, 'elsewhere');
  renameSync(path.join(dir, name), target); // a valid cache, reached only through the link
  symlinkSync(target, path.join(dir, name));
  const before = readFileSync(target);
  expect(run(moduleCode('A'))).toMatchObject({ fromCache: false, value: 'A' });
  expect(lstatSync(path.join(dir, name)).isFile()).toBe(true);
  expect(readFileSync(target).equals(before)).toBe(true); // written through the link: never
});

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
(asRoot ? test : test.skip)('a cache file of another user is not read (needs root to chown)', () => {
  run(moduleCode('A'));
  const [name] = cacheFiles();
  chownSync(path.join(dir, name), 65534, 65534);
  expect(run(moduleCode('A'))).toMatchObject({ fromCache: false, value: 'A' });
  expect(lstatSync(path.join(dir, name)).uid).toBe(0); // replaced by this user's own
});
