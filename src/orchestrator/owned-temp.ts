/**
 * The run's private temp directories outside scenario directories: the notes file's
 * (`cann-harness-notes-`), the HTML reporter's data (`cann-html-`) and the audit's log
 * (`cann-harness-audit-`). A SIGKILLed runner runs no handler, so each name carries its owner:
 * `<prefix><pid>-<start time>-<random>`, the start time being the owner's (field 22 of
 * /proc/<pid>/stat, clock ticks since boot). The next start removes such a directory when that
 * process is gone, or when the pid now belongs to another process (a different start time): the
 * pair names one process for the life of the machine, a pid alone does not.
 * Only a real directory (lstat: never a link) of this user, with one of the three prefixes, is
 * ever removed.
 */
import { lstatSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const OWNED_TEMP_PREFIXES = { notes: 'cann-harness-notes-', html: 'cann-html-', audit: 'cann-harness-audit-' } as const;
export type OwnedTempKind = keyof typeof OWNED_TEMP_PREFIXES;

/** A process's start time (clock ticks since boot), or null when it is gone or a zombie. */
export function processStartTime(pid: number): string | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return null;
  return fields[19] ?? null; // field 22 of the whole line; fields[0] is field 3
}

/** A new private directory (mode 0700, exclusive) named after this process. */
export function makeOwnedTempDir(kind: OwnedTempKind, base: string = os.tmpdir()): string {
  const start = processStartTime(process.pid) ?? '0';
  return mkdtempSync(path.join(base, `${OWNED_TEMP_PREFIXES[kind]}${process.pid}-${start}-`));
}

const OWNED = new RegExp(`^(?:${Object.values(OWNED_TEMP_PREFIXES).join('|')})(\\d+)-(\\d+)-[^/]+$`);

/** Directories in `base` made by makeOwnedTempDir of a process that is gone (see the module comment). */
export function deadOwnedTempDirs(base: string = os.tmpdir()): string[] {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const m = OWNED.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (processStartTime(pid) === m[2]) continue; // its owner still runs
    const dir = path.join(base, name);
    try {
      const st = lstatSync(dir);
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
    } catch {
      continue;
    }
    out.push(dir);
  }
  return out;
}
