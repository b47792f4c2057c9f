/**
 * Whole-file publication: readers see either no file or the complete file, never a prefix.
 * The data goes to a hidden temporary file on the same filesystem (so the rename is atomic), then
 * is renamed over the final name. No flush to disk (fdatasync): the readers are processes of the
 * same machine, which see the page cache, so the rename alone makes the whole file visible at
 * once; a flush only matters after a machine crash, which ends the run and its scenario directory
 * anyway. It cost 2-5 ms a publish on ext4 `/tmp` (issue #35: most of a per-round share).
 *
 * Latency (bench/rendezvous-latency.bench.ts): with a staging directory, the next temporary file
 * ("spare") is created ahead of time, just after a publish, off the critical path, so a publish is
 * write + rename only; and the temporary files live outside the directories that readers watch,
 * so a reader wakes up once (for the rename), not for every step.
 */
import { openSync, writeSync, closeSync, renameSync, unlinkSync } from 'node:fs';
import * as path from 'node:path';

let tempCounter = 0;
/** How many taken names createTemp skips before giving up (a name is taken only by a dead process's leftover or another thread). */
const TEMP_NAME_TRIES = 100;

/**
 * Creates (O_EXCL) a new temporary file in `dir`, named by pid and a counter: unique among live
 * processes, and O_EXCL moves on to the next name if a thread of this process or a dead process
 * with the same pid took it. (No random names: node:crypto costs a device process ~2 MiB.)
 * Leading '.' keeps temp files out of the valid-name space, so no reader ever awaits one.
 */
function createTemp(dir: string, base: string): { fd: number; file: string } {
  for (let tries = 1; ; tries++) {
    const file = path.join(dir, `.${base}.${process.pid}.${++tempCounter}.tmp`);
    try {
      return { fd: openSync(file, 'wx', 0o644), file };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || tries >= TEMP_NAME_TRIES) throw e;
    }
  }
}

// ---- spare temporary files, one per staging directory (bounded, removed at exit) ----

interface Spare {
  fd: number;
  file: string;
}
const MAX_SPARES = 8;
const spares = new Map<string, Spare>(); // insertion order = age, for eviction
const preparing = new Set<string>();
let exitHookInstalled = false;

function discard(s: Spare): void {
  try {
    closeSync(s.fd);
  } catch {
    /* already closed */
  }
  try {
    unlinkSync(s.file);
  } catch {
    /* its directory may be gone already */
  }
}

function discardAllSpares(): void {
  for (const s of spares.values()) discard(s);
  spares.clear();
}

function takeSpare(stagingDir: string): Spare | undefined {
  const s = spares.get(stagingDir);
  if (s) spares.delete(stagingDir);
  return s;
}

/** Soon (not now: the caller is on the latency path), create the next temporary file. */
function prepareSpare(stagingDir: string): void {
  if (spares.has(stagingDir) || preparing.has(stagingDir)) return;
  preparing.add(stagingDir);
  setTimeout(() => {
    preparing.delete(stagingDir);
    if (spares.has(stagingDir)) return;
    let spare: Spare;
    try {
      spare = createTemp(stagingDir, 'spare'); // never creates directories: a removed scenario stays removed
    } catch {
      return;
    }
    if (spares.size >= MAX_SPARES) {
      const [oldest] = spares.keys();
      discard(spares.get(oldest)!);
      spares.delete(oldest);
    }
    spares.set(stagingDir, spare);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on('exit', discardAllSpares);
    }
  }, 0).unref();
}

/**
 * Synchronous publication (also usable from an exit handler). With `stagingDir` (a directory on
 * the same filesystem as `finalPath`, e.g. the scenario directory's `.staging`), the temporary
 * file is taken from there, prepared in advance when possible.
 */
export function writeFileAtomicSync(finalPath: string, data: Buffer | string, stagingDir?: string): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const { fd, file: tmp } = (stagingDir ? takeSpare(stagingDir) : undefined) ?? createTemp(stagingDir ?? path.dirname(finalPath), path.basename(finalPath));
  try {
    if (bytes.length > 0) writeSync(fd, bytes);
  } catch (e) {
    closeSync(fd);
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw e;
  }
  closeSync(fd);
  try {
    renameSync(tmp, finalPath);
  } catch (e) {
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw e;
  }
  if (stagingDir) prepareSpare(stagingDir);
}

/**
 * Publishes an empty file (a signal, a done flag): created under its final name at once, with
 * O_CREAT|O_EXCL (never through a link), as an empty file cannot be torn. One file-system
 * operation instead of a temporary file and a rename: on ext4 each costs ~0.1 ms of CPU, and a
 * soak round signals several times (issue #35). A file already there means already published:
 * the same empty content, as a rename over it would have left.
 */
export function createEmptyFileSync(finalPath: string): void {
  let fd: number;
  try {
    fd = openSync(finalPath, 'wx', 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw e;
  }
  closeSync(fd);
}
