/**
 * A source checkout's device process as one cached bundle (the compiled package ships one, built by
 * tools/bundle/build.js). Loading its ~70 TypeScript modules one by one through the require hook
 * (resolving, reading, compiling each) cost a device process about 100 ms of CPU more than one
 * bundle of the same modules, a quarter to a third of all it spends, and every role of every run pays it.
 *
 * The bundle holds every module of ours a device process can load (the graph of ENTRIES, lazily
 * required modules included), each behind esbuild's lazy initialiser, and exports one loader per
 * module. loadDeviceBundle() puts each module's exports into require.cache under the module's real
 * path, computed on first require: a module runs when it is first required, as before, and a spec
 * or role module that imports any of them (`../src`, `../../src/acl`) gets the bundle's one
 * instance (one scenario registry, one AclError class). Modules outside the bundle (specs, role
 * modules of tests) still go through the require hook.
 *
 * Cached like the hook's transforms (same directory and trust rules, typescript-transform.js): an
 * entry holds its key, the source text of every module it was built from and the code, and is a hit
 * only when every one of those files still has exactly those bytes and the source map file it names
 * (written beside it the same way, see registerSourceMap) is there. runRoles builds it in the parent
 * before it starts a source checkout's device processes (ensureDeviceBundle: two esbuild builds, the
 * graph then the bundle, once per change of the harness's sources) and hands its device processes
 * the identity of that entry file; a device process only uses a current one (loadDeviceBundle): the
 * very file its parent verified, or else one whose sources it compares again itself. It runs the
 * bundle from a V8 code cache (code-cache.js). Anything else (no entry, an edited file, a build error, an
 * unreadable entry) leaves the modules to the require hook, one by one, exactly as without the bundle.
 * Inside the bundle __dirname is harness/ and __filename ends in .ts (see compiledAs): src/paths
 * finds the checkout and its own extension as it does in the compiled package's bundle.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { usableCacheDir, loadEsbuild, esbuildVersion, fnv1a, NODE_TARGET, writeWhole } = require('./typescript-transform');
const { runWithCodeCache } = require('./code-cache');

/** The modules a device process starts from (the role entry and the public index are loaded by the role and its spec; the thread entry by its worker threads). */
const ENTRIES = ['harness/device-process.ts', 'harness/scenario/role-entry.ts', 'harness/scenario/threads/entry.ts', 'src/index.ts'];
/** Changes with the entry format or the build options below. */
const FORMAT = 'device-bundle-4';
/** Set by runRoles for its device processes: the identity of the entry it found current (see cachedCode). */
const VERIFIED_ENV = 'CANN_HARNESS_DEVICE_BUNDLE';
/** The name of the generated entry (stdin) in esbuild's metafile. */
const GENERATED_ENTRY = 'device-process-bundle-entry.js';

/** The checkout's real path: modules are seeded under the real paths Node resolves them to. */
function checkoutRoot() {
  return fs.realpathSync(path.resolve(__dirname, '..', '..'));
}

/** The bundle's module name: in harness/ like the package's bundle, '.ts' like the checkout's other files (src/paths reads both). */
function compiledAs(root) {
  return path.join(root, 'harness', 'device-process.bundle.ts');
}

function buildOptions(root) {
  return {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: NODE_TARGET,
    packages: 'external', // npm packages stay ordinary requires from node_modules
    // What a device process requires only lazily and does not run: the orchestrator (scenario/run.ts
    // starts runs in Jest), the failure report (Jest prints it), the hook (already loaded). Left to
    // the require hook should it ever be required; it then gets the bundle's modules from require.cache.
    external: ['../orchestrator', './report/failure', '../report/failure', '../ts-hook/*'],
    define: { DEVICE_PROCESS_BUNDLE: 'true' },
    absWorkingDir: root,
    outfile: path.join(root, 'harness', 'device-process.bundle.js'), // never written: names the source map's paths relative to harness/
    write: false,
    metafile: true,
    logLevel: 'silent',
  };
}

/** Our modules (real absolute paths) in a build's metafile. */
function modulesOf(metafile, root) {
  return Object.keys(metafile.inputs)
    .filter((f) => f !== GENERATED_ENTRY)
    .map((f) => path.resolve(root, f));
}

/** Builds the bundle: the graph of ENTRIES, then a bundle exporting a loader for each of its modules. */
function build(root) {
  const esbuild = loadEsbuild();
  const options = buildOptions(root);
  const stdin = (contents) => ({ contents, resolveDir: root, sourcefile: GENERATED_ENTRY, loader: 'js' });
  const graph = esbuild.buildSync({ ...options, stdin: stdin(ENTRIES.map((e) => `require(${JSON.stringify(`./${e}`)});`).join('\n')) });
  const loaders = modulesOf(graph.metafile, root).map((f) => `  ${JSON.stringify(f)}: () => require(${JSON.stringify(f)}),`);
  const bundle = esbuild.buildSync({
    ...options,
    stdin: stdin(`module.exports = {\n${loaders.join('\n')}\n};\n`),
    sourcemap: 'external', // stack traces still point at the TypeScript lines (see registerSourceMap)
    sourcesContent: false,
  });
  const output = (ext) => bundle.outputFiles.find((f) => f.path.endsWith(ext)).text;
  const inputs = modulesOf(bundle.metafile, root).map((f) => ({ file: f, source: fs.readFileSync(f) }));
  // Node resolves the map's sources against the map's own place (the cache), not the bundle's.
  const map = JSON.parse(output('.js.map'));
  map.sourceRoot = `${pathToFileURL(path.join(root, 'harness')).href}/`;
  return { code: Buffer.from(asciiOnly(output('.js'))), map: Buffer.from(JSON.stringify(map)), inputs };
}

/**
 * esbuild escapes what is not ASCII in strings, but keeps a member's doc comment as written: one
 * '…' there made V8 hold the whole bundle as a two-byte string (and Node scan twice the bytes).
 * Only comments can still hold such a character, so escaping it changes no behaviour, and no line.
 */
function asciiOnly(code) {
  return code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * An entry: a JSON header line { key, map, inputs: [[file, byte length]] }, the sources' bytes, then
 * the code. Bytes, not text: comparing them needs no decoding (the sources are not all ASCII). `map`
 * names the code's source map, a file of its own beside the entry (see registerSourceMap).
 */
function entryBytes(key, map, built) {
  const header = JSON.stringify({ key, map, inputs: built.inputs.map((i) => [i.file, i.source.length]) });
  return Buffer.concat([Buffer.from(`${header}\n`), ...built.inputs.map((i) => i.source), built.code]);
}

/** { code, map } of an entry made with `key` from the current bytes of every file it lists, else undefined. */
function codeFromEntry(entry, key) {
  const eol = entry.indexOf(0x0a);
  let header;
  try {
    header = JSON.parse(entry.toString('utf8', 0, eol));
  } catch {
    return undefined;
  }
  if (header === null || header.key !== key || typeof header.map !== 'string' || path.basename(header.map) !== header.map || !Array.isArray(header.inputs)) return undefined;
  let at = eol + 1;
  for (const [file, length] of header.inputs) {
    let source;
    try {
      source = fs.readFileSync(file);
    } catch {
      return undefined; // moved or removed: the graph changed
    }
    if (source.length !== length || !source.equals(entry.subarray(at, at + length))) return undefined;
    at += length;
  }
  return { code: entry.toString('latin1', at), codeBytes: entry.subarray(at), map: header.map }; // ASCII (asciiOnly): latin1 decodes it fastest
}

function entryFile(root, dir) {
  const key = `${FORMAT}\0${esbuildVersion()}\0${NODE_TARGET}\0${root}`;
  return { key, file: path.join(dir, `device-process-bundle-${fnv1a(key)}.entry`) };
}

/**
 * Names the version of an entry file: entries are only ever replaced by renaming a new file into
 * place (writeWhole), so another entry has another inode or change time, even with the same bytes.
 */
function identity(st) {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/**
 * { code, codeBytes, map } of the entry `fd` (opened for `key`) that a parent verified moments ago,
 * reading only its header and code: the sources it holds are not compared again.
 */
function codeFromVerifiedEntry(fd, key, size) {
  const head = Buffer.allocUnsafe(Math.min(size, 64 * 1024)); // the header: ~100 bytes per source
  const eol = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0)).indexOf(0x0a);
  if (eol < 0) return undefined;
  const header = JSON.parse(head.toString('utf8', 0, eol));
  if (header === null || header.key !== key || typeof header.map !== 'string' || path.basename(header.map) !== header.map || !Array.isArray(header.inputs)) return undefined;
  const at = header.inputs.reduce((n, [, length]) => n + length, eol + 1);
  const code = Buffer.allocUnsafe(size - at);
  if (fs.readSync(fd, code, 0, code.length, at) !== code.length) return undefined;
  return { code: code.toString('latin1'), codeBytes: code, map: header.map };
}

/**
 * The cached bundle's { code, codeBytes, map, identity } when its entry is current, else undefined.
 * Current: every source it holds equals its file, or, given `verified`, it is the very entry file
 * (identity) a parent found current just before starting this process (CANN_HARNESS_DEVICE_BUNDLE).
 */
function cachedCode(root, dir, verified) {
  const { key, file } = entryFile(root, dir);
  let fd;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  let cached;
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    const id = identity(st);
    cached = id === verified ? codeFromVerifiedEntry(fd, key, Number(st.size)) : codeFromEntry(fs.readFileSync(fd), key);
    if (cached) cached.identity = id;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
  // Without its map (removed by hand) stack traces would show the bundle's lines: not current.
  return cached && fs.existsSync(path.join(dir, cached.map)) ? cached : undefined;
}

/**
 * Parent side (runRoles, before it starts a source checkout's device processes): makes sure the
 * cache holds a current bundle, building it when not. Returns the identity of the entry file it
 * found current (its device processes get it as CANN_HARNESS_DEVICE_BUNDLE), or undefined when there
 * is none; never throws for a build that fails (e.g. a syntax error: the device processes then load
 * module by module, and the require hook reports the error), but does for a cache directory others
 * could write to.
 */
function ensureDeviceBundle() {
  const dir = usableCacheDir();
  if (!dir) return undefined; // read-only tree: module by module, as without the bundle
  const root = checkoutRoot();
  const current = cachedCode(root, dir);
  if (current !== undefined) return current.identity;
  const { key, file } = entryFile(root, dir);
  let built;
  try {
    built = build(root);
  } catch {
    return undefined;
  }
  // The map first, named by its content: an entry never names a map that is not there (yet).
  const previous = mapOf(file);
  const map = `${path.basename(file, '.entry')}-${fnv1a(built.map.toString('latin1'))}.map`;
  if (!writeWhole(path.join(dir, map), built.map) || !writeWhole(file, entryBytes(key, map, built))) return undefined;
  // Older maps of this entry go, but not the one the entry just replaced: a device process that
  // read that entry a moment ago may still be about to load its map. Code caches of the old code go
  // too (code-cache.js: one per Node version and flags; a new one is made from the new code).
  const prefix = `${path.basename(file, '.entry')}-`;
  try {
    for (const name of fs.readdirSync(dir)) {
      const stale = name.endsWith('.v8cache') || (name.endsWith('.map') && name !== map && name !== previous);
      if (name.startsWith(prefix) && stale) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    /* a stale map left behind costs only disk space */
  }
  return cachedCode(root, dir)?.identity; // verified as a device process would: what it names is current
}

/** The map an entry file names, or undefined (no entry, or not readable). */
function mapOf(file) {
  try {
    const head = fs.readFileSync(file).subarray(0, 64 * 1024);
    const eol = head.indexOf(0x0a);
    return JSON.parse(head.toString('utf8', 0, eol)).map;
  } catch {
    return undefined;
  }
}


/** Makes `require(file)` return what `load` returns, computed on the first require (the module runs then). */
function seedRequireCache(file, load) {
  let exports;
  let loaded = false;
  require.cache[file] = {
    id: file,
    filename: file,
    path: path.dirname(file),
    loaded: true,
    children: [],
    paths: [],
    get exports() {
      if (!loaded) {
        exports = load();
        loaded = true;
      }
      return exports;
    },
  };
}

/**
 * Device process side (harness/device-launch.js): seeds require.cache with the bundle's modules
 * when the cache holds a current bundle, and returns whether it did. It never builds one (a build
 * takes a second or more, inside the role's time): without one the modules are loaded one by one
 * through the require hook. The entry its parent verified (VERIFIED_ENV) is not compared with the
 * sources again: that read every source file, in every device process, for the same answer.
 */
function loadDeviceBundle() {
  const dir = usableCacheDir(); // throws for a directory others could write to
  if (!dir) return false;
  const root = checkoutRoot();
  const cached = cachedCode(root, dir, process.env[VERIFIED_ENV]);
  if (cached === undefined) return false;
  const mapFile = path.join(dir, cached.map);
  const Module = require('node:module');
  const filename = compiledAs(root);
  const bundle = new Module(filename, module);
  bundle.filename = filename;
  bundle.paths = Module._nodeModulePaths(path.dirname(filename));
  // A path, not a file: URL (Node reads only data: URLs and paths), percent-encoded as in a URL.
  const mapComment = `\n//# sourceMappingURL=${pathToFileURL(mapFile).pathname}\n`;
  if (!process.sourceMapsEnabled || process.env.NODE_V8_COVERAGE) {
    bundle._compile(cached.code + mapComment, filename); // coverage needs the map with the code's own line lengths
  } else {
    registerSourceMap(filename, mapComment);
    runWithCodeCache(bundle, cached.code, cached.codeBytes, dir, path.basename(entryFile(root, dir).file, '.entry'));
  }
  for (const [file, load] of Object.entries(bundle.exports)) seedRequireCache(file, load);
  return true;
}

/** Keeps the module that carries the bundle's source map alive: Node drops a map with its module. */
let mapCarrier;

/**
 * Gives Node the bundle's source map under the bundle's file name, as compiling the bundle with its
 * map would, but without Node's eager work on the bundle's text: with source maps on, compiling a
 * module scans all its text for magic comments and counts the length of each of its lines (for
 * coverage), and a map inlined as a data: URL is parsed as a URL and base64-decoded: about a
 * quarter of the CPU a device process spends on top of bare Node, and some 600 page faults. Node
 * keys its maps by file name, and maps a stack frame of `filename` with the map it holds for it, so
 * a one-line module of the same name whose only content is the comment naming the map file gives
 * the same stack traces. Node reads and parses that map file at once (a plain JSON.parse); mapping
 * a frame stays lazy, as before.
 */
function registerSourceMap(filename, mapComment) {
  const Module = require('node:module');
  mapCarrier = new Module(filename, module);
  mapCarrier.filename = filename;
  mapCarrier._compile(mapComment, filename);
}

module.exports = { ensureDeviceBundle, loadDeviceBundle, ENTRIES, VERIFIED_ENV };
