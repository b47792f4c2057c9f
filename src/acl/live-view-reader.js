// @ts-check
/**
 * Calls the stub's cannstub_live_view from the watcher thread (see live-view.ts). Plain JavaScript
 * because the watcher runs without a TypeScript loader. Returns the raw JSON text, or throws an
 * Error saying why there is none (no library loaded yet, a runtime without the call: real CANN).
 */
'use strict';

const INITIAL_BYTES = 64 * 1024;
const MAX_BYTES = 16 * 1024 * 1024;

/** @param {SharedArrayBuffer} loaded the main thread's loadedLibrary buffer */
function libraryPath(loaded) {
  const len = Atomics.load(new Int32Array(loaded, 0, 1), 0);
  if (len <= 0) return null;
  return Buffer.from(new Uint8Array(loaded, 4, len)).toString('utf8');
}

/** @type {Map<string, (buf: Buffer, len: number) => number>} */
const calls = new Map();

/** @param {SharedArrayBuffer} loaded */
function readLiveViewJson(loaded) {
  const file = libraryPath(loaded);
  if (!file) throw new Error('this process has not loaded an ACL library (yet)');
  let call = calls.get(file);
  if (!call) {
    const koffi = require('koffi');
    // dlopen of a loaded file returns the same library: the process's one runtime.
    const lib = koffi.load(file);
    try {
      call = /** @type {(buf: Buffer, len: number) => number} */ (lib.func('cannstub_live_view', 'int', ['void *', 'size_t']));
    } catch {
      throw new Error(`${file} has no cannstub_live_view (a stub-only call; real CANN has none)`);
    }
    calls.set(file, call);
  }
  for (let size = INITIAL_BYTES; size <= MAX_BYTES; size *= 4) {
    const buf = Buffer.alloc(size);
    const n = call(buf, size);
    if (n === -2) throw new Error('the stub runtime lock stayed held (cannstub_live_view gave up)');
    if (n < 0) throw new Error(`cannstub_live_view returned ${n}`);
    if (n < size) return buf.toString('utf8', 0, n);
  }
  throw new Error(`the live view is larger than ${MAX_BYTES} bytes`);
}

module.exports = { readLiveViewJson };
