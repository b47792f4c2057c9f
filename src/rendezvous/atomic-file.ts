/**
 * Whole-file publication: readers see either no file or the complete file, never a prefix.
 * The data goes to a hidden temporary name in the same directory (same filesystem, so the rename
 * is atomic), is fsync'ed, then renamed over the final name.
 */
import { promises as fsp, openSync, writeSync, fsyncSync, closeSync, renameSync, unlinkSync } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

function tempNameFor(finalPath: string): string {
  const base = path.basename(finalPath);
  // Leading '.' keeps temp files out of the valid-name space, so no reader ever awaits one.
  return path.join(path.dirname(finalPath), `.${base}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

export async function writeFileAtomic(finalPath: string, data: Buffer | string): Promise<void> {
  const tmp = tempNameFor(finalPath);
  const fh = await fsp.open(tmp, 'wx', 0o644);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } catch (e) {
    await fh.close().catch(() => undefined);
    await fsp.unlink(tmp).catch(() => undefined);
    throw e;
  }
  await fh.close();
  try {
    await fsp.rename(tmp, finalPath);
  } catch (e) {
    await fsp.unlink(tmp).catch(() => undefined);
    throw e;
  }
}

/** Synchronous twin, for callers that cannot await (e.g. an exit handler). */
export function writeFileAtomicSync(finalPath: string, data: Buffer | string): void {
  const tmp = tempNameFor(finalPath);
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, finalPath);
}
