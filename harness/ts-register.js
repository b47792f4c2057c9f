/**
 * `node -r harness/ts-register.js`: esbuild-register (TypeScript without a build step) with its
 * transforms cached on disk. Preloaded by every device process and precheck child.
 *
 * Why: esbuild starts a worker thread and its own service process on the first transform, which
 * costs 130-170 ms per process (more on a loaded 2-core CI machine), before any per-file cost.
 * Device processes load the same few dozen files every time, so after the first run every
 * transform is a cache hit and esbuild is never started at all.
 *
 * How: esbuild-register is loaded as usual, except that its `require('esbuild')` receives an
 * object whose transformSync first looks in the cache. The key is a hash of esbuild's version, the
 * exact options esbuild-register passes (file name, tsconfig, banner, ...) and the source text, so
 * an edited file or a changed tsconfig is a miss, never a stale hit. Entries are written to a
 * temporary name and renamed, so concurrent processes never read half an entry. Any cache problem
 * (read-only tree, corrupt entry) falls back to a plain transform.
 */
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

const CACHE_DIR = path.resolve(__dirname, '..', 'node_modules', '.cache', 'cann-harness-ts');

function cachedTransformSync(esbuild) {
  let cacheUsable = true;
  try {
    fs.mkdirSync(CACHE_DIR, { recursive: true });
  } catch {
    cacheUsable = false;
  }
  return function transformSync(code, options) {
    if (!cacheUsable || typeof code !== 'string') return esbuild.transformSync(code, options);
    const key = crypto.createHash('sha256').update(`${esbuild.version}\0${JSON.stringify(options)}\0${code}`).digest('hex');
    const file = path.join(CACHE_DIR, `${key}.js`);
    try {
      return { code: fs.readFileSync(file, 'utf8'), map: '', warnings: [], mangleCache: undefined, legalComments: undefined };
    } catch {
      /* a miss: transform below */
    }
    const result = esbuild.transformSync(code, options);
    // Warnings are printed by esbuild-register on every load: keep such files out of the cache.
    if (!result.warnings || result.warnings.length === 0) {
      const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
      try {
        fs.writeFileSync(tmp, result.code);
        fs.renameSync(tmp, file);
      } catch {
        try {
          fs.unlinkSync(tmp);
        } catch {
          /* never written */
        }
      }
    }
    return result;
  };
}

const realLoad = Module._load;
Module._load = function load(request, parent, isMain) {
  const loaded = realLoad.call(this, request, parent, isMain);
  if (request !== 'esbuild') return loaded;
  // Everything else of esbuild stays as is (its exports are getters, so wrap rather than patch).
  const wrapped = Object.create(loaded);
  Object.defineProperty(wrapped, 'transformSync', { value: cachedTransformSync(loaded), enumerable: true });
  return wrapped;
};
try {
  require('esbuild-register');
} finally {
  Module._load = realLoad; // only esbuild-register's own require('esbuild') is redirected
}
