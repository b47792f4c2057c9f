/**
 * The C sources that clang-format owns: every .c, .h and .cpp under native-stub/, except build output
 * (build/, build-asan/, build-tsan/, build-analyze/) and hidden folders.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const STUB_DIR = 'native-stub';
/** The one style file for all of them (editors find it too: it is their nearest .clang-format). */
export const STYLE_FILE = path.join(STUB_DIR, '.clang-format');

const C_FILE = /\.(c|h|cpp)$/;
const SKIPPED_DIR = /^(build|\.)/;

/** Repo-relative paths (forward slashes), sorted. */
export function listCFiles(repo: string): string[] {
  const found: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(repo, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory() && !SKIPPED_DIR.test(entry.name)) walk(child);
      else if (entry.isFile() && C_FILE.test(entry.name)) found.push(child);
    }
  };
  walk(STUB_DIR);
  return found.sort();
}
