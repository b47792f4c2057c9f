/**
 * The package tests (test/package/*) run the repository's compiled dist/ (built by `npm ci`'s
 * prepare, or `npm run build:js`) instead of compiling their own copy. So that they never test an
 * old build by accident: dist/ must be newer than every source file it is compiled from.
 */
import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
/** What `npm run build:js` compiles and bundles, and how. */
const SOURCES = ['src', 'harness', 'tools/bundle', 'tsconfig.build.json', 'tsconfig.json'];
/** The last file `npm run build:js` writes. */
export const DIST_BUNDLE = path.join(repoRoot, 'dist', 'harness', 'device-process.bundle.js');

function newestSource(entry: string): { file: string; mtimeMs: number } | null {
  const st = statSync(entry, { throwIfNoEntry: false });
  if (!st) return null;
  if (!st.isDirectory()) return { file: entry, mtimeMs: st.mtimeMs };
  let best: { file: string; mtimeMs: number } | null = null;
  for (const name of readdirSync(entry)) {
    if (name.endsWith('.md')) continue; // documentation is not compiled
    const found = newestSource(path.join(entry, name));
    if (found && (!best || found.mtimeMs > best.mtimeMs)) best = found;
  }
  return best;
}

/** Throws, naming the fix, when dist/ is missing or older than a source file. */
export function assertFreshDist(): void {
  const bundle = statSync(DIST_BUNDLE, { throwIfNoEntry: false });
  if (!bundle) throw new Error(`${DIST_BUNDLE} is missing: run \`npm run build:js\` (it bundles the device process after tsc)`);
  for (const source of SOURCES) {
    const newest = newestSource(path.join(repoRoot, source));
    if (newest && newest.mtimeMs > bundle.mtimeMs) {
      throw new Error(`dist/ is older than ${path.relative(repoRoot, newest.file)}: run \`npm run build:js\` before the package tests (they test the compiled package in dist/)`);
    }
  }
}
