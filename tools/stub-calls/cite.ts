/**
 * `npm run docs:stub-calls -- --cite <hicann/runtime checkout or git dir>`: for every exported ACL call
 * whose definition has no `CANN: <path>:<line>` comment yet, finds where the call begins in CANN's
 * runtime (its `<call>Impl` in src/acl/aclrt_impl/, else its definition under src/acl/) and writes
 * that comment on the line above the stub's `STUB_EXPORT` definition. A call CANN's source does not
 * have is named, and left for a person to cite.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StubCalls } from './table';

/** `git grep` over the CANN source (a checkout or a bare git directory), at HEAD. */
function cannGrep(cann: string, pattern: string, pathspec: string): string[] {
  const bare = !fs.existsSync(path.join(cann, 'src'));
  const args = bare
    ? ['--git-dir', cann, 'grep', '-n', '-E', pattern, 'HEAD', '--', pathspec]
    : ['-C', cann, 'grep', '-n', '-E', pattern, '--', pathspec];
  try {
    return execFileSync('git', args, { encoding: 'utf8' }).split('\n').filter(Boolean).map((l) => l.replace(/^HEAD:/, ''));
  } catch {
    return []; // git grep exits 1 when nothing matches
  }
}

/** `path:line` where `call` begins in CANN's acl layer, or null. */
export function cannLocation(cann: string, call: string): string | null {
  const impl = cannGrep(cann, `^[A-Za-z_][A-Za-z0-9_ *]* \\**${call}Impl\\(`, 'src/acl/aclrt_impl');
  const plain = impl.length > 0 ? impl : cannGrep(cann, `^[A-Za-z_][A-Za-z0-9_ *]* \\**${call}\\(`, 'src/acl');
  const m = plain.length > 0 ? /^([^:]+):(\d+):/.exec(plain[0]) : null;
  return m ? `${m[1]}:${m[2]}` : null;
}

/** Writes the missing citations; returns the calls it could not find in CANN's source. */
export function writeCitations(repo: string, calls: StubCalls, cann: string): { written: string[]; notFound: string[] } {
  const written: string[] = [];
  const notFound: string[] = [];
  // Bottom-up within each file, so the line numbers read before stay right.
  const missing = calls.acl
    .filter((r) => r.implemented && !r.cann)
    .map((r) => ({ name: r.name, file: r.implemented!.split(':')[0], line: Number(r.implemented!.split(':')[1]) }));
  missing.sort((a, b) => (a.file === b.file ? b.line - a.line : a.file.localeCompare(b.file)));
  for (const m of missing) {
    const at = cannLocation(cann, m.name);
    if (!at) {
      notFound.push(m.name);
      continue;
    }
    const file = path.join(repo, m.file);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.splice(m.line - 1, 0, `/* CANN: ${at} */`);
    fs.writeFileSync(file, lines.join('\n'));
    written.push(`${m.name} -> ${at}`);
  }
  return { written, notFound };
}
