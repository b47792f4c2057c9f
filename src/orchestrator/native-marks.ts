/**
 * The marks of a native role (a C program using `cannharness_mark`, native-stub/harness/api/marks.c):
 * one file per process, `marks/<role>.<pid>.marks` (or `<role>.<pid>-<k>.marks` when that name was
 * taken), each line `<CLOCK_MONOTONIC ns> <name>\n`, written with one write(2) per mark. Read when
 * the role has ended, into the role's result, so that they take part in the happens-before check
 * and `toHaveMarkOrder` like the marks of a TypeScript role.
 *
 * Role code can write in the scenario directory, so nothing is trusted: a link or anything but a
 * regular file of this user is refused, and a line that is not a mark (or a last line without its
 * newline, which a single write(2) never leaves) is an error naming the file and the line.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { LAYOUT } from '../rendezvous/layout';
import type { RoleResult } from './types';

/** A mark as role results carry it (assignable to the scenario layer's ScenarioMark). */
export type NativeMark = RoleResult['marks'][number];

export class NativeMarksError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NativeMarksError';
  }
}

const FILE_NAME = /^(.+)\.(\d+)(?:-\d+)?\.marks$/;
const LINE = /^(\d{1,20}) (.{1,200})$/;
/** cannharness_mark refuses control characters in names. */
const hasControlCharacter = (s: string): boolean => [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/** The marks files of `role` in `marksDir` (the role name is matched exactly, '.' in it included). */
function filesOf(marksDir: string, role: string): string[] {
  return readdirSync(marksDir)
    .filter((f) => FILE_NAME.exec(f)?.[1] === role)
    .sort();
}

function readOwnRegularFile(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new NativeMarksError(`${file} is a symbolic link: refused (marks files are made by cannharness_mark, never links)`);
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new NativeMarksError(`${file} is not a regular file: refused`);
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
      throw new NativeMarksError(`${file} belongs to another user (uid ${st.uid}): refused`);
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function parseFile(file: string, text: string): NativeMark[] {
  const marks: NativeMark[] = [];
  const lines = text.split('\n');
  const last = lines.pop(); // '' when the file ends with a newline
  if (last !== '') {
    throw new NativeMarksError(
      `${file} line ${lines.length + 1} is cut short (no newline at the end: ${JSON.stringify(last!.slice(0, 80))}): ` +
        'cannharness_mark writes whole lines, so something else wrote this file',
    );
  }
  lines.forEach((line, i) => {
    const m = LINE.exec(line);
    if (!m || hasControlCharacter(m[2])) {
      throw new NativeMarksError(
        `${file} line ${i + 1} is not a mark: ${JSON.stringify(line.slice(0, 80))} (expected "<CLOCK_MONOTONIC ns> <name>", ` +
          'as cannharness_mark writes it; do not write in marks/ yourself)',
      );
    }
    marks.push({ name: m[2], tNs: BigInt(m[1]).toString() });
  });
  return marks;
}

/**
 * Every mark the processes of native role `role` wrote in scenario directory `dir`, oldest first.
 * No `marks/` directory or no file of the role: none. Throws NativeMarksError for anything that is
 * not what cannharness_mark writes (report it as the role's failure: its marks cannot be trusted).
 */
export function readNativeMarks(dir: string, role: string): NativeMark[] {
  const marksDir = path.join(dir, LAYOUT.marks);
  let st;
  try {
    st = lstatSync(marksDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  if (!st.isDirectory()) throw new NativeMarksError(`${marksDir} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}: refused`);
  const marks = filesOf(marksDir, role).flatMap((f) => {
    const file = path.join(marksDir, f);
    return parseFile(file, readOwnRegularFile(file));
  });
  // Stable: marks of one process with the same ns keep their order.
  return marks.sort((a, b) => (BigInt(a.tNs) < BigInt(b.tNs) ? -1 : BigInt(a.tNs) > BigInt(b.tNs) ? 1 : 0));
}
