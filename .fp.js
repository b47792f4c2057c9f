var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __esm = (fn, res, err) => function __init() {
  if (err) throw err[0];
  try {
    return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
  } catch (e) {
    throw err = [e], e;
  }
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);

// ../../work/main/src/acl/enums.ts
var EventFlag, IPC_EVENT_HANDLE_SIZE, MemcpyKind, MemMallocPolicy, IpcMemExportFlag, IpcMemImportFlag, NotifyFlag, NotifyExportFlag, NotifyImportFlag, IPC_KEY_BUFFER_SIZE;
var init_enums = __esm({
  "../../work/main/src/acl/enums.ts"() {
    "use strict";
    EventFlag = {
      SYNC: 1,
      CAPTURE_STREAM_PROGRESS: 2,
      TIME_LINE: 8,
      DEVICE_USE_ONLY: 16,
      EXTERNAL: 32,
      IPC: 64
    };
    IPC_EVENT_HANDLE_SIZE = 64;
    MemcpyKind = {
      HOST_TO_HOST: 0,
      HOST_TO_DEVICE: 1,
      DEVICE_TO_HOST: 2,
      DEVICE_TO_DEVICE: 3,
      DEFAULT: 4
    };
    MemMallocPolicy = { HUGE_FIRST: 0, HUGE_ONLY: 1, NORMAL_ONLY: 2 };
    IpcMemExportFlag = { DEFAULT: 0, DISABLE_PID_VALIDATION: 1 };
    IpcMemImportFlag = { DEFAULT: 0, ENABLE_PEER_ACCESS: 1 };
    NotifyFlag = { DEFAULT: 0, DEVICE_USE_ONLY: 1 };
    NotifyExportFlag = { DEFAULT: 0, DISABLE_PID_VALIDATION: 2 };
    NotifyImportFlag = { DEFAULT: 0, ENABLE_PEER_ACCESS: 2 };
    IPC_KEY_BUFFER_SIZE = 65;
  }
});

// ../../work/main/src/acl/native.ts
var native_exports = {};
__export(native_exports, {
  loadAclLibrary: () => loadAclLibrary,
  loadHoldLibrary: () => loadHoldLibrary,
  pinLoadedLibrary: () => pinLoadedLibrary
});
function dlopenFunction() {
  if (dlopen !== void 0) return dlopen;
  dlopen = null;
  for (const name of ["libdl.so.2", "libc.so.6"]) {
    try {
      dlopen = koffi.load(name).func("dlopen", "void *", ["const char *", "int"]);
      break;
    } catch {
    }
  }
  return dlopen;
}
function pinLoadedLibrary(file) {
  const open = dlopenFunction();
  if (!open) return false;
  return open(file, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) !== null;
}
function assertNotInsideJest() {
  const jestEntry = /[\\/]node_modules[\\/](jest-worker|jest|jest-cli|\.bin)[\\/]/.test(process.argv[1] ?? "");
  const jestGlobals = typeof globalThis.expect === "function";
  const inJestRuntime = process.env.JEST_WORKER_ID !== void 0 && (jestGlobals || jestEntry);
  if (inJestRuntime) {
    throw new Error(
      "src/acl refuses to load koffi/libascendcl inside a Jest worker: a native crash would take Jest down and runtime threads would leak between test files. Run the code in a child process (test/support/run-child.ts, or the orchestrator) instead."
    );
  }
}
function loadAclLibrary(file) {
  const lib = koffi.load(file);
  pinLoadedLibrary(file);
  const f = (name, args, result = "int") => lib.func(name, result, args);
  const optional = (name, args) => {
    try {
      return f(name, args);
    } catch {
      return () => {
        throw new Error(`${file} does not export ${name}: this CANN runtime is too old for device memory, IPC memory or notify scenarios`);
      };
    }
  };
  const fns = {
    aclInit: f("aclInit", ["const char *"]),
    aclFinalize: f("aclFinalize", []),
    aclGetRecentErrMsg: f("aclGetRecentErrMsg", [], "const char *"),
    aclrtSetDevice: f("aclrtSetDevice", ["int32_t"]),
    aclrtResetDevice: f("aclrtResetDevice", ["int32_t"]),
    aclrtResetDeviceForce: f("aclrtResetDeviceForce", ["int32_t"]),
    aclrtGetDevice: f("aclrtGetDevice", [out("int32_t")]),
    aclrtGetDeviceCount: f("aclrtGetDeviceCount", [out("uint32_t")]),
    aclrtCreateStream: f("aclrtCreateStream", [voidPtrOut]),
    aclrtDestroyStream: f("aclrtDestroyStream", [voidPtr]),
    aclrtSynchronizeStream: f("aclrtSynchronizeStream", [voidPtr]),
    aclrtSynchronizeStreamWithTimeout: f("aclrtSynchronizeStreamWithTimeout", [voidPtr, "int32_t"]),
    aclrtStreamWaitEvent: f("aclrtStreamWaitEvent", [voidPtr, voidPtr]),
    aclrtStreamWaitEventWithTimeout: f("aclrtStreamWaitEventWithTimeout", [voidPtr, voidPtr, "int32_t"]),
    aclrtCreateEvent: f("aclrtCreateEvent", [voidPtrOut]),
    aclrtCreateEventWithFlag: f("aclrtCreateEventWithFlag", [voidPtrOut, "uint32_t"]),
    aclrtCreateEventExWithFlag: f("aclrtCreateEventExWithFlag", [voidPtrOut, "uint32_t"]),
    aclrtDestroyEvent: f("aclrtDestroyEvent", [voidPtr]),
    aclrtRecordEvent: f("aclrtRecordEvent", [voidPtr, voidPtr]),
    aclrtResetEvent: f("aclrtResetEvent", [voidPtr, voidPtr]),
    aclrtQueryEvent: f("aclrtQueryEvent", [voidPtr, out(EventStatusT)]),
    aclrtQueryEventStatus: f("aclrtQueryEventStatus", [voidPtr, out(EventRecordedStatusT)]),
    aclrtQueryEventWaitStatus: f("aclrtQueryEventWaitStatus", [voidPtr, out(EventWaitStatusT)]),
    aclrtSynchronizeEvent: f("aclrtSynchronizeEvent", [voidPtr]),
    aclrtSynchronizeEventWithTimeout: f("aclrtSynchronizeEventWithTimeout", [voidPtr, "int32_t"]),
    aclrtEventElapsedTime: f("aclrtEventElapsedTime", [out("float"), voidPtr, voidPtr]),
    // A typed array is passed as a pointer to its memory; reading it back as BigUint64 keeps all 64 bits.
    aclrtEventGetTimestamp: f("aclrtEventGetTimestamp", [voidPtr, koffi.pointer("uint64_t")]),
    aclrtGetEventId: f("aclrtGetEventId", [voidPtr, out("uint32_t")]),
    aclrtSetOpWaitTimeout: f("aclrtSetOpWaitTimeout", ["uint32_t"]),
    aclrtIpcGetEventHandle: f("aclrtIpcGetEventHandle", [voidPtr, out(IpcEventHandleStruct)]),
    // By value, as the real ABI requires: a 64-byte struct of uint8_t (a char array would be decoded as a string).
    aclrtIpcOpenEventHandle: f("aclrtIpcOpenEventHandle", [IpcEventHandleStruct, voidPtrOut]),
    // Declared with void * for fn: we only ever pass the address of a native function, never a JS callback.
    aclrtLaunchHostFunc: f("aclrtLaunchHostFunc", [voidPtr, voidPtr, voidPtr]),
    aclrtMalloc: optional("aclrtMalloc", [voidPtrOut, "size_t", "int"]),
    aclrtFree: optional("aclrtFree", [voidPtr]),
    aclrtMallocHost: optional("aclrtMallocHost", [voidPtrOut, "size_t"]),
    aclrtFreeHost: optional("aclrtFreeHost", [voidPtr]),
    aclrtMemcpy: optional("aclrtMemcpy", [voidPtr, "size_t", voidPtr, "size_t", "int"]),
    aclrtMemcpyAsync: optional("aclrtMemcpyAsync", [voidPtr, "size_t", voidPtr, "size_t", "int", voidPtr]),
    aclrtMemsetAsync: optional("aclrtMemsetAsync", [voidPtr, "size_t", "int32_t", "size_t", voidPtr]),
    aclrtDestroyStreamForce: optional("aclrtDestroyStreamForce", [voidPtr]),
    aclrtDeviceCanAccessPeer: optional("aclrtDeviceCanAccessPeer", [out("int32_t"), "int32_t", "int32_t"]),
    aclrtDeviceEnablePeerAccess: optional("aclrtDeviceEnablePeerAccess", ["int32_t", "uint32_t"]),
    aclrtDeviceGetBareTgid: optional("aclrtDeviceGetBareTgid", [out("int32_t")]),
    // Keys are written into a caller buffer (a Uint8Array, decoded by the caller) and read as C strings.
    aclrtIpcMemGetExportKey: optional("aclrtIpcMemGetExportKey", [voidPtr, "size_t", voidPtr, "size_t", "uint64_t"]),
    aclrtIpcMemClose: optional("aclrtIpcMemClose", ["const char *"]),
    aclrtIpcMemImportByKey: optional("aclrtIpcMemImportByKey", [voidPtrOut, "const char *", "uint64_t"]),
    aclrtIpcMemSetImportPid: optional("aclrtIpcMemSetImportPid", ["const char *", voidPtr, "size_t"]),
    aclrtCreateNotify: optional("aclrtCreateNotify", [voidPtrOut, "uint64_t"]),
    aclrtDestroyNotify: optional("aclrtDestroyNotify", [voidPtr]),
    aclrtRecordNotify: optional("aclrtRecordNotify", [voidPtr, voidPtr]),
    aclrtWaitAndResetNotify: optional("aclrtWaitAndResetNotify", [voidPtr, voidPtr, "uint32_t"]),
    aclrtNotifyGetExportKey: optional("aclrtNotifyGetExportKey", [voidPtr, voidPtr, "size_t", "uint64_t"]),
    aclrtNotifyImportByKey: optional("aclrtNotifyImportByKey", [voidPtrOut, "const char *", "uint64_t"]),
    aclrtNotifySetImportPid: optional("aclrtNotifySetImportPid", [voidPtr, voidPtr, "size_t"])
  };
  return { fns, close: () => lib.unload() };
}
function loadHoldLibrary(file) {
  const lib = koffi.load(file);
  pinLoadedLibrary(file);
  const symbol = (name) => {
    const address = lib.symbol(name);
    if (!address) throw new Error(`${file} does not export ${name}; rebuild it with \`npm run build:stub\``);
    return address;
  };
  const monotonic = lib.func("cannharness_monotonic_ns", "uint64_t", []);
  return {
    sleepMsFn: symbol("cannharness_sleep_ms"),
    latchWaitFn: symbol("cannharness_latch_wait"),
    latchCreate: lib.func("cannharness_latch_create", voidPtr, []),
    latchWait: lib.func("cannharness_latch_wait", "void", [voidPtr]),
    latchRelease: lib.func("cannharness_latch_release", "void", [voidPtr]),
    latchIsReleased: lib.func("cannharness_latch_is_released", "int", [voidPtr]),
    latchDestroy: lib.func("cannharness_latch_destroy", "void", [voidPtr]),
    monotonicNs: () => BigInt(monotonic())
  };
}
var koffi, RTLD_NOW, RTLD_NOLOAD, RTLD_NODELETE, dlopen, IpcEventHandleStruct, EventRecordedStatusT, EventStatusT, EventWaitStatusT, out, voidPtr, voidPtrOut;
var init_native = __esm({
  "../../work/main/src/acl/native.ts"() {
    "use strict";
    init_enums();
    assertNotInsideJest();
    koffi = require("koffi");
    RTLD_NOW = 2;
    RTLD_NOLOAD = 4;
    RTLD_NODELETE = 4096;
    IpcEventHandleStruct = koffi.struct({ reserved: koffi.array("uint8_t", IPC_EVENT_HANDLE_SIZE, "Typed") });
    EventRecordedStatusT = koffi.enumeration({ NOT_READY: 0, COMPLETE: 1 });
    EventStatusT = koffi.enumeration({ COMPLETE: 0, NOT_READY: 1, RESERVED: 2 });
    EventWaitStatusT = koffi.enumeration({ COMPLETE: 0, NOT_READY: 1, RESERVED: 65535 });
    out = (t) => koffi.out(koffi.pointer(t));
    voidPtr = "void *";
    voidPtrOut = out(voidPtr);
  }
});

// ../../work/main/src/acl/resolve.ts
var fs3 = __toESM(require("node:fs"));
var path3 = __toESM(require("node:path"));

// ../../work/main/src/acl/stub-build.ts
var fs2 = __toESM(require("node:fs"));
var os = __toESM(require("node:os"));
var path2 = __toESM(require("node:path"));

// ../../work/main/src/env/index.ts
var VARIABLES_BY_KEY = {
  mode: { name: "CANN_HARNESS_MODE", setBy: "user", doc: "auto (default), stub or real: which libascendcl.so to load" },
  library: { name: "CANN_HARNESS_LIBRARY", setBy: "user", doc: "explicit path of libascendcl.so; skips the search" },
  holdLibrary: { name: "CANN_HARNESS_HOLD_LIBRARY", setBy: "user", doc: "explicit path of libcannharness_hold.so" },
  requireDevices: { name: "CANN_HARNESS_REQUIRE_DEVICES", setBy: "user", doc: "N: scenarios needing up to N devices fail instead of being skipped" },
  keep: { name: "CANN_HARNESS_KEEP", setBy: "user", doc: "1: keep every scenario directory; 0: not even failed ones" },
  trace: { name: "CANN_HARNESS_TRACE", setBy: "user", doc: "1: keep every scenario directory with its trace.json timeline; 0: no trace.json even in kept ones" },
  echo: { name: "CANN_HARNESS_ECHO", setBy: "user", doc: "1: echo every role's output live" },
  timeoutMs: { name: "CANN_HARNESS_TIMEOUT_MS", setBy: "user", doc: "default scenario deadline in ms" },
  cacheDir: { name: "CANN_HARNESS_CACHE_DIR", setBy: "user", doc: "where an installed package builds the CPU stub" },
  tsCache: { name: "CANN_HARNESS_TS_CACHE", setBy: "user", doc: "where compiled TypeScript is cached" },
  tmpDir: { name: "CANN_HARNESS_TMPDIR", setBy: "user", doc: "where scenario directories are made" },
  hbCheck: { name: "CANN_HARNESS_HB_CHECK", setBy: "user", doc: "0: turn the happens-before check off" },
  stubDeviceCount: { name: "ACL_STUB_DEVICE_COUNT", setBy: "user", readInC: true, doc: "the stub's device count, 1..64 (default 8)" },
  stubTrace: { name: "ACL_STUB_TRACE", setBy: "user", readInC: true, doc: "directory of the stub's per-process JSON-lines trace" },
  stubLog: { name: "ACL_STUB_LOG", setBy: "user", readInC: true, doc: "the stub's log level: off, error, warn, info, debug" },
  stubMutant: { name: "ACL_STUB_MUTANT", setBy: "user", readInC: true, doc: "a deliberately broken stub (wait-noop, record-instant, wait-latest, sync-noop)" },
  stubJitter: { name: "ACL_STUB_JITTER", setBy: "user", readInC: true, doc: "<seed>:<max_us>: seeded delays before stream tasks" },
  stubFault: { name: "ACL_STUB_FAULT", setBy: "user", readInC: true, doc: "<call>:<code>[:<nth>]: fault injection" },
  role: { name: "CANN_HARNESS_ROLE", setBy: "harness", doc: "a device process's role name (the stub's jitter also mixes it in)" },
  device: { name: "CANN_HARNESS_DEVICE", setBy: "harness", doc: "a device process's device" },
  index: { name: "CANN_HARNESS_INDEX", setBy: "harness", doc: "a device process's role index" },
  dir: { name: "CANN_HARNESS_DIR", setBy: "harness", doc: "a device process's scenario directory" },
  parentPid: { name: "CANN_HARNESS_PARENT_PID", setBy: "harness", doc: "the orchestrator's pid, watched by its children" },
  session: { name: "CANN_HARNESS_SESSION", setBy: "harness", doc: "session ids of the run, inherited by every process of it" },
  probe: { name: "CANN_HARNESS_PROBE", setBy: "harness", doc: "the device probe's result (JSON), for Jest's workers" },
  progressDir: { name: "CANN_HARNESS_PROGRESS_DIR", setBy: "harness", doc: "where runs write live progress for `cann-harness run`" },
  repeatEach: { name: "CANN_HARNESS_REPEAT_EACH", setBy: "harness", doc: "`run --repeat-each N`, for the workers" },
  jitterUs: { name: "CANN_HARNESS_JITTER_US", setBy: "harness", doc: "`run --jitter [max_us]`, for the workers" },
  retries: { name: "CANN_HARNESS_RETRIES", setBy: "harness", doc: "`run --retries N`, for the workers" },
  shard: { name: "CANN_HARNESS_SHARD", setBy: "harness", doc: "`run --shard i/n`, for the workers" },
  intervalsLog: { name: "CANN_HARNESS_INTERVALS_LOG", setBy: "harness", doc: "`cann-harness run`'s file of interval samples, for the workers" },
  auditLog: { name: "CANN_HARNESS_AUDIT_LOG", setBy: "harness", doc: "`cann-harness audit`'s file of audit declarations" },
  stubTestDieInLock: { name: "ACL_STUB_TEST_DIE_IN_LOCK", setBy: "harness", readInC: true, doc: "the C conformance suite's crash-while-locked test only" }
};
var ENV = Object.fromEntries(Object.entries(VARIABLES_BY_KEY).map(([k, v]) => [k, v.name]));
var VARIABLES = Object.values(VARIABLES_BY_KEY);
var MODES = ["auto", "stub", "real"];
function parseMode(value, source) {
  if (value === void 0 || value === "") return "auto";
  if (MODES.includes(value)) return value;
  throw new Error(`${source} must be one of ${MODES.join(", ")}; got "${value}" (or leave it unset for auto: real CANN when found, else the stub)`);
}
function modeFromEnv(env = process.env) {
  return parseMode(env[ENV.mode], ENV.mode);
}

// ../../work/main/src/paths/index.ts
var fs = __toESM(require("node:fs"));
var path = __toESM(require("node:path"));
var OWN_EXTENSION = path.extname(__filename);
var CODE_ROOT = path.resolve(__dirname, "..", "..");
var SRC_DIR = path.join(CODE_ROOT, "src");
var HARNESS_DIR = path.join(CODE_ROOT, "harness");
var PACKAGE_ROOT = findPackageRoot(__dirname);
function findPackageRoot(start) {
  for (let dir = start; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
      if (pkg.name === "cann-ipc-harness") return dir;
    } catch {
    }
    if (path.dirname(dir) === dir) return path.resolve(start, "..", "..");
  }
}
var IS_SOURCE_CHECKOUT = fs.existsSync(path.join(PACKAGE_ROOT, "src", "index.ts"));
var NATIVE_STUB_DIR = path.join(PACKAGE_ROOT, "native-stub");
var TS_REGISTER = path.join(HARNESS_DIR, "ts-register.js");
var LIVE_VIEW_READER = path.join(SRC_DIR, "acl", "live-view-reader.js");
var TYPESCRIPT_TRANSFORM = path.join(HARNESS_DIR, "typescript-transform.js");

// ../../work/main/src/acl/stub-build.ts
var isSourceCheckout = IS_SOURCE_CHECKOUT;
function packageVersion() {
  try {
    return JSON.parse(fs2.readFileSync(path2.join(PACKAGE_ROOT, "package.json"), "utf8")).version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}
function userCacheDir(env = process.env) {
  const wanted = env[ENV.cacheDir];
  if (wanted) return path2.resolve(wanted);
  const base = env.XDG_CACHE_HOME ? path2.resolve(env.XDG_CACHE_HOME) : path2.join(os.homedir(), ".cache");
  return path2.join(base, "cann-ipc-harness");
}
function cachedStubTree(env = process.env) {
  return path2.join(userCacheDir(env), "stub", `${packageVersion()}-${process.platform}-${process.arch}`);
}
function stubBuildDir(env = process.env) {
  return isSourceCheckout ? path2.join(NATIVE_STUB_DIR, "build") : path2.join(cachedStubTree(env), "build");
}
var BUILD_STUB_HINT = isSourceCheckout ? "Build it with `npm run build:stub` (runs `make -C native-stub`)." : "Build it with `npx cann-harness setup` (needs gcc and make; once per version).";

// ../../work/main/src/acl/resolve.ts
var LIBRARY_FILE = "libascendcl.so";
var HOLD_LIBRARY_FILE = "libcannharness_hold.so";
var CANN_ROOT_VARS = ["ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_INSTALL_PATH"];
var DEFAULT_CANN_ROOT = "/usr/local/Ascend/ascend-toolkit/latest";
var LibraryNotFoundError = class extends Error {
  constructor(message, requested, tried) {
    super(message);
    this.requested = requested;
    this.tried = tried;
    this.name = "LibraryNotFoundError";
  }
  requested;
  tried;
};
var defaultStubPath = path3.join(stubBuildDir(), "lib64", LIBRARY_FILE);
var defaultHoldLibraryPath = path3.join(stubBuildDir(), "lib64", HOLD_LIBRARY_FILE);
function isFile(p) {
  try {
    return fs3.statSync(p).isFile();
  } catch {
    return false;
  }
}
function archTriple() {
  return process.arch === "arm64" ? "aarch64" : process.arch === "x64" ? "x86_64" : process.arch;
}
function cannRootDirs(root) {
  const arch = archTriple();
  const dirs = [
    path3.join(root, "lib64"),
    path3.join(root, "runtime", "lib64"),
    path3.join(root, `${arch}-linux`, "lib64"),
    path3.join(root, "lib")
  ];
  const toolkit = path3.join(root, "ascend-toolkit", "latest");
  if (fs3.existsSync(toolkit)) dirs.push(...cannRootDirs(toolkit));
  return dirs;
}
function ldCacheEntries(cacheFile = "/etc/ld.so.cache") {
  let text;
  try {
    text = fs3.readFileSync(cacheFile).toString("latin1");
  } catch {
    return [];
  }
  const found = /* @__PURE__ */ new Set();
  for (const m of text.matchAll(/\/[^\0]*\/libascendcl\.so(?=\0)/g)) found.add(m[0]);
  return [...found];
}
function systemDirs() {
  const multiarch = `${archTriple()}-linux-gnu`;
  return ["/lib64", "/usr/lib64", `/lib/${multiarch}`, `/usr/lib/${multiarch}`, "/lib", "/usr/lib", "/usr/local/lib64", "/usr/local/lib"];
}
function realCandidates(env, searchSystem) {
  const out2 = [];
  for (const v of CANN_ROOT_VARS) {
    const root = env[v];
    if (root) for (const d of cannRootDirs(root)) out2.push({ path: path3.join(d, LIBRARY_FILE), from: v });
  }
  for (const d of (env.LD_LIBRARY_PATH ?? "").split(":")) {
    if (d) out2.push({ path: path3.join(path3.resolve(d), LIBRARY_FILE), from: "LD_LIBRARY_PATH" });
  }
  if (searchSystem) {
    for (const p of ldCacheEntries()) out2.push({ path: p, from: "ld.so.cache" });
    for (const d of systemDirs()) out2.push({ path: path3.join(d, LIBRARY_FILE), from: "system library folder" });
    for (const d of cannRootDirs(DEFAULT_CANN_ROOT)) out2.push({ path: path3.join(d, LIBRARY_FILE), from: "default CANN install" });
  }
  const seen = /* @__PURE__ */ new Set();
  return out2.filter((c) => seen.has(c.path) ? false : (seen.add(c.path), true));
}
function cannEnvSummary(env) {
  return CANN_ROOT_VARS.map((v) => `${v}=${env[v] ? env[v] : "(unset)"}`).join(", ");
}
var SET_ENV_HINT = "Set up the CANN environment first: `source <CANN install>/set_env.sh` (typically `source /usr/local/Ascend/ascend-toolkit/set_env.sh`), or point CANN_HARNESS_LIBRARY at libascendcl.so.";
function resolveLibrary(opts = {}) {
  const env = opts.env ?? process.env;
  const requested = opts.mode ?? modeFromEnv(env);
  if (requested !== "auto" && requested !== "stub" && requested !== "real") {
    throw new Error(`mode must be one of auto, stub, real; got "${String(requested)}"`);
  }
  const stubPath = opts.stubPath ?? defaultStubPath;
  const override = env[ENV.library];
  if (override) {
    const file = path3.resolve(override);
    if (!isFile(file)) {
      throw new LibraryNotFoundError(
        `CANN_HARNESS_LIBRARY=${override} does not exist (or is not a file). Fix the path, or unset it to let mode "${requested}" search for the library.` + (file === path3.resolve(stubPath) ? ` ${BUILD_STUB_HINT}` : ""),
        requested,
        [file]
      );
    }
    const mode = requested === "auto" ? samePath(file, stubPath) ? "stub" : "real" : requested;
    return { mode, requested, path: file, tried: [file], reason: `${mode}: ${file} (from CANN_HARNESS_LIBRARY)` };
  }
  const tried = [];
  if (requested === "real" || requested === "auto") {
    for (const c of realCandidates(env, opts.searchSystem ?? true)) {
      tried.push(c.path);
      if (isFile(c.path)) {
        const why = requested === "auto" ? "auto: found real CANN runtime" : "real";
        return { mode: "real", requested, path: c.path, tried, reason: `${why}: ${c.path} (via ${c.from})` };
      }
    }
    if (requested === "real") {
      throw new LibraryNotFoundError(
        `mode "real" requested but ${LIBRARY_FILE} was not found (${cannEnvSummary(env)}). Tried ${tried.length} paths:
` + tried.map((p) => `  ${p}`).join("\n") + `
${SET_ENV_HINT} To run on the CPU stub instead use CANN_HARNESS_MODE=stub (or auto).`,
        requested,
        tried
      );
    }
  }
  tried.push(stubPath);
  if (!isFile(stubPath)) {
    const realPart = requested === "auto" ? ` No real CANN runtime either (${cannEnvSummary(env)}); tried:
` + tried.slice(0, -1).map((p) => `  ${p}`).join("\n") + `
${SET_ENV_HINT}` : "";
    throw new LibraryNotFoundError(
      `the stub library ${stubPath} does not exist. ${BUILD_STUB_HINT}${realPart}`,
      requested,
      tried
    );
  }
  const reason = requested === "auto" ? `auto: using the stub ${stubPath} because no real ${LIBRARY_FILE} was found in ${tried.length - 1} places (${cannEnvSummary(env)})` : `stub: ${stubPath}`;
  return { mode: "stub", requested, path: stubPath, tried, reason };
}
function samePath(a, b) {
  try {
    return fs3.realpathSync(a) === fs3.realpathSync(b);
  } catch {
    return path3.resolve(a) === path3.resolve(b);
  }
}
function resolveHoldLibrary(env = process.env) {
  const override = env[ENV.holdLibrary];
  const file = override ? path3.resolve(override) : defaultHoldLibraryPath;
  if (!isFile(file)) {
    throw new LibraryNotFoundError(
      `the hold/latch helper library ${file} does not exist; stream.hold() and stream.latch() need it (in stub and real mode alike). ${BUILD_STUB_HINT}`,
      "stub",
      [file]
    );
  }
  return file;
}

// ../../work/main/src/acl/live-view.ts
var PATH_BYTES = 4096;
var loadedLibrary = new SharedArrayBuffer(4 + PATH_BYTES);
function publishLoadedLibrary(file, buffer = loadedLibrary) {
  const bytes = Buffer.from(file, "utf8");
  if (bytes.length > PATH_BYTES) return;
  new Uint8Array(buffer, 4).set(bytes);
  Atomics.store(new Int32Array(buffer, 0, 1), 0, bytes.length);
}

// ../../work/main/src/acl/runtime.ts
init_enums();

// ../../work/main/src/acl/errors.ts
var AclErrorCode = {
  ACL_SUCCESS: 0,
  ACL_ERROR_INVALID_PARAM: 1e5,
  ACL_ERROR_UNINITIALIZE: 100001,
  ACL_ERROR_REPEAT_INITIALIZE: 100002,
  ACL_ERROR_REPEAT_FINALIZE: 100037,
  ACL_ERROR_FEATURE_UNSUPPORTED: 200006,
  ACL_ERROR_RT_PARAM_INVALID: 107e3,
  ACL_ERROR_RT_INVALID_DEVICEID: 107001,
  ACL_ERROR_RT_CONTEXT_NULL: 107002,
  ACL_ERROR_RT_STREAM_CONTEXT: 107003,
  ACL_ERROR_RT_INVALID_HANDLE: 107017,
  ACL_ERROR_RT_WAIT_TIMEOUT: 107019,
  ACL_ERROR_RT_TASK_TIMEOUT: 107020,
  ACL_ERROR_RT_FEATURE_NOT_SUPPORT: 207e3,
  ACL_ERROR_RT_MEMORY_ALLOCATION: 207001,
  ACL_ERROR_RT_NO_PERMISSION: 207006,
  ACL_ERROR_RT_INTERNAL_ERROR: 507e3,
  ACL_ERROR_RT_STREAM_SYNC_TIMEOUT: 507046,
  ACL_ERROR_RT_EVENT_SYNC_TIMEOUT: 507047
};
var namesByCode = new Map(
  Object.entries(AclErrorCode).map(([name, code]) => [code, name])
);
function aclErrorName(code) {
  return namesByCode.get(code) ?? `ACL_ERROR_UNKNOWN(${code})`;
}
var AclError = class extends Error {
  code;
  codeName;
  call;
  args;
  recentErrMsg;
  /** Why the binding refused the call without calling C (use after destroy, bad argument), else null. */
  detail;
  constructor(init) {
    const codeName = aclErrorName(init.code);
    const args = init.args ?? "";
    const explanation = init.detail ?? init.recentErrMsg ?? "no message from aclGetRecentErrMsg()";
    super(`${init.call}(${args}) failed: ${codeName} (${init.code}): ${explanation}`);
    this.name = "AclError";
    this.code = init.code;
    this.codeName = codeName;
    this.call = init.call;
    this.args = args;
    this.recentErrMsg = init.recentErrMsg ?? null;
    this.detail = init.detail ?? null;
  }
  /** Plain JSON form, for sending across processes (see RoleResult.error.acl). */
  toJSON() {
    const info = { code: this.code, name: this.codeName, call: this.call, args: this.args, recentErrMsg: this.recentErrMsg };
    if (this.detail !== null) info.detail = this.detail;
    return info;
  }
};

// ../../work/main/src/acl/ipc-handle.ts
var fs4 = __toESM(require("node:fs"));

// ../../work/main/src/rendezvous/atomic-file.ts
var import_node_fs = require("node:fs");
var path4 = __toESM(require("node:path"));
var import_node_crypto = require("node:crypto");
function tempNameIn(dir, base) {
  return path4.join(dir, `.${base}.${process.pid}.${(0, import_node_crypto.randomBytes)(4).toString("hex")}.tmp`);
}
function tempNameFor(finalPath) {
  return tempNameIn(path4.dirname(finalPath), path4.basename(finalPath));
}
var MAX_SPARES = 8;
var spares = /* @__PURE__ */ new Map();
var preparing = /* @__PURE__ */ new Set();
var exitHookInstalled = false;
function discard(s) {
  try {
    (0, import_node_fs.closeSync)(s.fd);
  } catch {
  }
  try {
    (0, import_node_fs.unlinkSync)(s.file);
  } catch {
  }
}
function discardAllSpares() {
  for (const s of spares.values()) discard(s);
  spares.clear();
}
function takeSpare(stagingDir) {
  const s = spares.get(stagingDir);
  if (s) spares.delete(stagingDir);
  return s;
}
function prepareSpare(stagingDir) {
  if (spares.has(stagingDir) || preparing.has(stagingDir)) return;
  preparing.add(stagingDir);
  setTimeout(() => {
    preparing.delete(stagingDir);
    if (spares.has(stagingDir)) return;
    const file = tempNameIn(stagingDir, "spare");
    let fd;
    try {
      fd = (0, import_node_fs.openSync)(file, "wx", 420);
    } catch {
      return;
    }
    if (spares.size >= MAX_SPARES) {
      const [oldest] = spares.keys();
      discard(spares.get(oldest));
      spares.delete(oldest);
    }
    spares.set(stagingDir, { fd, file });
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on("exit", discardAllSpares);
    }
  }, 0).unref();
}
function writeFileAtomicSync(finalPath, data, stagingDir) {
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  const spare = stagingDir ? takeSpare(stagingDir) : void 0;
  const tmp = spare?.file ?? (stagingDir ? tempNameIn(stagingDir, path4.basename(finalPath)) : tempNameFor(finalPath));
  const fd = spare?.fd ?? (0, import_node_fs.openSync)(tmp, "wx", 420);
  try {
    (0, import_node_fs.writeSync)(fd, bytes);
    if (bytes.length > 0) (0, import_node_fs.fdatasyncSync)(fd);
  } catch (e) {
    (0, import_node_fs.closeSync)(fd);
    try {
      (0, import_node_fs.unlinkSync)(tmp);
    } catch {
    }
    throw e;
  }
  (0, import_node_fs.closeSync)(fd);
  try {
    (0, import_node_fs.renameSync)(tmp, finalPath);
  } catch (e) {
    try {
      (0, import_node_fs.unlinkSync)(tmp);
    } catch {
    }
    throw e;
  }
  if (stagingDir) prepareSpare(stagingDir);
}

// ../../work/main/src/acl/ipc-handle.ts
init_enums();
var IpcHandleFileError = class extends Error {
  constructor(message, path6, reason) {
    super(message);
    this.path = path6;
    this.reason = reason;
    this.name = "IpcHandleFileError";
  }
  path;
  reason;
};
var IpcEventHandle = class _IpcEventHandle {
  static SIZE = IPC_EVENT_HANDLE_SIZE;
  #bytes;
  constructor(bytes) {
    this.#bytes = bytes;
    Object.freeze(this);
  }
  /** Copies `b`; throws a RangeError unless it is exactly 64 bytes. */
  static fromBuffer(b) {
    if (!(b instanceof Uint8Array)) {
      throw new TypeError(`IpcEventHandle.fromBuffer expects a Buffer or Uint8Array, got ${typeof b}`);
    }
    if (b.length !== IPC_EVENT_HANDLE_SIZE) {
      throw new RangeError(
        `an aclrtIpcEventHandle is exactly ${IPC_EVENT_HANDLE_SIZE} bytes, got ${b.length} bytes`
      );
    }
    return new _IpcEventHandle(Buffer.from(b));
  }
  /** Parses the 128 hex digits written by toHex(). */
  static fromHex(hex2) {
    if (!/^[0-9a-fA-F]*$/.test(hex2) || hex2.length !== IPC_EVENT_HANDLE_SIZE * 2) {
      throw new RangeError(`expected ${IPC_EVENT_HANDLE_SIZE * 2} hex digits for an IPC event handle, got "${hex2.slice(0, 20)}${hex2.length > 20 ? "\u2026" : ""}" (${hex2.length} chars)`);
    }
    return new _IpcEventHandle(Buffer.from(hex2, "hex"));
  }
  /**
   * Reads a handle published by another process. Errors say which path, and whether the file is
   * missing (the producer may not have published yet) or has the wrong size.
   */
  static readFile(file) {
    let data;
    try {
      data = fs4.readFileSync(file);
    } catch (err) {
      const e = err;
      if (e.code === "ENOENT") {
        throw new IpcHandleFileError(
          `IPC event handle file ${file} does not exist: the producer may not have published it yet (wait for it, e.g. with rendezvous.await), or it wrote to another directory`,
          file,
          "missing"
        );
      }
      throw new IpcHandleFileError(`cannot read IPC event handle file ${file}: ${e.message}`, file, "io");
    }
    if (data.length !== IPC_EVENT_HANDLE_SIZE) {
      throw new IpcHandleFileError(
        `IPC event handle file ${file} has the wrong size: expected ${IPC_EVENT_HANDLE_SIZE} bytes, got ${data.length} (a half-written file? publish it with writeFileAtomic)`,
        file,
        "wrong-size"
      );
    }
    return new _IpcEventHandle(data);
  }
  /** A fresh copy of the 64 bytes. */
  toBuffer() {
    return Buffer.from(this.#bytes);
  }
  toHex() {
    return this.#bytes.toString("hex");
  }
  /** First 8 bytes (the part the real runtime uses) as hex, for error messages and logs. */
  toShortHex() {
    return `${this.#bytes.subarray(0, 8).toString("hex")}\u2026`;
  }
  equals(o) {
    return o instanceof _IpcEventHandle && this.#bytes.equals(o.#bytes);
  }
  toString() {
    return `IpcEventHandle(${this.toShortHex()})`;
  }
  toJSON() {
    return this.toHex();
  }
  /**
   * Write to a temporary name in the same directory, fsync, then rename: a reader sees either no
   * file or all 64 bytes, never a partial handle.
   */
  writeFileAtomic(file) {
    writeFileAtomic(file, this.#bytes);
  }
};
function writeFileAtomic(file, data) {
  try {
    writeFileAtomicSync(file, data);
  } catch (err) {
    throw new Error(`cannot publish ${file} atomically: ${err.message}`, { cause: err });
  }
}

// ../../work/main/src/acl/data.ts
init_enums();

// ../../work/main/src/acl/owned.ts
var hex = (p) => p === null || p === 0n ? "NULL" : `0x${p.toString(16)}`;
var Owned = class {
  constructor(rt, ptr) {
    this.rt = rt;
    this.ptr = ptr;
  }
  rt;
  ptr;
  #dead = null;
  get destroyed() {
    return this.#dead !== null;
  }
  /** Summary for error messages, e.g. `stream=0x55d0c8a0` or `event=0x…(destroyed)`. */
  describe() {
    return `${this.kind}=${hex(this.ptr)}${this.#dead ? "(destroyed)" : ""}`;
  }
  /** The C handle, or an AclError without calling C when the object was destroyed. */
  handleFor(call, args) {
    if (this.#dead) {
      throw new AclError({ code: this.#dead.code, call, args: args ?? this.describe(), detail: this.#dead.detail });
    }
    return this.ptr;
  }
  retire(dead) {
    this.#dead ??= dead;
  }
  destroyedBy(call) {
    return {
      code: AclErrorCode.ACL_ERROR_RT_INVALID_HANDLE,
      detail: `${this.kind} was destroyed (by ${call} in this process; the binding refused the call and did not pass the freed handle to the runtime)`
    };
  }
  [Symbol.dispose]() {
    if (!this.destroyed) this.destroy();
  }
};

// ../../work/main/src/acl/data.ts
var liveImports = /* @__PURE__ */ new Map();
var IPC_PAGE_SIZE = 4096;
function checkCount(value, what, min, max) {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`${what} must be an integer in [${min}, ${max}], got ${String(value)}`);
  }
  return value;
}
function checkKey(key, call) {
  if (typeof key !== "string" || key.length === 0 || key.length > IPC_KEY_BUFFER_SIZE - 1) {
    throw new TypeError(`${call}: the key must be a string of 1..${IPC_KEY_BUFFER_SIZE - 1} characters from an export, got ${JSON.stringify(key)}`);
  }
  return key;
}
function checkPids(pids, call) {
  if (!Array.isArray(pids) || pids.length === 0 || !pids.every((p) => Number.isInteger(p) && p > 0 && p <= 2 ** 31 - 1)) {
    throw new TypeError(`${call}: pass a non-empty array of positive pids (from aclrtDeviceGetBareTgid), got ${JSON.stringify(pids)}`);
  }
  return Int32Array.from(pids);
}
function readKey(fn) {
  const buf = new Uint8Array(IPC_KEY_BUFFER_SIZE);
  fn(buf);
  const end = buf.indexOf(0);
  return Buffer.from(buf.subarray(0, end < 0 ? buf.length : end)).toString("latin1");
}
var DeviceBufferImpl = class _DeviceBufferImpl extends Owned {
  constructor(rt, ptr, bytes, device, importKey) {
    super(rt, ptr);
    this.bytes = bytes;
    this.device = device;
    this.importKey = importKey;
  }
  bytes;
  device;
  importKey;
  kind = "buffer";
  #exportKey = null;
  get imported() {
    return this.importKey !== null;
  }
  get exportedKey() {
    return this.#exportKey;
  }
  get address() {
    return this.handleFor("address");
  }
  describe() {
    return `${super.describe()}[${this.bytes} B${this.imported ? ", imported" : ""}]`;
  }
  #range(call, offset, length) {
    checkCount(offset, `${call}: offset`, 0, this.bytes);
    checkCount(length, `${call}: length`, 0, this.bytes - offset);
    return this.handleFor(call, this.describe()) + BigInt(offset);
  }
  write(data, offset = 0) {
    if (!(data instanceof Uint8Array)) throw new TypeError(`write expects a Uint8Array, got ${typeof data}`);
    const dst = this.#range("aclrtMemcpy", offset, data.length);
    if (data.length === 0) return;
    const args = `dst=${this.describe()}+${offset}, src=host, count=${data.length}, kind=HOST_TO_DEVICE`;
    this.rt.check(this.rt.raw.aclrtMemcpy(dst, data.length, data, data.length, MemcpyKind.HOST_TO_DEVICE), "aclrtMemcpy", args);
  }
  read(length, offset = 0) {
    const count = length ?? this.bytes - offset;
    const src = this.#range("aclrtMemcpy", offset, count);
    const out2 = new Uint8Array(count);
    if (count === 0) return out2;
    const args = `dst=host, src=${this.describe()}+${offset}, count=${out2.length}, kind=DEVICE_TO_HOST`;
    this.rt.check(this.rt.raw.aclrtMemcpy(out2, out2.length, src, out2.length, MemcpyKind.DEVICE_TO_HOST), "aclrtMemcpy", args);
    return out2;
  }
  fill(value, stream, offset = 0, length = this.bytes - offset) {
    checkCount(value, "fill: value", 0, 255);
    const dst = this.#range("aclrtMemsetAsync", offset, length);
    const { ptr, text } = this.rt.streamArg(stream, "aclrtMemsetAsync");
    const args = `devPtr=${this.describe()}+${offset}, value=${value}, count=${length}, ${text}`;
    this.rt.check(this.rt.raw.aclrtMemsetAsync(dst, length, value, length, ptr), "aclrtMemsetAsync", args);
  }
  copyFrom(src, stream, length = Math.min(this.bytes, src.bytes)) {
    if (!(src instanceof _DeviceBufferImpl)) throw new TypeError("copyFrom expects a DeviceBuffer of this binding");
    const dst = this.#range("aclrtMemcpyAsync", 0, length);
    const from = src.#range("aclrtMemcpyAsync", 0, length);
    const { ptr, text } = this.rt.streamArg(stream, "aclrtMemcpyAsync");
    const args = `dst=${this.describe()}, src=${src.describe()}, count=${length}, kind=DEVICE_TO_DEVICE, ${text}`;
    this.rt.check(
      this.rt.raw.aclrtMemcpyAsync(dst, this.bytes, from, length, MemcpyKind.DEVICE_TO_DEVICE, ptr),
      "aclrtMemcpyAsync",
      args
    );
  }
  exportKey(opts = {}) {
    const call = "aclrtIpcMemGetExportKey";
    const size = Math.ceil(this.bytes / IPC_PAGE_SIZE) * IPC_PAGE_SIZE;
    const flags = opts.pidValidation === false ? IpcMemExportFlag.DISABLE_PID_VALIDATION : IpcMemExportFlag.DEFAULT;
    const args = `${this.describe()}, size=${size}, key=&out, len=${IPC_KEY_BUFFER_SIZE}, flags=${flags}`;
    const p = this.handleFor(call, args);
    this.#exportKey = readKey((buf) => this.rt.check(this.rt.raw.aclrtIpcMemGetExportKey(p, size, buf, buf.length, flags), call, args));
    return this.#exportKey;
  }
  allowImporters(pids) {
    const call = "aclrtIpcMemSetImportPid";
    this.handleFor(call);
    const key = this.#exportKey;
    if (!key) throw new Error(`${call}: export the buffer first (exportKey()), then list the importers' pids`);
    const list = checkPids(pids, call);
    this.rt.check(this.rt.raw.aclrtIpcMemSetImportPid(key, list, list.length), call, `key=${key}, pid=[${pids.join(",")}], num=${list.length}`);
  }
  /** In the exporter: aclrtIpcMemClose(key), after which new imports fail; this buffer stays usable. */
  closeExport() {
    const call = "aclrtIpcMemClose";
    this.handleFor(call);
    const key = this.#exportKey;
    if (!key) throw new Error(`${call}: this buffer has no open export (call exportKey() first)`);
    if (liveImports.get(key)) {
      throw new Error(
        `${call}(${key}): this process still has ${liveImports.get(key)} import(s) of the key, and the call would close one of them instead of the export (CANN closes imports first): free the imports, then closeExport()`
      );
    }
    this.rt.check(this.rt.raw.aclrtIpcMemClose(key), call, `key=${key}`);
    this.#exportKey = null;
  }
  /** aclrtFree for own memory, aclrtIpcMemClose(key) for an import. */
  destroy() {
    if (this.importKey !== null) {
      this.handleFor("aclrtIpcMemClose");
      this.rt.check(this.rt.raw.aclrtIpcMemClose(this.importKey), "aclrtIpcMemClose", `key=${this.importKey}`);
      this.retire(this.destroyedBy("aclrtIpcMemClose"));
      const left = (liveImports.get(this.importKey) ?? 1) - 1;
      if (left > 0) liveImports.set(this.importKey, left);
      else liveImports.delete(this.importKey);
    } else {
      const p = this.handleFor("aclrtFree");
      this.rt.check(this.rt.raw.aclrtFree(p), "aclrtFree", this.describe());
      this.retire(this.destroyedBy("aclrtFree"));
    }
    this.rt.untrack(this);
  }
  free() {
    this.destroy();
  }
};
var NotifyImpl = class extends Owned {
  constructor(rt, ptr, imported, device) {
    super(rt, ptr);
    this.imported = imported;
    this.device = device;
  }
  imported;
  device;
  kind = "notify";
  record(stream) {
    const call = "aclrtRecordNotify";
    const { ptr, text } = this.rt.streamArg(stream, call);
    const args = `${this.describe()}, ${text}`;
    this.rt.check(this.rt.raw.aclrtRecordNotify(this.handleFor(call, args), ptr), call, args);
  }
  waitAndReset(stream, timeoutS = 0) {
    const call = "aclrtWaitAndResetNotify";
    checkCount(timeoutS, `${call}: timeout (s, 0 = forever)`, 0, 2 ** 32 - 1);
    const { ptr, text } = this.rt.streamArg(stream, call);
    const args = `${this.describe()}, ${text}, timeout=${timeoutS}`;
    this.rt.check(this.rt.raw.aclrtWaitAndResetNotify(this.handleFor(call, args), ptr, timeoutS), call, args);
  }
  exportKey(opts = {}) {
    const call = "aclrtNotifyGetExportKey";
    const flags = opts.pidValidation === false ? NotifyExportFlag.DISABLE_PID_VALIDATION : NotifyExportFlag.DEFAULT;
    const args = `${this.describe()}, key=&out, len=${IPC_KEY_BUFFER_SIZE}, flags=${flags}`;
    const n = this.handleFor(call, args);
    return readKey((buf) => this.rt.check(this.rt.raw.aclrtNotifyGetExportKey(n, buf, buf.length, flags), call, args));
  }
  allowImporters(pids) {
    const call = "aclrtNotifySetImportPid";
    const n = this.handleFor(call);
    const list = checkPids(pids, call);
    this.rt.check(this.rt.raw.aclrtNotifySetImportPid(n, list, list.length), call, `${this.describe()}, pid=[${pids.join(",")}], num=${list.length}`);
  }
  destroy() {
    const n = this.handleFor("aclrtDestroyNotify");
    this.rt.check(this.rt.raw.aclrtDestroyNotify(n), "aclrtDestroyNotify", this.describe());
    this.retire(this.destroyedBy("aclrtDestroyNotify"));
    this.rt.untrack(this);
  }
};
function mallocBuffer(rt, bytes) {
  checkCount(bytes, "malloc: bytes", 1, Number.MAX_SAFE_INTEGER);
  const out2 = [null];
  rt.check(rt.raw.aclrtMalloc(out2, bytes, MemMallocPolicy.HUGE_FIRST), "aclrtMalloc", `devPtr=&out, size=${bytes}, policy=HUGE_FIRST`);
  const b = new DeviceBufferImpl(rt, out2[0], bytes, rt.deviceOrUnknown(), null);
  rt.track(b);
  return b;
}
function importBuffer(rt, key, bytes, opts = {}) {
  const call = "aclrtIpcMemImportByKey";
  checkKey(key, call);
  checkCount(bytes, `${call}: bytes`, 1, Number.MAX_SAFE_INTEGER);
  const flags = opts.peerAccess ? IpcMemImportFlag.ENABLE_PEER_ACCESS : IpcMemImportFlag.DEFAULT;
  const out2 = [null];
  rt.check(rt.raw.aclrtIpcMemImportByKey(out2, key, flags), call, `devPtr=&out, key=${key}, flags=${flags}`);
  const b = new DeviceBufferImpl(rt, out2[0], bytes, rt.deviceOrUnknown(), key);
  liveImports.set(key, (liveImports.get(key) ?? 0) + 1);
  rt.track(b);
  return b;
}
function createNotify(rt, flag = NotifyFlag.DEFAULT) {
  const out2 = [null];
  rt.check(rt.raw.aclrtCreateNotify(out2, flag), "aclrtCreateNotify", `notify=&out, flag=${flag}`);
  const n = new NotifyImpl(rt, out2[0], false, rt.deviceOrUnknown());
  rt.track(n);
  return n;
}
function importNotify(rt, key, opts = {}) {
  const call = "aclrtNotifyImportByKey";
  checkKey(key, call);
  const flags = opts.peerAccess ? NotifyImportFlag.ENABLE_PEER_ACCESS : NotifyImportFlag.DEFAULT;
  const out2 = [null];
  rt.check(rt.raw.aclrtNotifyImportByKey(out2, key, flags), call, `notify=&out, key=${key}, flags=${flags}`);
  const n = new NotifyImpl(rt, out2[0], true, rt.deviceOrUnknown());
  rt.track(n);
  return n;
}

// ../../work/main/src/acl/call-record.ts
var TEXT_BYTES = 1024;
var HEADER_BYTES = 16;
var SINCE_OFFSET = HEADER_BYTES;
var TEXT_OFFSET = SINCE_OFFSET + 8;
var encoder = new TextEncoder();
var CALL_RECORD_BYTES = TEXT_OFFSET + TEXT_BYTES;
var CallRecord = class {
  #buffer;
  #words;
  #since;
  #text;
  /** A record at byteOffset of buffer (a slot of the thread table), or a fresh buffer of its own. */
  constructor(buffer = new SharedArrayBuffer(CALL_RECORD_BYTES), byteOffset = 0) {
    this.#bind(buffer, byteOffset);
  }
  get buffer() {
    return this.#buffer;
  }
  /** From now on write into slot `slot` of a thread table (a worker thread's own record). */
  useThreadSlot(table, slot) {
    if (!Number.isInteger(slot) || slot < 0 || (slot + 1) * CALL_RECORD_BYTES > table.byteLength) return;
    this.#bind(table, slot * CALL_RECORD_BYTES);
  }
  #bind(buffer, at) {
    this.#buffer = buffer;
    this.#words = new Int32Array(buffer, at, 4);
    this.#since = new BigInt64Array(buffer, at + SINCE_OFFSET, 1);
    this.#text = new Uint8Array(buffer, at + TEXT_OFFSET, TEXT_BYTES);
  }
  begin(name, args) {
    Atomics.add(this.#words, 0, 1);
    const { written } = encoder.encodeInto(`${name}
${args}`, this.#text);
    Atomics.store(this.#words, 2, written);
    Atomics.store(this.#since, 0, process.hrtime.bigint());
    Atomics.store(this.#words, 1, 1);
    Atomics.add(this.#words, 0, 1);
  }
  end() {
    Atomics.store(this.#words, 1, 0);
  }
  latchOpened() {
    Atomics.add(this.#words, 3, 1);
  }
  latchReleased() {
    Atomics.sub(this.#words, 3, 1);
  }
  /** Safe from any thread; retries while a write is in progress. */
  read() {
    for (let attempt2 = 0; attempt2 < 100; attempt2++) {
      const seq = Atomics.load(this.#words, 0);
      if (seq % 2 === 1) continue;
      const active = Atomics.load(this.#words, 1) === 1;
      const len = Atomics.load(this.#words, 2);
      const since = Atomics.load(this.#since, 0);
      const text = Buffer.from(this.#text.slice(0, len)).toString("utf8");
      const openLatches = Atomics.load(this.#words, 3);
      if (Atomics.load(this.#words, 0) !== seq) continue;
      if (!active) return { call: null, openLatches };
      const nl = text.indexOf("\n");
      return { call: { name: text.slice(0, nl), args: text.slice(nl + 1), sinceNs: since.toString() }, openLatches };
    }
    return { call: null, openLatches: Atomics.load(this.#words, 3) };
  }
};
var callRecord = new CallRecord();
function recordCall(name, args, fn) {
  callRecord.begin(name, args);
  try {
    return fn();
  } finally {
    callRecord.end();
  }
}

// ../../work/main/src/acl/core.ts
function checkInt(value, what, min, max) {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new TypeError(`${what} must be an integer in [${min}, ${max}], got ${String(value)}`);
  }
  return value;
}
var INT32_MIN = -(2 ** 31);
var INT32_MAX = 2 ** 31 - 1;
var UINT32_MAX = 2 ** 32 - 1;

// ../../work/main/src/acl/latch.ts
var latchesPendingAtExit = /* @__PURE__ */ new Set();
var exitHookInstalled2 = false;
function installExitHook() {
  if (exitHookInstalled2) return;
  exitHookInstalled2 = true;
  process.on("exit", () => {
    for (const l of [...latchesPendingAtExit]) l.release();
  });
}
function releaseAtExit(l) {
  latchesPendingAtExit.add(l);
  installExitHook();
}
function forgetAtExit(l) {
  latchesPendingAtExit.delete(l);
}
var LatchImpl = class {
  constructor(hold, native, onReleased) {
    this.hold = hold;
    this.onReleased = onReleased;
    this.#native = native;
    callRecord.latchOpened();
  }
  hold;
  onReleased;
  #native;
  get released() {
    return this.#native === null;
  }
  release() {
    const native = this.#native;
    if (native === null) return;
    this.#native = null;
    this.hold.latchRelease(native);
    this.hold.latchDestroy(native);
    callRecord.latchReleased();
    this.onReleased();
  }
  [Symbol.dispose]() {
    this.release();
  }
};

// ../../work/main/src/acl/stream.ts
var StreamImpl = class extends Owned {
  kind = "stream";
  #device;
  /** Latches enqueued on this stream and not yet released. */
  #latches = /* @__PURE__ */ new Set();
  constructor(rt, ptr, device) {
    super(rt, ptr);
    this.#device = device;
  }
  get isDefault() {
    return this.ptr === null;
  }
  get device() {
    return this.isDefault ? this.rt.deviceOrUnknown() : this.#device;
  }
  describe() {
    return this.isDefault ? "stream=NULL(default)" : super.describe();
  }
  synchronize(timeoutMs) {
    if (timeoutMs === void 0) {
      const s = this.handleFor("aclrtSynchronizeStream");
      const args = this.describe();
      this.rt.check(recordCall("aclrtSynchronizeStream", args, () => this.rt.raw.aclrtSynchronizeStream(s)), "aclrtSynchronizeStream", args);
    } else {
      const args = `${this.describe()}, timeout=${timeoutMs}`;
      const s = this.handleFor("aclrtSynchronizeStreamWithTimeout", args);
      checkInt(timeoutMs, "stream synchronize timeout (ms)", INT32_MIN, INT32_MAX);
      const rc = recordCall("aclrtSynchronizeStreamWithTimeout", args, () => this.rt.raw.aclrtSynchronizeStreamWithTimeout(s, timeoutMs));
      this.rt.check(rc, "aclrtSynchronizeStreamWithTimeout", args);
    }
  }
  waitEvent(ev, timeoutMs) {
    const event = this.rt.ownEvent(ev, "waitEvent");
    const call = timeoutMs === void 0 ? "aclrtStreamWaitEvent" : "aclrtStreamWaitEventWithTimeout";
    const args = `${this.describe()}, ${event.describe()}${timeoutMs === void 0 ? "" : `, timeout=${timeoutMs}`}`;
    const s = this.handleFor(call, args);
    const e = event.handleFor(call, args);
    if (timeoutMs === void 0) {
      this.rt.check(this.rt.raw.aclrtStreamWaitEvent(s, e), call, args);
    } else {
      checkInt(timeoutMs, "stream wait timeout (ms)", INT32_MIN, INT32_MAX);
      this.rt.check(this.rt.raw.aclrtStreamWaitEventWithTimeout(s, e, timeoutMs), call, args);
    }
  }
  hold(ms) {
    checkInt(ms, "hold duration (ms)", 0, INT32_MAX);
    const args = `${this.describe()}, fn=cannharness_sleep_ms, args=${ms}`;
    const s = this.handleFor("aclrtLaunchHostFunc", args);
    const hold = this.rt.holdLibrary();
    this.rt.check(this.rt.raw.aclrtLaunchHostFunc(s, hold.sleepMsFn, BigInt(ms)), "aclrtLaunchHostFunc", args);
  }
  latch() {
    const s = this.handleFor("aclrtLaunchHostFunc", `${this.describe()}, fn=cannharness_latch_wait`);
    const hold = this.rt.holdLibrary();
    const native = hold.latchCreate();
    if (!native) throw new Error("cannharness_latch_create() returned NULL (out of memory?)");
    const args = `${this.describe()}, fn=cannharness_latch_wait, args=${hex(native)}`;
    const rc = this.rt.raw.aclrtLaunchHostFunc(s, hold.latchWaitFn, native);
    if (rc !== 0) {
      hold.latchRelease(native);
      hold.latchWait(native);
      hold.latchDestroy(native);
      this.rt.check(rc, "aclrtLaunchHostFunc", args);
    }
    const latch = new LatchImpl(hold, native, () => {
      this.#latches.delete(latch);
      this.rt.untrackLatch(latch);
    });
    this.#latches.add(latch);
    this.rt.trackLatch(latch);
    return latch;
  }
  destroy() {
    if (this.isDefault) {
      throw new AclError({
        code: AclErrorCode.ACL_ERROR_RT_PARAM_INVALID,
        call: "aclrtDestroyStream",
        args: this.describe(),
        detail: "the default stream belongs to the device and cannot be destroyed"
      });
    }
    const s = this.handleFor("aclrtDestroyStream");
    for (const l of [...this.#latches]) l.release();
    this.rt.check(this.rt.raw.aclrtDestroyStream(s), "aclrtDestroyStream", this.describe());
    this.retire(this.destroyedBy("aclrtDestroyStream"));
    this.rt.untrack(this);
  }
  [Symbol.dispose]() {
    if (!this.isDefault) super[Symbol.dispose]();
  }
};

// ../../work/main/src/acl/event.ts
var EventImpl = class extends Owned {
  constructor(rt, ptr, isIpc, device) {
    super(rt, ptr);
    this.isIpc = isIpc;
    this.device = device;
  }
  isIpc;
  device;
  kind = "event";
  record(stream) {
    this.onStream("aclrtRecordEvent", stream, (e, s) => this.rt.raw.aclrtRecordEvent(e, s));
  }
  reset(stream) {
    this.onStream("aclrtResetEvent", stream, (e, s) => this.rt.raw.aclrtResetEvent(e, s));
  }
  onStream(call, stream, fn) {
    const st = stream === void 0 ? null : this.rt.ownStream(stream, call);
    const args = `${this.describe()}, ${st ? st.describe() : "stream=NULL(default)"}`;
    const e = this.handleFor(call, args);
    const s = st ? st.handleFor(call, args) : null;
    this.rt.check(fn(e, s), call, args);
  }
  queryStatus() {
    return this.queryOut("aclrtQueryEventStatus", (e, o) => this.rt.raw.aclrtQueryEventStatus(e, o));
  }
  query() {
    return this.queryOut("aclrtQueryEvent", (e, o) => this.rt.raw.aclrtQueryEvent(e, o));
  }
  queryWaitStatus() {
    return this.queryOut("aclrtQueryEventWaitStatus", (e, o) => this.rt.raw.aclrtQueryEventWaitStatus(e, o));
  }
  queryOut(call, fn) {
    const args = `${this.describe()}, status=&out`;
    const e = this.handleFor(call, args);
    const out2 = [-1];
    this.rt.check(fn(e, out2), call, args);
    return out2[0];
  }
  synchronize(timeoutMs) {
    if (timeoutMs === void 0) {
      const e = this.handleFor("aclrtSynchronizeEvent");
      const args = this.describe();
      this.rt.check(recordCall("aclrtSynchronizeEvent", args, () => this.rt.raw.aclrtSynchronizeEvent(e)), "aclrtSynchronizeEvent", args);
    } else {
      const args = `${this.describe()}, timeout=${timeoutMs}`;
      const e = this.handleFor("aclrtSynchronizeEventWithTimeout", args);
      checkInt(timeoutMs, "event synchronize timeout (ms)", INT32_MIN, INT32_MAX);
      const rc = recordCall("aclrtSynchronizeEventWithTimeout", args, () => this.rt.raw.aclrtSynchronizeEventWithTimeout(e, timeoutMs));
      this.rt.check(rc, "aclrtSynchronizeEventWithTimeout", args);
    }
  }
  elapsedTime(end) {
    const endEvent = this.rt.ownEvent(end, "elapsedTime");
    const args = `ms=&out, start${this.describe()}, end${endEvent.describe()}`.replace(/(start|end)event=/g, "$1Event=");
    const s = this.handleFor("aclrtEventElapsedTime", args);
    const e = endEvent.handleFor("aclrtEventElapsedTime", args);
    const ms = [0];
    this.rt.check(this.rt.raw.aclrtEventElapsedTime(ms, s, e), "aclrtEventElapsedTime", args);
    return ms[0];
  }
  timestamp() {
    const args = `${this.describe()}, timestamp=&out`;
    const e = this.handleFor("aclrtEventGetTimestamp", args);
    const out2 = new BigUint64Array(1);
    this.rt.check(this.rt.raw.aclrtEventGetTimestamp(e, out2), "aclrtEventGetTimestamp", args);
    return out2[0];
  }
  id() {
    const args = `${this.describe()}, eventId=&out`;
    const e = this.handleFor("aclrtGetEventId", args);
    const out2 = [0];
    this.rt.check(this.rt.raw.aclrtGetEventId(e, out2), "aclrtGetEventId", args);
    return out2[0];
  }
  ipcHandle() {
    const args = `${this.describe()}, handle=&out`;
    const e = this.handleFor("aclrtIpcGetEventHandle", args);
    const out2 = {};
    this.rt.check(this.rt.raw.aclrtIpcGetEventHandle(e, out2), "aclrtIpcGetEventHandle", args);
    if (!out2.reserved) throw new Error("aclrtIpcGetEventHandle succeeded but koffi returned no handle bytes");
    return IpcEventHandle.fromBuffer(out2.reserved);
  }
  destroy() {
    const e = this.handleFor("aclrtDestroyEvent");
    this.rt.check(this.rt.raw.aclrtDestroyEvent(e), "aclrtDestroyEvent", this.describe());
    this.retire(this.destroyedBy("aclrtDestroyEvent"));
    this.rt.untrack(this);
  }
};

// ../../work/main/src/acl/runtime.ts
var AclRuntime = class {
  constructor(library, raw, loadHold) {
    this.library = library;
    this.raw = raw;
    this.loadHold = loadHold;
  }
  library;
  raw;
  loadHold;
  #initialized = false;
  #hold = null;
  #defaultStream = null;
  /** Streams and events not yet destroyed, so finalize() can retire them. */
  #live = /* @__PURE__ */ new Set();
  /** Latches not yet released, so stream destroy / finalize / exit never leave a runtime thread blocked. */
  #latches = /* @__PURE__ */ new Set();
  // ---- plumbing -------------------------------------------------------------------------------
  /** Throws AclError for a non-zero return code. */
  check(rc, call, args) {
    if (rc !== 0) throw new AclError({ code: rc, call, args, recentErrMsg: this.raw.aclGetRecentErrMsg() });
  }
  holdLibrary() {
    this.#hold ??= this.loadHold();
    return this.#hold;
  }
  track(o) {
    this.#live.add(o);
  }
  untrack(o) {
    this.#live.delete(o);
  }
  trackLatch(l) {
    this.#latches.add(l);
    releaseAtExit(l);
  }
  untrackLatch(l) {
    this.#latches.delete(l);
    forgetAtExit(l);
  }
  releaseAllLatches() {
    for (const l of [...this.#latches]) l.release();
  }
  // ---- init, devices ----------------------------------------------------------------------------
  get initialized() {
    return this.#initialized;
  }
  init(configPath) {
    this.check(this.raw.aclInit(configPath ?? null), "aclInit", configPath === void 0 ? "NULL" : JSON.stringify(configPath));
    this.#initialized = true;
  }
  finalize() {
    this.releaseAllLatches();
    this.check(recordCall("aclFinalize", "", () => this.raw.aclFinalize()), "aclFinalize", "");
    this.#initialized = false;
    for (const o of [...this.#live]) {
      o.retire({ code: AclErrorCode.ACL_ERROR_UNINITIALIZE, detail: `aclFinalize() was called, the ${o.kind} no longer exists` });
    }
    this.#live.clear();
  }
  recentErrMsg() {
    return this.raw.aclGetRecentErrMsg();
  }
  getDeviceCount() {
    const count = [0];
    this.check(this.raw.aclrtGetDeviceCount(count), "aclrtGetDeviceCount", "count=&out");
    return count[0];
  }
  setDevice(id) {
    this.check(this.raw.aclrtSetDevice(checkInt(id, "device id", INT32_MIN, INT32_MAX)), "aclrtSetDevice", `deviceId=${id}`);
  }
  resetDevice(id) {
    this.check(this.raw.aclrtResetDevice(checkInt(id, "device id", INT32_MIN, INT32_MAX)), "aclrtResetDevice", `deviceId=${id}`);
  }
  resetDeviceForce(id) {
    this.check(
      this.raw.aclrtResetDeviceForce(checkInt(id, "device id", INT32_MIN, INT32_MAX)),
      "aclrtResetDeviceForce",
      `deviceId=${id}`
    );
  }
  getDevice() {
    const id = [-1];
    this.check(this.raw.aclrtGetDevice(id), "aclrtGetDevice", "deviceId=&out");
    return id[0];
  }
  setOpWaitTimeout(ms) {
    this.check(this.raw.aclrtSetOpWaitTimeout(checkInt(ms, "op wait timeout (ms)", 0, UINT32_MAX)), "aclrtSetOpWaitTimeout", `timeout=${ms}`);
  }
  monotonicNs() {
    return this.holdLibrary().monotonicNs();
  }
  // ---- streams ----------------------------------------------------------------------------------
  createStream() {
    const out2 = [null];
    this.check(this.raw.aclrtCreateStream(out2), "aclrtCreateStream", "stream=&out");
    const s = new StreamImpl(this, out2[0], this.deviceOrUnknown());
    this.track(s);
    return s;
  }
  get defaultStream() {
    this.#defaultStream ??= new StreamImpl(this, null, -1);
    return this.#defaultStream;
  }
  /** The current device, or -1 if the runtime cannot say (the object stays usable either way). */
  deviceOrUnknown() {
    const id = [-1];
    return this.raw.aclrtGetDevice(id) === 0 ? id[0] : -1;
  }
  // ---- events -----------------------------------------------------------------------------------
  createEvent() {
    const out2 = [null];
    this.check(this.raw.aclrtCreateEvent(out2), "aclrtCreateEvent", "event=&out");
    return this.adoptEvent(out2[0], false);
  }
  createEventWithFlag(flag) {
    checkInt(flag, "event flag", 0, UINT32_MAX);
    const out2 = [null];
    this.check(this.raw.aclrtCreateEventWithFlag(out2, flag), "aclrtCreateEventWithFlag", `event=&out, flag=0x${flag.toString(16)}`);
    return this.adoptEvent(out2[0], (flag & EventFlag.IPC) !== 0);
  }
  createEventExWithFlag(flag) {
    checkInt(flag, "event flag", 0, UINT32_MAX);
    const out2 = [null];
    this.check(this.raw.aclrtCreateEventExWithFlag(out2, flag), "aclrtCreateEventExWithFlag", `event=&out, flag=0x${flag.toString(16)}`);
    return this.adoptEvent(out2[0], (flag & EventFlag.IPC) !== 0);
  }
  createIpcEvent() {
    return this.createEventExWithFlag(EventFlag.IPC);
  }
  openIpcEvent(handle) {
    if (!(handle instanceof IpcEventHandle)) {
      throw new TypeError("openIpcEvent expects an IpcEventHandle (use IpcEventHandle.fromBuffer or .readFile)");
    }
    const out2 = [null];
    const rc = this.raw.aclrtIpcOpenEventHandle({ reserved: new Uint8Array(handle.toBuffer()) }, out2);
    this.check(rc, "aclrtIpcOpenEventHandle", `handle=${handle.toShortHex()}, event=&out`);
    return this.adoptEvent(out2[0], true);
  }
  // ---- memory, notify, peer access (data.ts) -----------------------------------------------------
  malloc(bytes) {
    return mallocBuffer(this, bytes);
  }
  importMemory(key, bytes, opts) {
    return importBuffer(this, key, bytes, opts);
  }
  createNotify(flag) {
    return createNotify(this, flag);
  }
  importNotify(key, opts) {
    return importNotify(this, key, opts);
  }
  bareTgid() {
    const pid = [0];
    this.check(this.raw.aclrtDeviceGetBareTgid(pid), "aclrtDeviceGetBareTgid", "pid=&out");
    return pid[0];
  }
  canAccessPeer(deviceId, peerDeviceId) {
    const can = [0];
    const args = `canAccessPeer=&out, deviceId=${deviceId}, peerDeviceId=${peerDeviceId}`;
    this.check(
      this.raw.aclrtDeviceCanAccessPeer(can, checkInt(deviceId, "device id", INT32_MIN, INT32_MAX), checkInt(peerDeviceId, "peer device id", INT32_MIN, INT32_MAX)),
      "aclrtDeviceCanAccessPeer",
      args
    );
    return can[0] === 1;
  }
  enablePeerAccess(peerDeviceId) {
    const peer = checkInt(peerDeviceId, "peer device id", INT32_MIN, INT32_MAX);
    this.check(this.raw.aclrtDeviceEnablePeerAccess(peer, 0), "aclrtDeviceEnablePeerAccess", `peerDeviceId=${peer}, flags=0`);
  }
  streamArg(stream, call) {
    const st = stream === void 0 ? null : asStreamImpl(stream, call);
    const text = st ? st.describe() : "stream=NULL(default)";
    return { ptr: st ? st.handleFor(call, text) : null, text };
  }
  ownStream(s, call) {
    return asStreamImpl(s, call);
  }
  ownEvent(e, call) {
    return asEventImpl(e, call);
  }
  adoptEvent(ptr, isIpc) {
    const e = new EventImpl(this, ptr, isIpc, this.deviceOrUnknown());
    this.track(e);
    return e;
  }
};
function asStreamImpl(s, call) {
  if (!(s instanceof StreamImpl)) throw new TypeError(`${call}: expected a Stream created by this Acl binding`);
  return s;
}
function asEventImpl(e, call) {
  if (!(e instanceof EventImpl)) throw new TypeError(`${call}: expected an Event created by this Acl binding`);
  return e;
}

// ../../work/main/src/acl/index.ts
init_enums();

// ../../work/main/src/acl/reclaim.ts
var path5 = __toESM(require("node:path"));
var reclaimToolPath = path5.join(stubBuildDir(), "bin", "cannstub_reclaim");

// ../../work/main/src/acl/index.ts
var LibraryLoadError = class extends Error {
  constructor(message, library, options) {
    super(message, options);
    this.library = library;
    this.name = "LibraryLoadError";
  }
  library;
};
function loadAcl(opts = {}) {
  const env = opts.env ?? process.env;
  const mode = opts.mode ?? modeFromEnv(env);
  let choice = resolveLibrary({ ...opts, mode, env });
  const native = (init_native(), __toCommonJS(native_exports));
  let loaded;
  try {
    loaded = native.loadAclLibrary(choice.path);
  } catch (err) {
    const why = err.message;
    const canFallBack = choice.requested === "auto" && choice.mode === "real" && !env[ENV.library];
    const missing = /Cannot find function '(\w+)'/.exec(why);
    if (missing && env[ENV.library]) {
      throw new LibraryLoadError(
        `CANN_HARNESS_LIBRARY=${env[ENV.library]} is not an ACL runtime: it loads but has no ${missing[1]}(). Point CANN_HARNESS_LIBRARY at a libascendcl.so (CANN's, or the stub's ${resolveLibrary({ ...opts, mode: "stub", env: { ...env, [ENV.library]: "" } }).path}), or unset it.`,
        choice,
        { cause: err }
      );
    }
    if (!canFallBack) {
      throw new LibraryLoadError(
        `cannot load ${choice.path} (${choice.reason}): ${why}` + (choice.mode === "real" ? ". Is the CANN environment set up (`source <CANN install>/set_env.sh`) so its dependencies are on LD_LIBRARY_PATH?" : ". Rebuild the stub with `npm run build:stub`."),
        choice,
        { cause: err }
      );
    }
    const stub = resolveLibrary({ ...opts, mode: "stub", env });
    loaded = native.loadAclLibrary(stub.path);
    choice = {
      ...stub,
      requested: "auto",
      tried: [...choice.tried, ...stub.tried],
      reason: `auto: using the stub ${stub.path} because the real ${choice.path} was found but failed to load (${why.split("\n")[0]})`
    };
  }
  publishLoadedLibrary(choice.path);
  return new AclRuntime(choice, loaded.fns, () => native.loadHoldLibrary(resolveHoldLibrary(env)));
}

// floor.ts
function main(dev) {
  const acl = loadAcl({ mode: "stub" });
  acl.init();
  acl.setDevice(dev);
  acl.createIpcEvent().destroy();
  acl.finalize();
}

// floor-plain.ts
main(Number(process.argv[2] ?? 0));
