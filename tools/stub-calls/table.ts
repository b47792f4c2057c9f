/**
 * The table of every ACL call the stub exports (docs/reference/stub-calls.md), made from what is
 * there, never kept by hand:
 *  - the calls: the dynamic symbols libascendcl.so defines (`nm -D --defined-only`);
 *  - where each is declared: the line of native-stub/include that declares it;
 *  - where each is implemented: the `STUB_EXPORT` definition in native-stub/src;
 *  - what it follows: the CANN source of the call (hicann/runtime), from the `CANN: <path>:<line>`
 *    comment that stands above every definition (the line of CANN's `<call>Impl` in
 *    src/acl/aclrt_impl/, where the acl layer's checks begin).
 * A call exported but declared in no header, defined without a CANN citation, or declared but not
 * exported (listed under the table) is a problem, not a row.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const TABLE_FILE = 'docs/reference/stub-calls.md';
export const LIBRARY = 'native-stub/build/lib64/libascendcl.so';
const HEADERS = 'native-stub/include/acl';
const SOURCES = 'native-stub/src';

export interface CallRow {
  name: string;
  declared: string | null;
  implemented: string | null;
  cann: string | null;
}

export interface StubCalls {
  acl: CallRow[];
  /** Exports that are not ACL calls (the stub's own extras, contract section 7). */
  extras: CallRow[];
  /** ACL calls a header declares that the library does not export. */
  declaredOnly: string[];
}

/** The names of the functions `library` defines and exports. */
export function exportedFunctions(library: string): string[] {
  const out = execFileSync('nm', ['-D', '--defined-only', library], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => /^[0-9a-f]+ T (\S+)$/.exec(line.trim())?.[1])
    .filter((n): n is string => n !== undefined)
    .sort();
}

function filesUnder(repo: string, dir: string, ext: RegExp): string[] {
  return (fs.readdirSync(path.join(repo, dir), { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => ext.test(f))
    .map((f) => path.posix.join(dir, f.split(path.sep).join('/')))
    .sort();
}

/** name -> `file:line` of the first line matching `lineFor(name)`, over `files`. */
function firstLines(repo: string, files: string[], names: Set<string>, pattern: RegExp): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of files) {
    const lines = fs.readFileSync(path.join(repo, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const m of line.matchAll(pattern)) {
        const name = m[1];
        if (names.has(name) && !found.has(name)) found.set(name, `${file}:${i + 1}`);
      }
    });
  }
  return found;
}

/**
 * name -> the `CANN: <path>:<line>` citation of its definition: in the comment block that ends on the
 * line above `STUB_EXPORT ... name(`.
 */
function cannCitations(repo: string, files: string[], names: Set<string>): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of files) {
    const lines = fs.readFileSync(path.join(repo, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      const name = /^STUB_EXPORT\b[^;{(]*?\b(\w+)\s*\(/.exec(line)?.[1];
      if (!name || !names.has(name)) return;
      for (let j = i - 1; j >= 0 && /^\s*(\/\*|\*|\/\/)/.test(lines[j]); j--) {
        const cite = /CANN: (\S+:\d+(?:-\d+)?)/.exec(lines[j]);
        if (cite) {
          found.set(name, cite[1]);
          return;
        }
      }
    });
  }
  return found;
}

/** Reads the library, headers and sources of the checkout at `repo`. */
export function readStubCalls(repo: string, library = path.join(repo, LIBRARY)): StubCalls {
  const exported = exportedFunctions(library);
  const headers = filesUnder(repo, HEADERS, /\.h$/);
  // Every ACL declaration: `ACL_FUNC_VISIBILITY <type> name(`, possibly with the name on the next line.
  const declaredNames = new Set<string>();
  for (const file of headers) {
    const text = fs.readFileSync(path.join(repo, file), 'utf8');
    for (const m of text.matchAll(/ACL_FUNC_VISIBILITY[^;(]*?\b(acl\w+)\s*\(/g)) declaredNames.add(m[1]);
  }
  const all = new Set([...exported, ...declaredNames]);
  const declared = firstLines(repo, headers, all, /\b(acl\w+)\s*\(/g);
  const sources = filesUnder(repo, SOURCES, /\.c$/);
  const implemented = firstLines(repo, sources, all, /^STUB_EXPORT\b[^;{(]*?\b(\w+)\s*\(/g);
  const cann = cannCitations(repo, sources, all);
  const row = (name: string): CallRow => ({
    name,
    declared: declaredNames.has(name) ? (declared.get(name) ?? null) : null,
    implemented: implemented.get(name) ?? null,
    cann: cann.get(name) ?? null,
  });
  return {
    acl: exported.filter((n) => n.startsWith('acl')).map(row),
    extras: exported.filter((n) => !n.startsWith('acl')).map(row),
    declaredOnly: [...declaredNames].filter((n) => !exported.includes(n)).sort(),
  };
}

/** Why the table cannot be made as it stands (an export without a declaration or a definition). */
export function problemsOf(calls: StubCalls): string[] {
  return [
    ...calls.acl.filter((r) => !r.declared).map((r) => `${r.name} is exported but declared in no header of ${HEADERS}`),
    ...[...calls.acl, ...calls.extras]
      .filter((r) => !r.implemented)
      .map((r) => `${r.name} is exported but has no STUB_EXPORT definition in ${SOURCES}`),
    ...calls.acl
      .filter((r) => r.implemented && !r.cann)
      .map(
        (r) =>
          `${r.name} (${r.implemented}) has no \`CANN: <path>:<line>\` comment above its definition: ` +
          'cite the CANN source it follows',
      ),
  ];
}

const link = (at: string | null): string => {
  if (!at) return '-';
  const [file, line] = at.split(':');
  return `[${at}](../../${file}#L${line})`;
};

/** The Markdown of docs/reference/stub-calls.md. */
export function renderTable(calls: StubCalls): string {
  const rows = (list: CallRow[]) =>
    list.map((r) => `| \`${r.name}\` | ${link(r.declared)} | ${link(r.implemented)} | ${r.cann ? `\`${r.cann}\`` : '-'} |`).join('\n');
  return [
    '# The ACL calls the stub exports',
    '',
    '<!-- Made by `npm run docs:stub-calls` from the built library, the headers and the sources.',
    '     Do not edit: `npm test` fails when this file is not what the command makes. -->',
    '',
    `${calls.acl.length} ACL calls. "Declared": the header line a program compiles against; "implemented": the`,
    "stub's definition; \"CANN source\": where the call begins in CANN's runtime (hicann/runtime 681ef7610),",
    "which the stub follows (each check in the stub's code cites its own line there). The rules the stub adds",
    'of its own are in [the ACL contract](../acl-contract.md), section 7.',
    '',
    '| call | declared | implemented | CANN source |',
    '|---|---|---|---|',
    rows(calls.acl),
    '',
    `The stub's own exports (not ACL calls; stub-only rules of the contract, section 7): ${calls.extras.length}.`,
    '',
    '| export | declared | implemented | CANN source |',
    '|---|---|---|---|',
    rows(calls.extras),
    '',
    calls.declaredOnly.length > 0
      ? 'Declared in the headers but not exported (a program that calls them does not link): ' +
        `${calls.declaredOnly.map((n) => `\`${n}\``).join(', ')}.`
      : 'Every ACL call the headers declare is exported.',
    '',
  ].join('\n');
}
