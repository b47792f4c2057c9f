/**
 * `cann-harness flags [--cflags] [--libs] [--no-harness]`: compiler and linker flags for a native
 * role, pkg-config style, for the active mode's libascendcl.so (the stub's headers and build, or
 * CANN's include and lib64 folders), and the harness's C API (cannharness.h, -lcannharness): the
 * documented one-liner builds a role that uses it. A Makefile: `FLAGS = $(shell npx cann-harness flags --cflags --libs)`.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { resolveLibrary } from '../acl/resolve';
import { stubBuildDir } from '../acl/stub-build';
import type { ResolvedMode, Mode } from '../env';
import { NATIVE_STUB_DIR } from '../paths';
import { UsageError } from './run';

export interface FlagsOptions {
  mode: Mode;
  cflags?: boolean;
  libs?: boolean;
  /** The harness's C API (cannharness.h, libcannharness.so) too; default true (`--no-harness`: false). */
  harness?: boolean;
}

/** The harness's own headers (cannharness.h, cannharness_kernel.h), for the stub and real CANN alike. */
export const HARNESS_INCLUDE_DIR = path.join(NATIVE_STUB_DIR, 'harness', 'include');

/** The include folder that holds acl/acl.h for a libascendcl.so at `library`. */
export function includeDirFor(library: string, mode: ResolvedMode): string {
  if (mode === 'stub') return path.join(NATIVE_STUB_DIR, 'include');
  // CANN: <root>/lib64/libascendcl.so with <root>/include/acl/acl.h (also <root>/runtime/..., <arch>-linux/...).
  const libDir = path.dirname(library);
  for (let dir = path.dirname(libDir), i = 0; i < 3; dir = path.dirname(dir), i++) {
    const inc = path.join(dir, 'include');
    if (existsSync(path.join(inc, 'acl', 'acl.h'))) return inc;
  }
  throw new UsageError(`no include/acl/acl.h found near ${library} (looked in the three folders above ${libDir}): is the CANN toolkit (with headers) installed there?`);
}

export function flagsCommand(opts: FlagsOptions): string {
  let choice;
  try {
    choice = resolveLibrary({ mode: opts.mode });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const both = !opts.cflags && !opts.libs;
  const harness = opts.harness !== false; // a program that does not use it links it for nothing, harmlessly
  const libDir = path.dirname(choice.path);
  const out: string[] = [];
  if (opts.cflags || both) {
    out.push(`-I${includeDirFor(choice.path, choice.mode)}`);
    if (harness) out.push(`-I${HARNESS_INCLUDE_DIR}`);
  }
  if (opts.libs || both) {
    out.push(`-L${libDir}`, '-lascendcl', `-Wl,-rpath,${libDir}`);
    if (harness) {
      const own = path.join(stubBuildDir(), 'lib64');
      out.push(`-L${own}`, '-lcannharness', `-Wl,-rpath,${own}`);
    }
  }
  return [...new Set(out)].join(' ');
}
