/**
 * Builds the stub on first use in an installed package: it needs both the stub's build (stub-build.ts)
 * and the library search (resolve.ts), which itself uses stub-build.ts; a file of its own keeps the
 * two free of a cycle.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resolveLibrary } from './resolve';
import { buildStub, isSourceCheckout, stubBuildDir } from './stub-build';
import { ENV, type Mode } from '../env';

/**
 * The first run of an installed package builds the stub when a run would need it and it is missing
 * (stub mode, or auto mode without real CANN), saying so in one line. Returns whether it built.
 */
export function buildStubIfNeeded(mode: Mode, say: (line: string) => void, env: NodeJS.ProcessEnv = process.env): boolean {
  if (isSourceCheckout || mode === 'real' || env[ENV.library]) return false;
  if (fs.existsSync(path.join(stubBuildDir(env), 'lib64', 'libascendcl.so'))) return false;
  if (mode === 'auto') {
    try {
      if (resolveLibrary({ mode: 'real', env }).mode === 'real') return false; // real CANN wins in auto mode
    } catch {
      /* no real CANN: the stub is needed */
    }
  }
  say(`building the CPU stub once for this version into ${stubBuildDir(env)} (\`npx cann-harness setup\` does this ahead of time)`);
  buildStub({ env });
  return true;
}
