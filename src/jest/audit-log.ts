/**
 * `cann-harness audit`'s declaration log: while Jest collects the suite, each scenario appends its
 * audit declaration (`audit: { expectSurvive, reason }`) as one JSON line; the audit reads them back
 * to judge survivals. The log decides verdicts, so nobody else may write it: it lives in a private
 * directory (mkdtemp, 0700), is created exclusively, and is never reached through a symlink
 * (O_NOFOLLOW), so a file or link planted in the shared temp dir cannot forge a `survived
 * (declared)` nor make the runner append to another file.
 */
import { closeSync, constants, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AuditDeclaration } from '../scenario/types';
import { makeOwnedTempDir } from '../orchestrator/owned-temp';

export interface LoggedDeclaration {
  specFile: string;
  scenario: string;
  audit: AuditDeclaration | null;
}

export interface AuditLog {
  file: string;
  /** Removes the log and its directory. */
  remove(): void;
}

/** A new empty log in a private directory of the OS temp dir (or `base`). */
export function createAuditLog(base: string = os.tmpdir()): AuditLog {
  const dir = makeOwnedTempDir('audit', base); // named after this process: a SIGKILLed audit's is removed by the next start
  const file = path.join(dir, 'declarations.jsonl');
  closeSync(openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Appends one declaration to the log the audit created (never creates it, never follows a link). */
export function appendAuditDeclaration(file: string, declaration: LoggedDeclaration): void {
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(
      `cannot append to the audit's declaration log ${file} (${code}${code === 'ELOOP' ? ': it is a symbolic link' : ''}): ` +
        'it is created by `cann-harness audit`, which sets CANN_HARNESS_AUDIT_LOG; unset that variable outside an audit',
      { cause: e },
    );
  }
  try {
    writeSync(fd, `${JSON.stringify(declaration)}\n`);
  } finally {
    closeSync(fd);
  }
}

function isDeclaration(v: unknown): v is LoggedDeclaration {
  if (typeof v !== 'object' || v === null) return false;
  const d = v as Record<string, unknown>;
  if (typeof d.specFile !== 'string' || typeof d.scenario !== 'string') return false;
  if (d.audit === null) return true;
  const a = d.audit as Record<string, unknown> | undefined;
  return typeof a === 'object' && a !== null && Array.isArray(a.expectSurvive) && a.expectSurvive.every((m) => typeof m === 'string') && typeof a.reason === 'string';
}

/** Every declaration in the log, in order. A line that is not one is an error naming the file and line. */
export function readAuditDeclarations(file: string): LoggedDeclaration[] {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  let text: string;
  try {
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  const out: LoggedDeclaration[] = [];
  text.split('\n').forEach((line, i) => {
    if (line === '') return;
    let value: unknown;
    let why = 'not a declaration ({specFile, scenario, audit})';
    try {
      value = JSON.parse(line);
    } catch (e) {
      why = `not JSON (${(e as Error).message})`;
    }
    if (!isDeclaration(value)) {
      const shown = line.length > 120 ? `${line.slice(0, 120)}...` : line;
      throw new Error(`${file}:${i + 1}: malformed audit declaration, ${why}: ${shown}`);
    }
    out.push(value);
  });
  return out;
}
