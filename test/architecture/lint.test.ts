/**
 * ESLint (eslint.config.mjs) passes over the repository, and its type-aware rule sees a floating
 * promise (checked on a throwaway text, so the rule is seen failing). ESLint runs in a child
 * process: it loads its ESM config with import(), which Jest's module system does not run.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');
const ESLINT = path.join(path.dirname(require.resolve('eslint/package.json')), 'bin', 'eslint.js');

function eslint(args: string[], stdin?: string): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [ESLINT, ...args], { cwd: REPO, input: stdin, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

test('eslint finds nothing in the repository (npm run lint)', () => {
  const r = eslint(['.']);
  expect(r.output).toBe('');
  expect(r.status).toBe(0);
}, 120_000);

test('the type-aware rule catches a floating promise, and an unused disable comment fails', () => {
  const code = [
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
  const r = eslint(['--stdin', '--stdin-filename', 'src/trace/chrome-trace.ts'], code);
  expect(r.status).toBe(1);
  expect(r.output).toMatch(/5:3\s+error\s+Promises must be awaited.*@typescript-eslint\/no-floating-promises/);
  expect(r.output).toMatch(/6:3\s+error\s+Unused eslint-disable directive/);
}, 120_000);
