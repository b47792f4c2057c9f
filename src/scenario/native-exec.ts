/**
 * Where a native role's (or a precheck's) program is: `exec[0]` with a '/' is a path relative to
 * the spec file's folder (or absolute); a bare name is looked up on PATH, as a shell would.
 * Checked when the scenario runs (after its `build:`), so a missing program is one clear error.
 */
import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';

export class NativeProgramError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NativeProgramError';
  }
}

function executableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute path of `program`, or a NativeProgramError naming what was tried and the fix. */
export function resolveProgram(program: string, specDir: string, what: string, env: NodeJS.ProcessEnv = process.env): string {
  if (program.includes('/')) {
    const file = path.resolve(specDir, program);
    if (executableFile(file)) return file;
    let why = 'does not exist';
    try {
      why = statSync(file).isFile() ? 'is not executable (chmod +x it)' : 'is not a file';
    } catch {
      /* does not exist */
    }
    throw new NativeProgramError(
      `${what}: program ${JSON.stringify(program)} ${why}: looked for ${file} (paths are relative to the spec file's folder ${specDir}); ` +
        `build it first (e.g. build: 'make -C native' on the scenario) or fix the path`,
    );
  }
  const dirs = (env.PATH ?? '').split(':').filter(Boolean);
  for (const d of dirs) {
    const file = path.resolve(d, program);
    if (executableFile(file)) return file;
  }
  throw new NativeProgramError(
    `${what}: program ${JSON.stringify(program)} is not on PATH (${dirs.length} folders searched); ` +
      `a program next to the spec needs a path with a slash: exec: ['./${program}']`,
  );
}
