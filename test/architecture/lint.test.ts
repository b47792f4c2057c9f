/**
 * The whole project type-checks (`npm run typecheck`: tsc --noEmit over tsconfig.json, which
 * includes src, harness, specs, test, bench and tools), ESLint (eslint.config.mjs) passes over the
 * repository (`npm run lint`), and ESLint's type-aware rule sees a floating promise (checked on a
 * throwaway text, so the rule is seen failing).
 *
 * Jest's transform only strips types, so this is where a type error in any file, a test file
 * included, fails `npm test`. Both checks need the TypeScript program of tsconfig.json, and
 * building it is most of their time: one child process builds it once, takes tsc's diagnostics
 * from it (what `tsc --noEmit` reports: options, syntax, global and semantic), and hands it to
 * ESLint (parserOptions.programs) in place of the project service, which would build it again.
 * The throwaway text gets a program of its own made from the first (its unchanged files reused).
 * A child process: ESLint loads its ESM config with import(), which Jest's module system does not run.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const REPO = path.resolve(__dirname, '..', '..');
const ESLINT_API = pathToFileURL(require.resolve('eslint')).href;
const TYPESCRIPT = require.resolve('typescript');
// Not on disk: only the probe's program has it, with the text below.
const PROBE_FILE = path.join(REPO, 'src', 'trace', 'floating-promise-probe.ts');

const FLOATING = [
  'export async function later(): Promise<number> {',
  '  return 1;',
  '}',
  'export function caller(): void {',
  '  later();',
  '  // eslint-disable-next-line @typescript-eslint/no-namespace',
  '  const x = 1;',
  '  void x;',
  '}',
  '',
].join('\n');

/** tsc's report; what `eslint .` and `eslint --stdin` report (the CLI's default formatter), and their error counts. */
interface Checked {
  typecheck: { count: number; output: string };
  repo: { errors: number; output: string };
  text: { errors: number; output: string };
}

const SCRIPT = `
const ts = require(${JSON.stringify(TYPESCRIPT)});
const { ESLint } = await import(${JSON.stringify(ESLINT_API)});
const REPO = ${JSON.stringify(REPO)};
const parsed = ts.getParsedCommandLineOfConfigFile(require('node:path').join(REPO, 'tsconfig.json'), {}, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\\n')); },
});
const host = ts.createCompilerHost(parsed.options, true);
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, host, projectReferences: parsed.projectReferences, configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed) });
const diagnostics = ts.getPreEmitDiagnostics(program);
const typecheck = { count: diagnostics.length, output: ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => REPO, getNewLine: () => '\\n' }) };
// The probe: the same options, one root file that exists only here; the repository's files come from the first program.
const PROBE = ${JSON.stringify(PROBE_FILE)}, PROBE_TEXT = ${JSON.stringify(FLOATING)};
const probeHost = { ...host,
  fileExists: (f) => f === PROBE || host.fileExists(f),
  readFile: (f) => (f === PROBE ? PROBE_TEXT : host.readFile(f)),
  getSourceFile: (f, ...rest) => (f === PROBE ? ts.createSourceFile(f, PROBE_TEXT, ts.ScriptTarget.Latest, true) : host.getSourceFile(f, ...rest)),
};
const probe = ts.createProgram({ rootNames: [PROBE], options: parsed.options, host: probeHost, oldProgram: program });
// The same as \`eslint .\` and \`eslint --stdin --stdin-filename <probe>\` (exit 1 on an error), with the programs above.
const eslint = new ESLint({ cwd: REPO, overrideConfig: { languageOptions: { parserOptions: { projectService: false, programs: [program, probe] } } } });
const formatter = await eslint.loadFormatter('stylish');
const report = async (results) => ({ errors: results.reduce((n, r) => n + r.errorCount + r.fatalErrorCount, 0), output: await formatter.format(results) });
const repo = await report(await eslint.lintFiles(['.']));
const text = await report(await eslint.lintText(PROBE_TEXT, { filePath: PROBE }));
process.stdout.write(JSON.stringify({ typecheck, repo, text }));
`;

let checked: Checked;
beforeAll(() => {
  // CommonJS module code with top-level await is not allowed: an async function, its rejection printed.
  const main = `(async () => {${SCRIPT}})().catch((e) => { console.error(e); process.exitCode = 1; });`;
  const r = spawnSync(process.execPath, ['-e', main], { cwd: REPO, encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`tsc and eslint failed to run (exit ${r.status}, ${r.error ?? r.signal ?? ''}):\n${r.stderr}`);
  checked = JSON.parse(r.stdout) as Checked;
}, 300_000); // minutes when the machine is busy

test('the project type-checks (npm run typecheck)', () => {
  expect(checked.typecheck.output).toBe('');
  expect(checked.typecheck.count).toBe(0);
});

test('eslint finds nothing in the repository (npm run lint)', () => {
  expect(checked.repo.output).toBe('');
  expect(checked.repo.errors).toBe(0);
});

test('the type-aware rule catches a floating promise, and an unused disable comment fails', () => {
  expect(checked.text.errors).toBe(2);
  expect(checked.text.output).toMatch(/5:3\s+error\s+Promises must be awaited.*@typescript-eslint\/no-floating-promises/);
  expect(checked.text.output).toMatch(/6:3\s+error\s+Unused eslint-disable directive/);
});
