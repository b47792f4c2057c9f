/**
 * harness/ts-register.js (the device processes' TypeScript require hook: esbuild transformSync with cached
 * transforms): an edited file is never served stale, a hit is served from the cache, and stack
 * traces still point at TypeScript lines.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const loader = path.join(repoRoot, 'harness', 'ts-register.js');
const cacheDir = path.join(repoRoot, 'node_modules', '.cache', 'cann-harness-ts');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ts-register-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Loads `file` in a fresh node with the loader and prints what `probe` evaluates to. */
function load(file: string, probe: string): string {
  const r = spawnSync(process.execPath, ['-r', loader, '-e', `const m = require(${JSON.stringify(file)}); console.log(${probe})`], {
    encoding: 'utf8',
    timeout: 30_000,
  });
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

test('an edited file is transformed again, an unchanged one comes from the cache', () => {
  const file = path.join(dir, 'mod.ts');
  const tag = `tag-${process.pid}-${Date.now()}`; // a source text no earlier run has cached
  try {
    writeFileSync(file, `export const v: number = 1; export const tag: string = '${tag}';\n`);
    expect(load(file, 'm.v')).toBe('1');
    expect(entriesWith(tag)).toHaveLength(1);

    expect(load(file, 'm.v')).toBe('1');
    expect(entriesWith(tag)).toHaveLength(1); // a hit adds nothing

    writeFileSync(file, `export const v: number = 2; export const tag: string = '${tag}';\n`);
    expect(load(file, 'm.v')).toBe('2');
    expect(entriesWith(tag)).toHaveLength(2);
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
