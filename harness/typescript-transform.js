/**
 * The one TypeScript transform of the harness: esbuild's `transformSync` (a supported, public API),
 * used by the device processes' require hook (harness/ts-register.js) and, as a Jest transformer, by
 * the Jest preset and `cann-harness run`. So a spec file is compiled the same way in Jest and in
 * every device process that loads it again.
 *
 * Transforms are cached on disk: esbuild starts a worker thread and its own service process on the
 * first transform (130-170 ms per process, more on a loaded CI machine), and device processes load
 * the same files every time, so after the first run esbuild is not started at all. The key is a hash
 * of esbuild's version, the options and the source text: an edited file is a miss, never a stale hit.
 * Entries are written to a temporary name and renamed (concurrent processes never read half an
 * entry); any cache problem (read-only tree, corrupt entry) falls back to a plain transform.
 * The cache lives in the nearest node_modules/.cache/cann-harness-ts (the repository's own
 * node_modules in a source checkout, the user's project's when installed).
 */
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const NODE_TARGET = `node${process.versions.node.split('.')[0]}`;

function findCacheDir() {
  if (process.env.CANN_HARNESS_TS_CACHE) return path.resolve(process.env.CANN_HARNESS_TS_CACHE);
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (path.basename(dir) === 'node_modules') return path.join(dir, '.cache', 'cann-harness-ts');
  }
  // A source checkout: <repo>/harness (or <repo>/dist/harness) -> <repo>/node_modules.
  let root = path.resolve(__dirname, '..');
  if (path.basename(root) === 'dist') root = path.dirname(root);
  return path.join(root, 'node_modules', '.cache', 'cann-harness-ts');
}

let cacheDir; // undefined: not looked at yet; null: unusable
function usableCacheDir() {
  if (cacheDir !== undefined) return cacheDir;
  cacheDir = findCacheDir();
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
  } catch {
    cacheDir = null;
  }
  return cacheDir;
}

let esbuild;
function loadEsbuild() {
  esbuild ??= require('esbuild'); // only on a cache miss: a warm run never starts esbuild's service
  return esbuild;
}

function esbuildVersion() {
  try {
    return require('esbuild/package.json').version;
  } catch {
    return loadEsbuild().version;
  }
}

function optionsFor(filename) {
  return {
    loader: filename.endsWith('.tsx') ? 'tsx' : 'ts',
    format: 'cjs',
    target: NODE_TARGET,
    sourcefile: filename,
    sourcemap: 'inline', // stack traces point at the TypeScript lines (Node and Jest read it)
  };
}

/** CommonJS JavaScript for the TypeScript `code` of `filename`. */
function transformTypeScript(code, filename) {
  const options = optionsFor(filename);
  const dir = usableCacheDir();
  if (!dir) return loadEsbuild().transformSync(code, options).code;
  const key = crypto.createHash('sha256').update(`${esbuildVersion()}\0${JSON.stringify(options)}\0${code}`).digest('hex');
  const file = path.join(dir, `${key}.js`);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    /* a miss: transform below */
  }
  const result = loadEsbuild().transformSync(code, options);
  for (const w of result.warnings) process.stderr.write(`${filename}: warning: ${w.text}\n`);
  if (result.warnings.length === 0) {
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    try {
      fs.writeFileSync(tmp, result.code);
      fs.renameSync(tmp, file);
    } catch {
      fs.rmSync(tmp, { force: true });
    }
  }
  return result.code;
}

module.exports = {
  transformTypeScript,
  // Jest's transformer interface (the preset's and `cann-harness run`'s transform).
  process(sourceText, sourcePath) {
    return { code: transformTypeScript(sourceText, sourcePath) };
  },
  getCacheKey(sourceText, sourcePath, options) {
    return crypto
      .createHash('sha256')
      .update(`${esbuildVersion()}\0${sourcePath}\0${(options && options.configString) || ''}\0${sourceText}`)
      .digest('hex');
  },
};
