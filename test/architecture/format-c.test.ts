/**
 * The stub's C sources are clang-formatted with native-stub/.clang-format (`npm run
 * check:format-c`), and the check fails on a mis-formatted file, naming it with the fix. The CLI
 * runs in a child process: @wasm-fmt/clang-format is an ES module, which Jest's module system
 * does not load. The children load the CLI with the harness's own TypeScript hook (its transforms
 * cached on disk, so esbuild starts once, not in every child as with esbuild-register: 0.3 s of CPU
 * each) and with --liftoff-only, as `npm run check:format-c` does: V8 then skips optimizing the
 * formatter's WebAssembly, which costs more than it saves on ~100 small files (measured 2.7 -> 1.3 s
 * of CPU for the whole check; the output is the same code's, only not optimized).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { firstDifference } from '../../tools/format-c/check';
import { listCFiles } from '../../tools/format-c/files';

const REPO = path.resolve(__dirname, '..', '..');
const CLI = path.join(REPO, 'tools', 'format-c', 'cli.ts');
const TS_REGISTER = path.join(REPO, 'src', 'ts-hook', 'ts-register.js');

function formatC(args: string[]): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, ['--liftoff-only', '-r', TS_REGISTER, CLI, ...args], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

test('every C file of native-stub/ is clang-formatted (npm run check:format-c)', () => {
  const r = formatC(['--check']);
  expect(r.output).toMatch(/^format-c: \d+ C file\(s\) clang-formatted \(native-stub\/\.clang-format\)\n$/);
  expect(r.status).toBe(0);
}, 120_000);

test('the check sees every C folder of the stub and no build output', () => {
  const files = listCFiles(REPO);
  const harness = ['harness/hold', 'harness/preload', 'harness/api', 'harness/include'];
  const dirs = ['src', 'include/acl', 'test', ...harness, 'bench', 'samples/common', 'kernels'];
  for (const dir of dirs) {
    expect(files.some((f) => f.startsWith(`native-stub/${dir}/`))).toBe(true);
  }
  expect(files).toContain('native-stub/src/sync.c');
  expect(files).toContain('native-stub/test/ctest.h');
  expect(files).toContain('native-stub/kernels/cann_example_kernels.cpp'); // C++ kernel bodies are formatted too
  expect(files.filter((f) => /\/build[^/]*\//.test(f) || !/\.(c|h|cpp)$/.test(f))).toEqual([]);
});

test('the first difference is the changed block only', () => {
  const d = firstDifference('x.c', 'a\nb\n\n\nc\nd\ne\n', 'a\nb\n\nc\nd\ne\n');
  expect(d).toEqual({ file: 'x.c', line: 4, actual: [''], expected: [] });
  const w = firstDifference('y.c', 'int f(int a,\n      int b);\nint g;\n', 'int f(int a, int b);\nint g;\n');
  expect(w).toEqual({ file: 'y.c', line: 1, actual: ['int f(int a,', '      int b);'], expected: ['int f(int a, int b);'] });
});

describe('on a throwaway file', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'format-c-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a mis-formatted file fails the check, naming the file, the line and the fix; --write fixes it', () => {
    const file = path.join(dir, 'bad.c');
    fs.writeFileSync(file, 'int ok(void)\n{\n    return 0;\n}\n\nint bad(int a){ return a+1; }\n');
    const failed = formatC(['--check', file]);
    expect(failed.status).toBe(1);
    expect(failed.output).toContain(`${file}:6: not clang-formatted (native-stub/.clang-format)`);
    expect(failed.output).toContain('  - int bad(int a){ return a+1; }');
    expect(failed.output).toContain('  + int bad(int a)');
    expect(failed.output).toContain('1 C file(s) not clang-formatted: run `npm run format:c`');

    const written = formatC(['--write', file]);
    expect(written.status).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('int ok(void)\n{\n    return 0;\n}\n\nint bad(int a)\n{\n    return a + 1;\n}\n');
    expect(formatC(['--check', file]).status).toBe(0);
  }, 120_000);

  test('bad usage exits 2 with the usage line', () => {
    const r = formatC(['--fix']);
    expect(r.status).toBe(2);
    expect(r.output).toContain('unknown option --fix');
    expect(r.output).toContain('usage: cli.ts [--check | --write] [FILE...]');
    const missing = formatC(['--check', path.join(dir, 'absent.c')]);
    expect(missing.status).toBe(2);
    expect(missing.output).toContain('no such file');
  }, 120_000);
});
