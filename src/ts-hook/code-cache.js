/**
 * Runs a CommonJS module from a V8 code cache: the device bundle of a source checkout
 * (device-bundle-cache.js; the compiled package's bundle is loaded by Node as it is).
 * Compiling the ~220 KB bundle, and then each of its functions on first call, is the largest part of
 * what a device process spends on top of bare Node; V8 deserialises a code cache of the same code
 * for a fraction of that. Node 20 has no module.enableCompileCache, so this compiles the module as
 * Module._compile does, but with vm.Script and its `cachedData`.
 *
 * V8 checks only a cache's V8 version, flags and the LENGTH of the source, never its text: a cache
 * of other code of the same length would run that other code. So a cache file holds the exact code
 * it was made from and is used only when that equals the code to run, byte for byte (and its key:
 * Node, V8, architecture and flags). It is made after the module ran, at exit (createCachedData then
 * holds the functions compiled lazily while it ran, most of the work), by the first process that
 * finds no usable one (or one V8 rejected), and written like the TypeScript cache's entries
 * (writeWhole: a temporary file created exclusively, renamed into place). It lives in that same
 * trusted directory (usableCacheDir: owned by the user, no one else can write to it), and a cache
 * file is read only when it is a regular file of this user, opened without following a link.
 * Anything else (no cache, unreadable, another code) compiles the plain way.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');
const { writeWhole, fnv1a } = require('./typescript-transform');

/** Changes with the file format or the way the code is wrapped. */
const FORMAT = 'v8-code-cache-1';
/**
 * Module's wrapper, with the code from the second line on: lineOffset -1 gives the code its own line
 * and column numbers (the source map's), as Module._compile's compileFunction does.
 */
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) {\n';
const WRAPPER_TAIL = '\n})';

/** What a cache is valid for besides its code: V8 rejects a cache of another version or other flags, and the name keeps such processes from replacing each other's. */
function cacheKey() {
  return `${FORMAT}\0${process.version}\0${process.versions.v8}\0${process.arch}\0${process.execArgv.join('\0')}\0${process.env.NODE_OPTIONS ?? ''}`;
}

/** The file's bytes when it is a regular file of this user (not followed through a link), else undefined. */
function readOwnFile(file) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return undefined; // none yet, or a symbolic link (ELOOP)
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) return undefined;
    return fs.readFileSync(fd); // a cut-short file fails the comparison of its header, key and code
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** The header line of a cache file: the lengths of the key and of the code, in bytes. */
function headerLine(keyBytes, codeBytes) {
  return `${keyBytes.length} ${codeBytes.length}\n`;
}

/** The V8 data of `file` when it was made with `keyBytes` from exactly `codeBytes` (a header line, the key, the code, the data), else undefined. */
function cachedDataFor(file, keyBytes, codeBytes) {
  const bytes = readOwnFile(file);
  if (bytes === undefined) return undefined;
  const header = Buffer.from(headerLine(keyBytes, codeBytes));
  const keyEnd = header.length + keyBytes.length;
  const codeEnd = keyEnd + codeBytes.length;
  const same = (part, start, end) => part.equals(bytes.subarray(start, end));
  if (!same(header, 0, header.length) || !same(keyBytes, header.length, keyEnd) || !same(codeBytes, keyEnd, codeEnd)) return undefined;
  return bytes.subarray(codeEnd);
}

/**
 * Runs `code` (whose bytes are `codeBytes`: ASCII, as the bundles are) as the body of `module`,
 * as Module._compile would, with the V8 data of the cache file `<dir>/<name>-<hash of the key>.v8cache`
 * when it holds exactly this code; without `dir`, compiles it plainly. Returns whether V8 took its code from the cache.
 */
function runWithCodeCache(module, code, codeBytes, dir, name) {
  const key = cacheKey();
  const keyBytes = Buffer.from(key);
  const file = dir ? path.join(dir, `${name}-${fnv1a(key)}.v8cache`) : undefined;
  const cachedData = file ? cachedDataFor(file, keyBytes, codeBytes) : undefined;
  const options = { filename: module.filename, lineOffset: -1, cachedData };
  if (vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER) options.importModuleDynamically = vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER; // import() as in Module._compile
  const script = new vm.Script(WRAPPER_HEAD + code + WRAPPER_TAIL, options);
  const fromCache = cachedData !== undefined && !script.cachedDataRejected;
  if (file && !fromCache && require('node:worker_threads').isMainThread) {
    // At exit, so that the data holds what the process compiled while it ran; once: the next process finds it.
    process.once('exit', () => {
      try {
        writeWhole(file, Buffer.concat([Buffer.from(headerLine(keyBytes, codeBytes)), keyBytes, codeBytes, script.createCachedData()]));
      } catch {
        /* the next process makes it */
      }
    });
  }
  const wrapper = script.runInThisContext({ displayErrors: true });
  wrapper.call(module.exports, module.exports, Module.createRequire(module.filename), module, module.filename, path.dirname(module.filename));
  return fromCache;
}

module.exports = { runWithCodeCache };
