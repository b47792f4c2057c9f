/**
 * Where the harness's own files are, in one place: the package root, the code root (the checkout,
 * or dist/ in the compiled package), the harness entry points, the Jest hooks and the stub's
 * sources. Paths are absolute and follow this file's own extension, so the same code serves a
 * source checkout (.ts, run through the TypeScript hook) and the compiled package (.js).
 * A foundation part (tools/boundaries/rules.ts): every part may import it; it imports nothing.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** '.ts' in a source checkout (tests, the repository's CLI), '.js' in the compiled package. */
export const OWN_EXTENSION = path.extname(__filename);

declare const DEVICE_PROCESS_BUNDLE: true | undefined;
/**
 * This module's folder as tsc lays it out (src/paths, dist/src/paths). Inside the device-process
 * bundle (dist/harness/device-process.bundle.js, whose build defines DEVICE_PROCESS_BUNDLE),
 * __dirname is the bundle's folder, dist/harness.
 */
const PATHS_DIR = typeof DEVICE_PROCESS_BUNDLE === 'undefined' ? __dirname : path.join(__dirname, '..', 'src', 'paths');

/** Where src/ and harness/ are: the checkout, or <package>/dist when compiled. */
export const CODE_ROOT = path.resolve(PATHS_DIR, '..', '..');
export const SRC_DIR = path.join(CODE_ROOT, 'src');
export const HARNESS_DIR = path.join(CODE_ROOT, 'harness');

/** The package root: the folder of our package.json (from src/ or dist/src/, installed or not). */
export const PACKAGE_ROOT: string = findPackageRoot(PATHS_DIR);

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'cann-ipc-harness') return dir;
    } catch {
      /* no package.json here; keep walking up */
    }
    if (path.dirname(dir) === dir) return path.resolve(start, '..', '..');
  }
}

/** A git checkout of this repository (TypeScript sources present), as opposed to an installed package. */
export const IS_SOURCE_CHECKOUT: boolean = fs.existsSync(path.join(PACKAGE_ROOT, 'src', 'index.ts'));

/** The stub's C sources and Makefile (shipped with the package; built in place only in a checkout). */
export const NATIVE_STUB_DIR = path.join(PACKAGE_ROOT, 'native-stub');

/** A harness entry point (harness/<name>.ts or .js) by absolute path. */
export function harnessScript(name: string): string {
  return path.join(HARNESS_DIR, `${name}${OWN_EXTENSION}`);
}

/**
 * The script a device process runs: in a source checkout harness/device-launch.js, which runs
 * harness/device-process.ts from a cached bundle of the harness's modules
 * (src/ts-hook/device-bundle-cache.js); in the compiled package the bundle of it with the role entry
 * and the public index (tools/bundle/build.js).
 */
export const DEVICE_PROCESS_SCRIPT = OWN_EXTENSION === '.ts' ? path.join(HARNESS_DIR, 'device-launch.js') : path.join(HARNESS_DIR, 'device-process.bundle.js');

/** A module under src/ (e.g. 'jest/setup') by absolute path, with the running code's extension. */
export function srcModule(relative: string): string {
  return path.join(SRC_DIR, `${relative}${OWN_EXTENSION}`);
}

/**
 * The TypeScript require hook of child processes (src/ts-hook/ts-register.js), by absolute path so
 * children work whatever their cwd: user specs are TypeScript even with the compiled package.
 */
export const TS_REGISTER = path.join(SRC_DIR, 'ts-hook', 'ts-register.js');

/** The Jest transform: plain JavaScript, the same transform the device processes use for spec files. */
export const TYPESCRIPT_TRANSFORM = path.join(SRC_DIR, 'ts-hook', 'typescript-transform.js');
