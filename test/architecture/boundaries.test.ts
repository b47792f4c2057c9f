/**
 * The import rules of tools/boundaries/rules.ts hold for the repository, and the checker catches
 * each kind of breach (checked on small throwaway trees, so each check is seen failing).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyKnownViolations, checkFiles, checkRepository, type Rules } from '../../tools/boundaries/check';
import { listSourceFiles } from '../../tools/boundaries/imports';
import { KNOWN_VIOLATIONS, LOAD_RULES, PARTS, RESTRICTED_PACKAGES, type LoadRule } from '../../tools/boundaries/rules';

const REPO = path.resolve(__dirname, '..', '..');
const RULES: Rules = { parts: PARTS, restrictedPackages: RESTRICTED_PACKAGES, known: KNOWN_VIOLATIONS };

test('the repository keeps its import and load-time rules (tools/boundaries/rules.ts)', () => {
  const { problems } = checkRepository(REPO, { ...RULES, loadRules: LOAD_RULES });
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

  test('the layers of harness/scenario: a thread file importing its process entry fails, and so does a context importing the body runner', () => {
    const files = write({
      'harness/scenario/role-entry.ts': "import { runThreads } from './threads/once';\nexport const findRole = () => runThreads;\n",
      'harness/scenario/threads/once.ts': "import { runBody } from '../body/run-body';\nexport const runThreads = runBody;\n",
      'harness/scenario/threads/base.ts': "import { findRole } from '../role-entry';\nexport const f = findRole;\n",
      'harness/scenario/body/run-body.ts': "import type { Ctx } from '../context/context';\nexport function runBody(c?: Ctx) { return c; }\n",
      'harness/scenario/context/context.ts': "import { runBody } from '../body/run-body';\nexport interface Ctx { r?: typeof runBody }\n",
    });
    const imports = check(files).filter((p) => p.kind === 'import');
    expect(imports.map((p) => p.what).sort()).toEqual([
      'harness/scenario/context/context.ts -> harness/scenario/body/run-body.ts',
      'harness/scenario/threads/base.ts -> harness/scenario/role-entry.ts',
    ]);
    expect(imports.find((p) => p.what.startsWith('harness/scenario/threads'))!.message).toContain(
      "harness/scenario/threads (a role's worker threads",
    );
  });

  test('a cycle made only of type imports inside one folder fails', () => {
    const files = write({
      'harness/scenario/context/context.ts': "import type { B } from './data-context';\nexport interface A { b?: B }\n",
      'harness/scenario/context/data-context.ts': "import type { A } from './context';\nexport interface B { a?: A }\n",
    });
    const problems = check(files);
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toMatch(/import cycle between harness\/scenario\/context\/context.ts, harness\/scenario\/context\/data-context.ts/);
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
    expect(byKind.package).toContain('package koffi is for src/acl, test, bench only');
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

  test('a load rule: an eager import of koffi under the entry fails with its chain; in a function or as a type it does not', () => {
    const rule: LoadRule = { name: 'no koffi at load', entries: ['src/acl/index.ts'], never: ['koffi'], why: 'test' };
    const rules = { ...RULES, loadRules: [rule] };
    const eager = write({
      'src/acl/index.ts': "export * from './runtime';\n",
      'src/acl/runtime.ts': "import koffi from 'koffi';\nexport const k = koffi;\n",
    });
    const problems = check(eager, rules);
    expect(problems.map((p) => p.what)).toEqual(['src/acl/index.ts -> koffi']);
    expect(problems[0].message).toContain('src/acl/index.ts loads koffi as soon as it is loaded, which the load rule "no koffi at load" forbids');
    expect(problems[0].message).toContain('  src/acl/index.ts:1 imports "./runtime"\n  src/acl/runtime.ts:1 imports package "koffi"');

    const lazy = write({
      'src/acl/runtime.ts':
        "import type Koffi from 'koffi';\nexport function load(): typeof Koffi { return require('koffi') as typeof Koffi; }\nexport const later = () => import('koffi');\n",
    });
    expect(check(lazy, rules)).toEqual([]);
  });

  test('a load rule: a folder in never covers every file in it; a part beside it does not', () => {
    const rule: LoadRule = { name: 'no orchestrator', entries: ['harness/device-process.ts'], never: ['src/orchestrator'], why: 'test' };
    const files = write({
      'harness/device-process.ts': "import { P } from '../src/wire/protocol';\nimport { run } from '../src/orchestrator/run-roles';\nexport const x = [P, run];\n",
      'src/wire/protocol.ts': 'export const P = 1;\n',
      'src/orchestrator/run-roles.ts': 'export const run = 1;\n',
    });
    const problems = check(files, { ...RULES, loadRules: [rule] });
    expect(problems.filter((p) => p.kind === 'load').map((p) => p.what)).toEqual(['harness/device-process.ts -> src/orchestrator/run-roles.ts']);
    // and harness may not import the orchestrator at all (PARTS): the same line is a wrong-way import
    expect(problems.filter((p) => p.kind === 'import').map((p) => p.what)).toEqual(['harness/device-process.ts -> src/orchestrator/run-roles.ts']);
    const missing: LoadRule = { ...rule, entries: ['harness/nowhere.ts'] };
    expect(check(files, { ...RULES, loadRules: [missing] }).filter((p) => p.kind !== 'import').map((p) => p.kind)).toEqual(['rules']);
  });
});

describe('npm run check:boundaries on a copy of the repository', () => {
  let copy: string;
  beforeAll(() => {
    copy = fs.mkdtempSync(path.join(os.tmpdir(), 'boundaries-repo-'));
    for (const file of listSourceFiles(REPO, Object.keys(PARTS))) {
      fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
      fs.copyFileSync(path.join(REPO, file), path.join(copy, file));
    }
    fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  });
  afterAll(() => {
    if (copy) fs.rmSync(copy, { recursive: true, force: true });
  });

  /** The command of `npm run check:boundaries` (package.json), run on the copy. */
  function checkBoundaries(): { status: number | null; output: string } {
    const r = spawnSync(process.execPath, ['-r', 'esbuild-register', path.join(copy, 'tools', 'boundaries', 'cli.ts')], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
    return { status: r.status, output: `${r.stdout}${r.stderr}` };
  }
  /** Adds `line` at the top of a file of the copy. */
  function plant(file: string, line: string): void {
    const abs = path.join(copy, file);
    fs.writeFileSync(abs, `${line}\n${fs.readFileSync(abs, 'utf8')}`);
  }

  // One run of the command (it parses every source file: seconds on a busy machine) with three
  // planted breaches; the unplanted repository passes in the first test of this file.
  test('fails on a planted wrong-way import, a planted eager import of koffi and of the orchestrator', () => {
    plant('src/scenario/plan.ts', "import '../audit/report';");
    plant('src/acl/stream.ts', "import 'koffi';");
    plant('src/scenario/run.ts', "import '../orchestrator/run-roles';");
    const r = checkBoundaries();
    expect(r.status).toBe(1);
    expect(r.output).toContain('boundaries: 4 problem(s)');
    expect(r.output).toContain('src/scenario/plan.ts:1 imports "../audit/report": src/scenario');
    // koffi, from both entries of its rule (src/acl and the public API that reaches it).
    expect(r.output).toContain('src/acl/index.ts loads koffi as soon as it is loaded');
    expect(r.output).toContain('src/acl/stream.ts:1 imports package "koffi"');
    expect(r.output).toContain('src/index.ts loads src/orchestrator/run-roles.ts as soon as it is loaded, which the load rule "a device process never loads the orchestrator" forbids');
    expect(r.output).toContain('src/scenario/run.ts:1 imports "../orchestrator/run-roles"');
  });
});
