/**
 * Compiles a C fixture against the stub's headers, linked with -lascendcl but with no rpath: it
 * starts only when the harness gives it the library (LD_PRELOAD / LD_LIBRARY_PATH), which is the
 * point of the tests that use it.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from './run-child';

export const STUB_INCLUDE = path.join(repoRoot, 'native-stub', 'include');
export const STUB_LIB_DIR = path.join(repoRoot, 'native-stub', 'build', 'lib64');

export interface FixtureBuild {
  dir: string;
  /** Compiles `source` into <dir>/<name>; extra linker flags e.g. an rpath. Returns its path. */
  compile(source: string, name: string, ldflags?: string[]): string;
  /** A copy of the stub library in <dir>/<sub>/libascendcl.so (a decoy for rpath tests). */
  decoyLibrary(sub: string): string;
  remove(): void;
}

export function fixtureBuild(): FixtureBuild {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cann-native-fixture-'));
  return {
    dir,
    compile(source, name, ldflags = []) {
      const out = path.join(dir, name);
      execFileSync('cc', ['-std=c11', '-D_GNU_SOURCE', '-Wall', '-Wextra', '-Werror', `-I${STUB_INCLUDE}`, source, `-L${STUB_LIB_DIR}`, '-lascendcl', ...ldflags, '-o', out], {
        stdio: 'pipe',
      });
      return out;
    },
    decoyLibrary(sub) {
      const libDir = path.join(dir, sub);
      execFileSync('mkdir', ['-p', libDir]);
      const lib = path.join(libDir, 'libascendcl.so');
      copyFileSync(path.join(STUB_LIB_DIR, 'libascendcl.so'), lib);
      return lib;
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
