/**
 * The whole project type-checks (`npm run typecheck`: tsc --noEmit over tsconfig.json, which
 * includes src, harness, specs, test, bench and tools). Jest's transform only strips types, so this
 * one run is where a type error in any file, a test file included, fails `npm test`; it names the
 * file, the line and tsc's message.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');

test('the project type-checks (npm run typecheck)', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', path.join(REPO, 'tsconfig.json')], { cwd: REPO, encoding: 'utf8', timeout: 170_000 });
  expect(`${r.stdout}${r.stderr}${r.error ?? ''}`).toBe('');
  expect(r.status).toBe(0);
}, 180_000);
