/**
 * ESLint (eslint.config.mjs) passes over the repository, and its type-aware rule sees a floating
 * promise (checked on a throwaway text, so the rule is seen failing). ESLint runs in a child
 * process: it loads its ESM config with import(), which Jest's module system does not run.
 * One child, one ESLint instance for both checks: its TypeScript project service builds the
 * program of the repository once (most of ESLint's time), and the throwaway text reuses it.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const REPO = path.resolve(__dirname, '..', '..');
const ESLINT_API = pathToFileURL(require.resolve('eslint')).href;

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

/** What `eslint .` and `eslint --stdin` report (the CLI's default formatter), and their error counts. */
interface Linted {
  repo: { errors: number; output: string };
  text: { errors: number; output: string };
}

// The same as `eslint .` and `eslint --stdin --stdin-filename src/trace/chrome-trace.ts` (exit 1 on an error).
const SCRIPT = `
const { ESLint } = await import(${JSON.stringify(ESLINT_API)});
const eslint = new ESLint({ cwd: ${JSON.stringify(REPO)} });
const formatter = await eslint.loadFormatter('stylish');
const report = async (results) => ({ errors: results.reduce((n, r) => n + r.errorCount + r.fatalErrorCount, 0), output: await formatter.format(results) });
const repo = await report(await eslint.lintFiles(['.']));
const text = await report(await eslint.lintText(${JSON.stringify(FLOATING)}, { filePath: ${JSON.stringify(path.join(REPO, 'src', 'trace', 'chrome-trace.ts'))} }));
process.stdout.write(JSON.stringify({ repo, text }));
`;

let linted: Linted;
beforeAll(() => {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: REPO, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`eslint failed to run (exit ${r.status}, ${r.error ?? r.signal ?? ''}):\n${r.stderr}`);
  linted = JSON.parse(r.stdout) as Linted;
}, 300_000); // minutes when the machine is busy

test('eslint finds nothing in the repository (npm run lint)', () => {
  expect(linted.repo.output).toBe('');
  expect(linted.repo.errors).toBe(0);
});

test('the type-aware rule catches a floating promise, and an unused disable comment fails', () => {
  expect(linted.text.errors).toBe(2);
  expect(linted.text.output).toMatch(/5:3\s+error\s+Promises must be awaited.*@typescript-eslint\/no-floating-promises/);
  expect(linted.text.output).toMatch(/6:3\s+error\s+Unused eslint-disable directive/);
});
