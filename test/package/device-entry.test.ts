/**
 * Every device process loads the user's spec, and with it `cann-ipc-harness`: the package's index
 * must stay lean there (no reporting code, no chalk, no koffi until a role touches ctx.acl).
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');

function modulesLoadedBy(code: string): string[] {
  const script = `${code}; process.stdout.write(JSON.stringify(Object.keys(require.cache)))`;
  const out = execFileSync(process.execPath, ['-r', path.join(repoRoot, 'src', 'ts-hook', 'ts-register.js'), '-e', script], { cwd: repoRoot, encoding: 'utf8' });
  return (JSON.parse(out) as string[]).map((f) => path.relative(repoRoot, f));
}

test('importing the package index loads no reporting code, chalk, trace analysis or koffi', () => {
  const loaded = modulesLoadedBy("require('./src')");
  expect(loaded).toContain('src/scenario/scenario.ts'); // it did load the index
  expect(loaded.filter((f) => /^src\/(report|trace)\/|node_modules\/(chalk|koffi|jest)/.test(f))).toEqual([]);
});

test('formatScenarioFailure is still exported, loading the report on first use', () => {
  const loaded = modulesLoadedBy(
    "const h = require('./src'); const text = h.formatScenarioFailure('demo', { ok: false, dir: '/x', kept: false, timedOut: false, durationMs: 1, summary: '', roles: [] }); if (!text.includes('demo')) throw new Error(text)",
  );
  expect(loaded).toContain('src/report/failure.ts');
});
