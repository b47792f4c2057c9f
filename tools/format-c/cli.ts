/**
 * `npm run check:format-c` (check, the default) and `npm run format:c` (`--write`): clang-format
 * over the stub's C sources (tools/format-c/files.ts), with native-stub/.clang-format. The check
 * also runs in `npm test` (test/architecture/format-c.test.ts).
 *
 *   cli.ts [--check | --write] [FILE...]     FILE: limit to these files (default: all of them)
 *
 * clang-format is @wasm-fmt/clang-format (WebAssembly, no install script, no system clang-format).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeUnformatted, findUnformatted, formatInPlace, type Formatter } from './check';
import { listCFiles, STYLE_FILE } from './files';

const USAGE = 'usage: cli.ts [--check | --write] [FILE...]';

/** Repo-relative inside the repository, absolute outside it. */
function shownPath(repo: string, file: string): string {
  const rel = path.relative(repo, path.resolve(file));
  return rel.startsWith('..') || path.isAbsolute(rel) ? path.resolve(file) : rel;
}

async function main(argv: string[]): Promise<number> {
  const repo = path.resolve(__dirname, '..', '..');
  const unknown = argv.filter((a) => a.startsWith('-') && a !== '--check' && a !== '--write');
  if (unknown.length > 0 || (argv.includes('--check') && argv.includes('--write'))) {
    console.error(`format-c: ${unknown.length ? `unknown option ${unknown.join(' ')}` : '--check and --write exclude each other'}\n${USAGE}`);
    return 2;
  }
  const write = argv.includes('--write');
  const named = argv.filter((a) => !a.startsWith('-'));
  const missing = named.filter((f) => !fs.existsSync(f));
  if (missing.length > 0) {
    console.error(`format-c: no such file: ${missing.join(', ')}\n${USAGE}`);
    return 2;
  }
  const files = named.length > 0 ? named.map((f) => shownPath(repo, f)) : listCFiles(repo);
  const style = fs.readFileSync(path.join(repo, STYLE_FILE), 'utf8');
  const { format }: { format: Formatter } = await import('@wasm-fmt/clang-format');

  if (write) {
    const changed = formatInPlace(repo, files, format, style);
    for (const f of changed) console.log(`formatted ${f}`);
    console.log(`format-c: ${changed.length} of ${files.length} C file(s) rewritten (${STYLE_FILE})`);
    return 0;
  }
  const found = findUnformatted(repo, files, format, style);
  if (found.length > 0) {
    console.error(describeUnformatted(found, STYLE_FILE));
    return 1;
  }
  console.log(`format-c: ${files.length} C file(s) clang-formatted (${STYLE_FILE})`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`format-c: ${err instanceof Error ? err.stack : String(err)}`);
    process.exitCode = 2;
  },
);
