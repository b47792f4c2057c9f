/**
 * The one TypeScript transform of the harness: esbuild's `transformSync` (a supported, public API),
 * used by the device processes' require hook (src/ts-hook/ts-register.js) and, as a Jest transformer, by
 * the Jest preset and `cann-harness run`. So a spec file is compiled the same way in Jest and in
 * every device process that loads it again.
 *
 * Transforms are cached on disk: esbuild starts a worker thread and its own service process on the
 * first transform (130-170 ms per process, more on a loaded CI machine), and device processes load
 * the same files every time, so after the first run esbuild is not started at all. An entry is named
 * by a cheap hash (FNV-1a) of esbuild's version, the options and the file name, and holds that key
 * and the source text it was made from: a hit only when both equal the current ones exactly, so an
 * edited file (or a hash collision) is a miss, never a stale hit. (No node:crypto: it costs a device
 * process ~2 MiB.) Entries are written to a temporary name and renamed (concurrent processes never
 * read half an entry); any cache problem (read-only tree, corrupt entry) falls back to a plain transform.
 * The cache lives in the nearest node_modules/.cache/cann-harness-ts (the repository's own
 * node_modules in a source checkout, the user's project's when installed), or CANN_HARNESS_TS_CACHE.
 * It is created 0700; a cache directory someone else could write to is refused with an error.
 * Jest's own cache (jestCacheDir) is its jest/ folder, held to the same rules.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const NODE_TARGET = `node${process.versions.node.split('.')[0]}`;

function findCacheDir() {
  if (process.env.CANN_HARNESS_TS_CACHE) return path.resolve(process.env.CANN_HARNESS_TS_CACHE);
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (path.basename(dir) === 'node_modules') return path.join(dir, '.cache', 'cann-harness-ts');
  }
  // A source checkout: <repo>/src/ts-hook (or <repo>/dist/src/ts-hook) -> <repo>/node_modules.
  let root = path.resolve(__dirname, '..', '..');
  if (path.basename(root) === 'dist') root = path.dirname(root);
  return path.join(root, 'node_modules', '.cache', 'cann-harness-ts');
}

/**
 * Why `dir` must not be used as the cache, or null. Whatever is in an entry runs in the Jest process
 * and in every device process, so, as ssh with its keys, the harness refuses a directory that
 * anyone but the user could have written to: a symlink, another owner, or group/other write.
 */
function untrustedReason(dir, st) {
  if (st.isSymbolicLink()) return 'it is a symbolic link';
  if (!st.isDirectory()) return 'it is not a directory';
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && st.uid !== uid) return `it belongs to uid ${st.uid}, not to this user (uid ${uid})`;
  if ((st.mode & 0o022) !== 0) return `its mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')} lets group or others write to it`;
  return null;
}

let cacheDir; // undefined: not looked at yet; null: unusable
function usableCacheDir() {
  if (cacheDir !== undefined) return cacheDir;
  const dir = findCacheDir();
  let st;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    st = fs.lstatSync(dir);
  } catch {
    return (cacheDir = null); // read-only tree: transform without a cache
  }
  const why = untrustedReason(dir, st);
  if (why) {
    throw new Error(
      `cann-harness: refusing the TypeScript compile cache ${dir}: ${why}, and code stored there would run in ` +
        `every test process. Fix: use a directory only you can write (chmod go-w ${dir} if it is yours, or set ` +
        `CANN_HARNESS_TS_CACHE to a private directory), or remove it to start a fresh cache.`,
    );
  }
  return (cacheDir = dir);
}

/**
 * Makes `dir` (its parent exists) a directory of this user's alone, or accepts one that is: created
 * 0700 exclusively (mkdir fails on any name that exists), else refused as untrustedReason says.
 * Returns why it is refused, or null.
 */
function privateDirProblem(dir) {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if (e.code !== 'EEXIST') return `it could not be made (${e.code ?? e.message})`;
  }
  return untrustedReason(dir, fs.lstatSync(dir));
}

let jestDir;
/**
 * Jest's cacheDirectory for the preset and `cann-harness run`. Jest's default, $TMPDIR/jest_<uid>,
 * is used by Jest whoever made it, and Jest runs the transforms cached there (their only check is a
 * hash anyone can compute): a stranger who makes that folder first runs code in every test process.
 * Ours is the jest/ folder of the TypeScript cache (CANN_HARNESS_TS_CACHE moves both), or, when that
 * cannot be made (read-only tree), $TMPDIR/cann-harness-jest-<uid>; either is made 0700 exclusively
 * or refused when anyone but the user could have written to it.
 */
function jestCacheDir() {
  if (jestDir !== undefined) return jestDir;
  const base = usableCacheDir(); // throws for an untrusted TypeScript cache
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  const dir = base ? path.join(base, 'jest') : path.join(require('node:os').tmpdir(), `cann-harness-jest-${uid}`);
  const why = privateDirProblem(dir);
  if (why) {
    throw new Error(
      `cann-harness: refusing Jest's cache directory ${dir}: ${why}, and Jest runs the code it caches there in ` +
        `every test process. Fix: remove it (rm -r ${dir}) if it is not needed, or set CANN_HARNESS_TS_CACHE to a ` +
        `private directory (Jest's cache is its jest/ folder).`,
    );
  }
  return (jestDir = dir);
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

/** FNV-1a (32 bits) of a string's UTF-16 units, as 8 hex digits: names a cache entry, never decides a hit. */
function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * An entry: a header line "<key length> <source length>", then the key, the source and the code.
 * Returns the code when the entry was made from exactly this key and source, else undefined.
 */
function codeFromEntry(entry, key, source) {
  const eol = entry.indexOf('\n');
  if (eol < 0 || entry.slice(0, eol) !== `${key.length} ${source.length}`) return undefined;
  const start = eol + 1;
  if (entry.slice(start, start + key.length) !== key) return undefined;
  if (entry.slice(start + key.length, start + key.length + source.length) !== source) return undefined;
  return entry.slice(start + key.length + source.length);
}

let tmpCounter = 0;

/** CommonJS JavaScript for the TypeScript `code` of `filename`. */
function transformTypeScript(code, filename) {
  const options = optionsFor(filename);
  const dir = usableCacheDir();
  if (!dir) return loadEsbuild().transformSync(code, options).code;
  const key = `${esbuildVersion()}\0${JSON.stringify(options)}`; // the options hold the file name
  const file = path.join(dir, `${path.basename(filename)}-${fnv1a(key)}.entry`);
  try {
    const cached = codeFromEntry(fs.readFileSync(file, 'utf8'), key, code);
    if (cached !== undefined) return cached;
  } catch {
    /* a miss: transform below */
  }
  const result = loadEsbuild().transformSync(code, options);
  for (const w of result.warnings) process.stderr.write(`${filename}: warning: ${w.text}\n`);
  if (result.warnings.length === 0) writeWhole(file, `${key.length} ${code.length}\n${key}${code}${result.code}`);
  return result.code;
}

/**
 * Writes a cache file through a temporary name, so that readers see the old file or the whole new
 * one; returns whether it did. pid + thread + counter: unique among live writers. (worker_threads
 * only when writing, after a build or transform that costs far more.)
 */
function writeWhole(file, data) {
  const tmp = `${file}.${process.pid}.${require('node:worker_threads').threadId}.${++tmpCounter}.tmp`;
  try {
    fs.writeFileSync(tmp, data, { flag: 'wx' }); // a stale one of a dead writer: skip, and remove it
    fs.renameSync(tmp, file);
    return true;
  } catch {
    fs.rmSync(tmp, { force: true });
    return false;
  }
}

module.exports = {
  transformTypeScript,
  // For the device-process bundle cache (device-bundle-cache.js): the same directory, esbuild, naming and writes.
  usableCacheDir,
  // For the Jest preset: Jest's own cache, as private as ours.
  jestCacheDir,
  privateDirProblem,
  writeWhole,
  loadEsbuild,
  esbuildVersion,
  fnv1a,
  NODE_TARGET,
  // Jest's transformer interface (the preset's and `cann-harness run`'s transform).
  process(sourceText, sourcePath) {
    return { code: transformTypeScript(sourceText, sourcePath) };
  },
  getCacheKey(sourceText, sourcePath, options) {
    // node:crypto only here, in Jest: a device process never loads it.
    return require('node:crypto')
      .createHash('sha256')
      .update(`${esbuildVersion()}\0${sourcePath}\0${(options && options.configString) || ''}\0${sourceText}`)
      .digest('hex');
  },
};
