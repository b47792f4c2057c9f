/**
 * One fact, one home (issue 34): the mode type is src/env's `Mode` (no alias, no union spelled
 * again), the results of a run are declared in src/wire/results.ts only, and the "skip without the
 * built stub" switch of the tests is test/support/with-stub.ts only, and each `*Context` type has one
 * name that says what it is. Each check reads the sources, so a second home fails here, naming the file.
 */
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');

function tsFiles(dir: string): string[] {
  return readdirSync(path.join(REPO, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.split(path.sep).includes('node_modules'))
    .map((f) => path.join(dir, f));
}

const SOURCES = ['src', 'harness', 'test', 'bench', 'specs', 'tools'].flatMap(tsFiles);
const read = (f: string): string => readFileSync(path.join(REPO, f), 'utf8');
/** The files whose text matches, except `allowed`. */
const filesMatching = (re: RegExp, allowed: string[] = []): string[] =>
  SOURCES.filter((f) => !allowed.includes(f) && f !== path.join('test', 'architecture', 'one-home.test.ts') && re.test(read(f)));

test("the mode type is src/env's Mode: no AclMode, and the union of the modes spelled nowhere else", () => {
  expect(filesMatching(/\bAclMode\b/)).toEqual([]);
  expect(filesMatching(/type \w+ = ['"](auto|stub|real)['"] \|/)).toEqual([]);
  expect(read(path.join('src', 'env', 'index.ts'))).toMatch(/export type Mode = \(typeof MODES\)\[number\];/);
});

test('RoleResult, RunResult and what they hold are declared in src/wire/results.ts only', () => {
  for (const name of ['RoleResult', 'RunResult', 'RoleStatus', 'OutputLoss', 'CancelledTask', 'FirstFailure', 'TraceFile', 'WaitGraph']) {
    const declares = new RegExp(`^(export )?(interface|type) ${name}\\b`, 'm');
    expect({ name, homes: filesMatching(declares) }).toEqual({ name, homes: [path.join('src', 'wire', 'results.ts')] });
  }
  // The scenario types take them from their home, not through the orchestrator.
  expect(read(path.join('src', 'scenario', 'types.ts'))).toMatch(/import type \{ RoleResult, RunResult \} from '\.\.\/wire\/results';/);
});

test("the tests' stub switch (skip without the built stub) is test/support/with-stub.ts only", () => {
  const home = path.join('test', 'support', 'with-stub.ts');
  // A line that chooses between a test function and its .skip on whether the stub is there.
  expect(filesMatching(/^.*(stub|STUB).*\? (describe|test) : \2\.skip\b/m, [home])).toEqual([]);
  expect(filesMatching(/\bconst withStub\s*=/)).toEqual([]);
  expect(read(home)).toMatch(/export const describeWithStub = haveStub \? describe : describe\.skip;/);
});

/**
 * Every type in src/ and harness/ whose name ends in Context, with what it is. A new one (or a
 * rename back to a vague name such as `Context` or `BaseContext`) fails here: add it with its meaning,
 * or name it by what it is (e.g. RoleBasics, ContextWithCleanup, AfterReturnGuard, WaitGraphInputs).
 */
const CONTEXT_TYPES: Record<string, string> = {
  AclContext: 'an ACL context handle (aclrtContext): a device and the streams made while it was current',
  RoleContext: "the ctx the orchestrator hands a plain role module's body (src/wire)",
  DataContext: "public: the data part of a scenario body's ctx (buffers, IPC memory, notify, VMM)",
  ScenarioContext: 'public: the ctx a scenario role body receives',
  ThreadContext: "public: a worker thread's ctx, a ScenarioContext plus its thread",
};

test('each *Context type in src/ and harness/ is declared once, under a name listed with its meaning', () => {
  const declared = new Map<string, string[]>();
  for (const f of SOURCES.filter((s) => s.startsWith(`src${path.sep}`) || s.startsWith(`harness${path.sep}`))) {
    for (const m of read(f).matchAll(/^\s*(?:export\s+)?(?:declare\s+)?(?:abstract\s+)?(?:interface|type|class|enum)\s+(\w*Context)\b/gm)) {
      declared.set(m[1], [...(declared.get(m[1]) ?? []), f]);
    }
  }
  // name -> the files declaring it: each listed name in exactly one file, no other name.
  expect(Object.fromEntries(declared)).toEqual(Object.fromEntries(Object.keys(CONTEXT_TYPES).map((name) => [name, [expect.any(String)]])));
  // The names spec authors write stay exported from the package.
  const index = read(path.join('src', 'index.ts'));
  for (const name of ['DataContext', 'ScenarioContext', 'ThreadContext']) expect(index).toMatch(new RegExp(`\\b${name}\\b`));
});
