/**
 * Entry of the compiled package's device-process bundle (dist/harness/device-process.bundle.js,
 * built by tools/bundle/build.js in `npm run build:js`): the device process, the scenario role
 * entry and the public index in one file, so a device process compiles one file instead of ~60.
 *
 * One library instance: a spec loaded here does `require('cann-ipc-harness')`, which Node resolves
 * to <package>/dist/src/index.js. Before any spec is loaded, that file's entry in require.cache (and
 * the role entry's, which the parent names as the role module) is filled with this bundle's own
 * exports, so the spec gets the same scenario registry and the same AclError class as the harness
 * (adding entries to require.cache is documented Node API). Without it the spec would load a second
 * copy of the library from dist/src.
 * Worker threads (harness/scenario/threads/worker.js) stay unbundled: each has its own module
 * registry anyway, and loads the compiled files once there.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import './device-process'; // first: its parent watch guards against orphaning as early as possible
import * as library from '../src/index';
import * as roleEntry from './scenario/role-entry';
import { harnessScript, srcModule } from '../src/paths';

/** Makes `require(<file>)` return `exports` (the key is the real path, as Node resolves it). */
function seedRequireCache(file: string, exports: object): void {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    throw new Error(`device-process bundle: ${file} is missing; rebuild the package (npm run build:js)`);
  }
  require.cache[real] = { id: real, filename: real, path: path.dirname(real), loaded: true, exports, children: [], paths: [] } as unknown as NodeJS.Module;
}

seedRequireCache(srcModule('index'), library);
seedRequireCache(harnessScript('scenario/role-entry'), roleEntry);
