/**
 * Compares C files with their clang-formatted text, or rewrites them. The formatter is passed in
 * (the CLI loads @wasm-fmt/clang-format, an ES module), so this file stays plain CommonJS.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** clang-format's format(text, fileName, style): style is the text of a .clang-format file. */
export type Formatter = (text: string, fileName: string, style: string) => string;

export interface Unformatted {
  file: string;
  /** 1-based line of the first difference in the file as it is. */
  line: number;
  /** The differing lines as they are, then as clang-format wants them (a few of each). */
  actual: string[];
  expected: string[];
}

const HINT_LINES = 4;
/** How far (lines) to look for the end of the first changed block. */
const RESYNC_WINDOW = 40;

/** Where `actual` and `expected` first differ, and that block's lines (a few of each). */
export function firstDifference(file: string, actual: string, expected: string): Unformatted {
  const a = actual.split('\n');
  const e = expected.split('\n');
  let top = 0;
  while (top < a.length && top < e.length && a[top] === e[top]) top++;
  // The block ends where both texts agree again on two lines in a row (nearest such pair).
  let end: [number, number] = [Math.min(a.length, top + RESYNC_WINDOW), Math.min(e.length, top + RESYNC_WINDOW)];
  for (let i = top; i < end[0]; i++) {
    for (let j = top; j < end[1]; j++) {
      if (i + j >= end[0] + end[1]) break;
      if (a[i] === e[j] && a[i + 1] === e[j + 1]) end = [i, j];
    }
  }
  return {
    file,
    line: top + 1,
    actual: a.slice(top, Math.min(end[0], top + HINT_LINES)),
    expected: e.slice(top, Math.min(end[1], top + HINT_LINES)),
  };
}

/** The files (repo-relative) whose text is not what clang-format makes of it. */
export function findUnformatted(repo: string, files: string[], format: Formatter, style: string): Unformatted[] {
  const found: Unformatted[] = [];
  for (const file of files) {
    const text = fs.readFileSync(path.resolve(repo, file), 'utf8');
    const formatted = format(text, path.basename(file), style);
    if (formatted !== text) found.push(firstDifference(file, text, formatted));
  }
  return found;
}

/** Rewrites the files that are not formatted; returns their names. */
export function formatInPlace(repo: string, files: string[], format: Formatter, style: string): string[] {
  const changed: string[] = [];
  for (const file of files) {
    const full = path.resolve(repo, file);
    const text = fs.readFileSync(full, 'utf8');
    const formatted = format(text, path.basename(file), style);
    if (formatted === text) continue;
    fs.writeFileSync(full, formatted);
    changed.push(file);
  }
  return changed;
}

/** The report of a failed check: each file with its first difference, then the fix. */
export function describeUnformatted(found: Unformatted[], styleFile: string): string {
  const lines: string[] = [];
  for (const u of found) {
    lines.push(`${u.file}:${u.line}: not clang-formatted (${styleFile}); first difference:`);
    for (const l of u.actual) lines.push(`  - ${l === '' ? '(empty line)' : l}`);
    for (const l of u.expected) lines.push(`  + ${l === '' ? '(empty line)' : l}`);
  }
  lines.push(
    `${found.length} C file(s) not clang-formatted: run \`npm run format:c\` to rewrite them ` +
      `(\`git diff\` then shows every change), or fix the lines above by hand.`,
  );
  return lines.join('\n');
}
