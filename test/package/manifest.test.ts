/**
 * package.json as npm publishes it: publishable (no "private"), the Node range declared. That the
 * tarball holds only what users need is checked on the tarball itself, in pack-install.test.ts
 * (one `npm pack` for both).
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Record<string, unknown>;

test('npm publish is not refused: no "private"; Node, OS and CPU declared; a bin and typed exports', () => {
  expect(manifest.private).toBeUndefined();
  expect(manifest.engines).toEqual({ node: expect.stringMatching(/^>=20/) });
  // Linux only, like CANN and the stub (/dev/shm, /proc): npm refuses elsewhere with EBADPLATFORM.
  expect(manifest.os).toEqual(['linux']);
  expect(manifest.cpu).toEqual(['x64', 'arm64']);
  expect(manifest.bin).toEqual({ 'cann-harness': 'bin/cann-harness.js' });
  expect((manifest.exports as Record<string, unknown>)['.']).toEqual({ types: './dist/src/index.d.ts', default: './dist/src/index.js' });
});

test('the LICENSE file holds the terms the manifest names (Apache-2.0)', () => {
  expect(manifest.license).toBe('Apache-2.0');
  const text = readFileSync(path.join(repoRoot, 'LICENSE'), 'utf8');
  expect(text).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
  expect(text).toContain('END OF TERMS AND CONDITIONS');
});

const packable = existsSync(path.join(repoRoot, 'dist', 'src', 'index.js')) ? test : test.skip; // dist/ comes from `npm ci` (prepare)

packable("the HTML reporter is exported as 'cann-ipc-harness/html' (reporters: ['default', 'cann-ipc-harness/html']), and shipped", () => {
  const html = (manifest.exports as Record<string, { default: string; types: string }>)['./html'];
  expect(html).toEqual({ types: './dist/src/report/html/reporter.d.ts', default: './dist/src/report/html/reporter.js' });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const reporter = require(path.join(repoRoot, html.default)) as { default: unknown };
  expect(typeof reporter.default).toBe('function'); // Jest takes a module's default export as the reporter class
  expect(existsSync(path.join(repoRoot, html.types))).toBe(true);
});
