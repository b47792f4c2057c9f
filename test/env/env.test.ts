/**
 * src/env is the one home of the environment variables: the tables of docs/reference/environment.md document exactly its
 * variables, the stub's C code reads only variables it declares, and product code names none of
 * them by a string literal.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ENV, VARIABLES, modeFromEnv, parseMode, requiredDevicesFromEnv } from '../../src/env';
import { DEFAULT_TIMEOUT_MS, defaultTimeoutMs } from '../../src/env/timeout';

const REPO = path.resolve(__dirname, '..', '..');
const NAME = /(?:CANN_HARNESS|ACL_STUB)_[A-Z_]*[A-Z]/g;

/** Where the environment variables are documented: a table of the user's, then one of the harness's own. */
const ENV_DOC = 'docs/reference/environment.md';

/** Variable names in the first column of each table of the environment reference, per table. */
function docTables(doc: string): string[][] {
  const tables: string[][] = [];
  let current: string[] | null = null;
  for (const line of doc.split('\n')) {
    if (!line.startsWith('|')) {
      current = null;
      continue;
    }
    if (!current) tables.push((current = []));
    const first = line.split('|')[1];
    current.push(...(first.match(NAME) ?? []));
  }
  return tables;
}

function sourceFiles(dir: string, exts: string[]): string[] {
  return fs.readdirSync(path.join(REPO, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => exts.some((e) => f.endsWith(e)))
    .map((f) => path.join(dir, f));
}

test(`${ENV_DOC}'s tables document exactly src/env's variables, user ones first, harness-set ones second`, () => {
  const [byUser, byHarness, ...rest] = docTables(fs.readFileSync(path.join(REPO, ENV_DOC), 'utf8'));
  expect(rest).toEqual([]);
  const declared = (setBy: string) => VARIABLES.filter((v) => v.setBy === setBy).map((v) => v.name).sort();
  expect([...new Set(byUser)].sort()).toEqual(declared('user'));
  expect([...new Set(byHarness)].sort()).toEqual(declared('harness'));
});

test('the table finder sees a missing row and an unknown one', () => {
  const doc = '# Environment variables\n\n| variable | effect |\n|---|---|\n| `CANN_HARNESS_MODE` | x |\n| `CANN_HARNESS_NEW=1` | y |\n\ntext `CANN_HARNESS_KEEP`\n\n| v | e |\n|---|---|\n| `ACL_STUB_LOG` | z |\n';
  expect(docTables(doc)).toEqual([['CANN_HARNESS_MODE', 'CANN_HARNESS_NEW'], ['ACL_STUB_LOG']]);
});

test("the C code (stub, hold and preload libraries, C API) reads only declared variables, and every variable marked readInC is read there", () => {
  const read = new Set<string>();
  for (const file of ['native-stub/src', 'native-stub/harness'].flatMap((d) => sourceFiles(d, ['.c', '.h']))) {
    // (test hooks such as CANNHARNESS_WATCH_FAULT are documented in native-stub/README.md instead)
    for (const m of fs.readFileSync(path.join(REPO, file), 'utf8').matchAll(/getenv\("((?:CANN_HARNESS|ACL_STUB)_[A-Z_]+)"\)/g)) read.add(m[1]);
  }
  const names = VARIABLES.map((v) => v.name);
  expect([...read].filter((n) => !names.includes(n))).toEqual([]);
  expect(VARIABLES.filter((v) => v.readInC && !read.has(v.name)).map((v) => v.name)).toEqual([]);
});

test('product code (src/, harness/) names no variable by a string literal or property, and mentions only declared ones', () => {
  const names = new Set(VARIABLES.map((v) => v.name));
  const literals: string[] = [];
  const unknown: string[] = [];
  const files = [...sourceFiles('src', ['.ts', '.js']), ...sourceFiles('harness', ['.ts', '.js'])].filter((f) => !f.startsWith(path.join('src', 'env')));
  for (const file of files) {
    const text = fs.readFileSync(path.join(REPO, file), 'utf8');
    for (const m of text.matchAll(NAME)) if (!names.has(m[0])) unknown.push(`${file}: ${m[0]}`);
    // The hook's plain JavaScript, loaded before any TypeScript, may name its own variables (test/harness checks they match).
    if (['typescript-transform.js', 'device-bundle-cache.js'].some((f) => file === path.join('src', 'ts-hook', f))) continue;
    for (const m of text.matchAll(/(['"`])((?:CANN_HARNESS|ACL_STUB)_[A-Z_]+)\1|\.((?:CANN_HARNESS|ACL_STUB)_[A-Z_]+)\b(?!=)/g)) {
      const line = text.slice(0, m.index).split('\n').length;
      if (!/^\s*(\*|\/\/)/.test(text.split('\n')[line - 1])) literals.push(`${file}:${line}: ${m[0]}`);
    }
  }
  expect(unknown).toEqual([]);
  expect(literals).toEqual([]);
});

test('the mode: the variable, the bad value and the accepted values in one message', () => {
  expect(modeFromEnv({})).toBe('auto');
  expect(modeFromEnv({ [ENV.mode]: 'stub' })).toBe('stub');
  expect(() => modeFromEnv({ [ENV.mode]: 'gpu' })).toThrow('CANN_HARNESS_MODE must be one of auto, stub, real; got "gpu"');
  expect(() => parseMode('cpu', '--mode')).toThrow('--mode must be one of auto, stub, real; got "cpu"');
});

test('whole numbers: unset is absent, a bad value names the variable and the fix', () => {
  expect(requiredDevicesFromEnv({})).toBeNull();
  expect(requiredDevicesFromEnv({ [ENV.requireDevices]: ' 8 ' })).toBe(8);
  expect(() => requiredDevicesFromEnv({ [ENV.requireDevices]: 'all' })).toThrow('CANN_HARNESS_REQUIRE_DEVICES must be a whole number of devices (got "all"), e.g. CANN_HARNESS_REQUIRE_DEVICES=8');
  expect(defaultTimeoutMs({})).toBe(DEFAULT_TIMEOUT_MS);
  expect(defaultTimeoutMs({ [ENV.timeoutMs]: '600000' })).toBe(600_000);
  expect(() => defaultTimeoutMs({ [ENV.timeoutMs]: '600001' })).toThrow(
    'CANN_HARNESS_TIMEOUT_MS must be a whole number of milliseconds between 1 and 600000 (got 600001): fix it or unset it',
  );
  expect(() => defaultTimeoutMs({ [ENV.timeoutMs]: 'soon' })).toThrow('CANN_HARNESS_TIMEOUT_MS must be a whole number of milliseconds between 1 and 600000 (got "soon")');
});
