/**
 * The import rules of tools/boundaries/rules.ts hold for the repository, and the checker catches
 * each kind of breach (checked on small throwaway trees, so each check is seen failing).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyKnownViolations, checkFiles, checkRepository, type Rules } from '../../tools/boundaries/check';
import { listSourceFiles } from '../../tools/boundaries/imports';
import { KNOWN_VIOLATIONS, PARTS, RESTRICTED_PACKAGES } from '../../tools/boundaries/rules';

const REPO = path.resolve(__dirname, '..', '..');
const RULES: Rules = { parts: PARTS, restrictedPackages: RESTRICTED_PACKAGES, known: KNOWN_VIOLATIONS };

test('the repository keeps its import rules (tools/boundaries/rules.ts)', () => {
  const { problems } = checkRepository(REPO, RULES);
  // The messages name the file, line, broken rule and fix: show them all on failure.
  expect(problems.map((p) => p.message)).toEqual([]);
});

test('the check sees the whole tree: every layer has files and real imports', () => {
  const files = listSourceFiles(REPO, Object.keys(PARTS));
  for (const part of ['src/acl', 'src/orchestrator', 'src/scenario', 'src/jest', 'harness', 'specs', 'test']) {
    expect(files.some((f) => f.startsWith(part + '/'))).toBe(true);
  }
  expect(files).toContain('src/scenario/scenario.ts');
});

describe('on a throwaway tree', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'boundaries-'));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  function write(files: Record<string, string>): string[] {
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
      fs.writeFileSync(path.join(root, name), text);
    }
    return listSourceFiles(root, Object.keys(PARTS));
  }
  const check = (files: string[], rules: Rules = RULES) => applyKnownViolations(checkFiles(root, files, rules), rules.known).problems;

  test('a layer importing upwards fails, naming the file, line, rule and fix', () => {
    const files = write({
      'src/acl/runtime.ts': "export const a = 1;\nimport { registerScenarioTest } from '../jest/register';\n",
      'src/jest/register.ts': 'export function registerScenarioTest() {}\n',
    });
    const problems = check(files);
    expect(problems).toHaveLength(1);
    expect(problems[0].kind).toBe('import');
    expect(problems[0].message).toContain('src/acl/runtime.ts:2 imports "../jest/register"');
    expect(problems[0].message).toContain('src/acl (the koffi binding of libascendcl) may import only src/rendezvous, not src/jest');
  });

  test('the old scenario <-> jest shape (a lazy require back up, a type import down) is a forbidden import and a cycle', () => {
    const files = write({
      'src/scenario/scenario.ts':
        "export function declare() { (require('../jest/register') as typeof import('../jest/register')).registerScenarioTest(); }\n",
      'src/jest/register.ts': "import type { declare } from '../scenario/scenario';\nexport function registerScenarioTest() {}\n",
    });
    const kinds = check(files).map((p) => p.kind).sort();
    expect(kinds).toEqual(['cycle', 'import']);
  });

  test('a cycle made only of type imports inside one folder fails', () => {
    const files = write({
      'harness/scenario/context.ts': "import type { B } from './data-context';\nexport interface A { b?: B }\n",
      'harness/scenario/data-context.ts': "import type { A } from './context';\nexport interface B { a?: A }\n",
    });
    const problems = check(files);
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toMatch(/import cycle between harness\/scenario\/context.ts, harness\/scenario\/data-context.ts/);
    expect(problems[0].message).toContain('imports types from "./context"');
  });

  test('every form of import counts: export-from, import(), require.resolve, import type nodes', () => {
    const files = write({
      'src/rendezvous/a.ts': "export * from '../trace/t';\n",
      'src/rendezvous/b.ts': "export const p = import('../acl/x');\n",
      'src/rendezvous/c.ts': "export const q = require.resolve('../orchestrator/y');\n",
      'src/rendezvous/d.ts': "export type T = typeof import('../scenario/z');\n",
      'src/trace/t.ts': 'export {};\n',
      'src/acl/x.ts': 'export {};\n',
      'src/orchestrator/y.ts': 'export {};\n',
      'src/scenario/z.ts': 'export {};\n',
    });
    expect(check(files).map((p) => p.what).sort()).toEqual([
      'src/rendezvous/a.ts -> src/trace/t.ts',
      'src/rendezvous/b.ts -> src/acl/x.ts',
      'src/rendezvous/c.ts -> src/orchestrator/y.ts',
      'src/rendezvous/d.ts -> src/scenario/z.ts',
    ]);
  });

  test('koffi outside src/acl fails; an unknown folder and an unresolvable import are reported', () => {
    const files = write({
      'src/orchestrator/native.ts': "import koffi from 'koffi';\nexport const k = koffi;\n",
      'scripts/x.ts': 'export {};\n',
      'src/trace/y.ts': "import './missing';\n",
    });
    const all = listSourceFiles(root, ['src', 'scripts']);
    const byKind = Object.fromEntries(check(all).map((p) => [p.kind, p.message]));
    expect(byKind.package).toContain('package koffi is for src/acl, test only');
    expect(byKind.unowned).toContain('scripts/x.ts belongs to no part');
    expect(byKind.unresolved).toContain('src/trace/y.ts:1 imports "./missing", which resolves to no file');
    expect(files).not.toContain('scripts/x.ts'); // only PARTS folders are listed by default
  });

  test('a known violation passes only while it occurs; a stale entry fails', () => {
    const files = write({
      'src/acl/a.ts': "import '../jest/b';\n",
      'src/jest/b.ts': 'export {};\n',
    });
    const known = [{ kind: 'import' as const, what: 'src/acl/a.ts -> src/jest/b.ts', issue: '#13', why: 'test' }];
    expect(check(files, { ...RULES, known })).toEqual([]);
    fs.writeFileSync(path.join(root, 'src/acl/a.ts'), 'export {};\n');
    const problems = check(files, { ...RULES, known });
    expect(problems.map((p) => p.kind)).toEqual(['stale']);
    expect(problems[0].message).toContain('no longer occurs: delete the entry');
  });

  test('rules that let two parts import each other are refused', () => {
    const parts = { ...PARTS, 'src/trace': { role: 'x', mayImport: ['src/orchestrator'] } };
    const problems = check(write({ 'src/trace/a.ts': 'export {};\n' }), { ...RULES, parts });
    expect(problems.map((p) => p.kind)).toEqual(['rules']);
    expect(problems[0].message).toContain('src/orchestrator, src/trace');
  });

  test('a foundation part (src/env) may be imported from anywhere, but imports nothing itself', () => {
    const files = write({
      'src/rendezvous/a.ts': "import { ENV } from '../env';\nexport const a = ENV;\n",
      'src/env/index.ts': "import { a } from '../rendezvous/a';\nexport const ENV = a;\n",
    });
    const problems = check(files);
    expect(problems.filter((p) => p.kind === 'import').map((p) => p.what)).toEqual(['src/env/index.ts -> src/rendezvous/a.ts']);
    const parts = { ...PARTS, 'src/env': { role: 'x', mayImport: ['src/rendezvous'], foundation: true as const } };
    const rules = check(write({ 'src/env/index.ts': 'export {};\n' }), { ...RULES, parts });
    expect(rules.map((p) => p.message)).toContainEqual(expect.stringContaining('rules: src/env is a foundation'));
  });
});
