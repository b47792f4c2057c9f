/**
 * The report folder: the one place the HTML writers (run --html, the HTML reporter, audit --html)
 * write. A folder is written only when it is ours: new (made here), empty, or marked by us (the
 * marker file REPORT_MARKER, written when the folder was first used), and only when it is this
 * user's own directory that no one else can write to, itself no symbolic link. Anything else (a
 * file, a link, another user's folder, a folder of someone's files such as `--html .`) is refused,
 * naming the problem and the fix, before any test runs.
 *
 * Inside it: files are written under a fresh name created exclusively (O_CREAT|O_EXCL never follows
 * a link) and renamed into place (rename replaces a link, never writes through it); the pages go into
 * a fresh folder that replaces scenarios/ only once they are all written, then index.html, so a
 * writer that dies half-way leaves the previous report whole.
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  type Stats,
} from 'node:fs';
import * as path from 'node:path';

/** The marker of a report folder: the harness made this folder, and may replace its index.html and scenarios/. */
export const REPORT_MARKER = '.cann-harness-report';
const MARKER_TEXT = 'cann-ipc-harness HTML report folder: the harness replaces index.html and scenarios/ here at every run.\n';
/** The head every page of ours starts with (write.ts, page()): how a report written before markers existed is recognised. */
const PAGE_HEAD = '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">';
const PAGE_NAME = /^\d+\.html$/;

/** Bad input: a folder the harness must not write its report into. */
export class ReportFolderError extends Error {}

const uid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/** lstat, or null when nothing is there (ENOTDIR: a file on the way, reported by the ancestor walk). */
function lstatOrNull(file: string): Stats | null {
  try {
    return lstatSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw e;
  }
}

/** Why a directory of ours must not be trusted: another owner, or others can write to it; else null. */
function notPrivate(st: Stats): string | null {
  const me = uid();
  if (me !== undefined && st.uid !== me) return `it belongs to uid ${st.uid}, not to this user (uid ${me})`;
  if ((st.mode & 0o022) !== 0) return `its mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')} lets group or others write to it`;
  return null;
}

/** The first `max` bytes of `file` when it is a regular file of this user (not followed through a link), else null. */
function readOwnHead(file: string, max: number): string | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || (uid() !== undefined && st.uid !== uid())) return null;
    const buf = Buffer.alloc(Math.min(max, st.size));
    return buf.toString('utf8', 0, readSync(fd, buf, 0, buf.length, 0));
  } finally {
    closeSync(fd);
  }
}

/** A report of ours written before the marker existed: only index.html and scenarios/<n>.html, all regular files, pages of ours. */
function isUnmarkedReport(dir: string, names: string[]): boolean {
  if (!names.every((n) => n === 'index.html' || n === 'scenarios')) return false;
  if (!readOwnHead(path.join(dir, 'index.html'), PAGE_HEAD.length)?.startsWith(PAGE_HEAD)) return false;
  if (!names.includes('scenarios')) return true;
  const pages = path.join(dir, 'scenarios');
  if (!lstatSync(pages).isDirectory()) return false;
  return readdirSync(pages).every((n) => PAGE_NAME.test(n) && lstatSync(path.join(pages, n)).isFile());
}

/** Whether `dir` (a real directory) is a report folder of the harness: marked, or a report written before the marker. */
export function isReportFolder(dir: string): boolean {
  if (readOwnHead(path.join(dir, REPORT_MARKER), MARKER_TEXT.length) === MARKER_TEXT) return true;
  try {
    return isUnmarkedReport(dir, readdirSync(dir));
  } catch {
    return false;
  }
}

/**
 * Whether the harness may write a report into `dir` ('new': it is not there yet; 'ours': an empty
 * folder, or a report folder of ours). Throws ReportFolderError naming the problem and the fix;
 * `option` is how the user gave the folder (e.g. "--html reports/html").
 */
export function checkReportFolder(dir: string, option: string): 'new' | 'ours' {
  const refuse = (problem: string) =>
    new ReportFolderError(
      `${option}: ${problem}. The HTML report is written only into a new or empty folder, ` +
        `or one the harness made (it holds ${REPORT_MARKER}): give such a folder, e.g. --html reports/html`,
    );
  const st = lstatOrNull(dir);
  if (st === null) {
    // The nearest existing ancestor must be a directory (it is made below it).
    for (let up = path.dirname(dir); ; up = path.dirname(up)) {
      let ancestor: Stats | null = null;
      try {
        ancestor = statSync(up);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') throw refuse(`${up} is inside a file`);
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      if (ancestor) {
        if (!ancestor.isDirectory()) throw refuse(`${up} is a file, not a folder`);
        return 'new';
      }
      if (path.dirname(up) === up) return 'new';
    }
  }
  if (st.isSymbolicLink()) throw refuse('it is a symbolic link (the harness never writes through one)');
  if (!st.isDirectory()) throw refuse(`it is a file, not a folder${st.isFile() ? ' (give the folder to write index.html into)' : ''}`);
  const why = notPrivate(st);
  if (why) throw refuse(why);
  const names = readdirSync(dir);
  if (names.length === 0) return 'ours';
  if (names.includes(REPORT_MARKER)) {
    if (readOwnHead(path.join(dir, REPORT_MARKER), MARKER_TEXT.length) === MARKER_TEXT) return 'ours';
    throw refuse(`its ${REPORT_MARKER} is not one the harness wrote (not a regular file of this user's with the harness's text)`);
  }
  if (isUnmarkedReport(dir, names)) return 'ours';
  const shown = names.slice(0, 3).join(', ') + (names.length > 3 ? `, ... (${names.length} entries)` : '');
  throw refuse(`it holds files the harness did not write (${shown}) and no ${REPORT_MARKER}: they would be replaced or removed`);
}

/** Makes `dir` ready for a report (checked as checkReportFolder does, made when new, marked); returns its absolute path. */
export function prepareReportFolder(dir: string, option: string): string {
  const abs = path.resolve(dir);
  if (checkReportFolder(abs, option) === 'new') {
    mkdirSync(path.dirname(abs), { recursive: true });
    try {
      mkdirSync(abs, { mode: 0o755 }); // not recursive: fails on anything made meanwhile, which is checked again
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      checkReportFolder(abs, option);
    }
  }
  const marker = path.join(abs, REPORT_MARKER);
  if (lstatOrNull(marker) === null) writeNew(marker, [MARKER_TEXT]);
  removeDeadWritersFiles(abs);
  return abs;
}

/** A staging name of ours (replaceFile, replacePages) and the pid of the writer that made it. */
const STAGING = /^\.(?:scenarios-(?:old-)?(\d+)-.+|.+\.(\d+)\.[0-9a-f]+\.tmp)$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What a writer killed half-way left in the folder (its staging names): removed, never followed. */
function removeDeadWritersFiles(dir: string): void {
  for (const name of readdirSync(dir)) {
    const m = STAGING.exec(name);
    const pid = m && Number(m[1] ?? m[2]);
    if (pid && pid !== process.pid && !alive(pid)) rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}

/**
 * Writes `parts` into a new file (created exclusively, so never through a link), one write each:
 * a page is never joined into one string.
 */
function writeNew(file: string, parts: Iterable<string>): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    for (const part of parts) {
      const bytes = Buffer.from(part);
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    }
  } finally {
    closeSync(fd);
  }
}

/** Replaces `dir/name` with `parts`, through a fresh name renamed into place. */
export function replaceFile(dir: string, name: string, parts: Iterable<string>): string {
  const file = path.join(dir, name);
  const tmp = path.join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeNew(tmp, parts);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  return file;
}

/**
 * Writes a report folder's pages into a fresh folder (`write(folder)` writes them), then puts it
 * in place of `dir/scenarios` (the previous pages, a folder of ours, go only then).
 */
export function replacePages(dir: string, write: (folder: string) => void): void {
  const fresh = mkdtempSync(path.join(dir, `.scenarios-${process.pid}-`));
  try {
    chmodSync(fresh, 0o755); // as the folder: readable by whoever the report is copied for
    write(fresh);
  } catch (e) {
    rmSync(fresh, { recursive: true, force: true });
    throw e;
  }
  const pages = path.join(dir, 'scenarios');
  const old = path.join(dir, `.scenarios-old-${process.pid}-${randomBytes(6).toString('hex')}`);
  const had = lstatOrNull(pages) !== null;
  if (had) renameSync(pages, old); // a link or file by that name is moved away too, never followed
  renameSync(fresh, pages);
  if (had) rmSync(old, { recursive: true, force: true }); // rm never follows a link inside
}

/** Writes one page into a folder made by replacePages. */
export function writePage(folder: string, name: string, parts: Iterable<string>): void {
  writeNew(path.join(folder, name), parts);
}
