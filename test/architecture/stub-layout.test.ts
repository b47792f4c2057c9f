/**
 * The folders of native-stub/ say which library is which (issue 34): src/ is the stub
 * (libascendcl.so) and nothing else; the harness's own C, which runs with real CANN too, is under
 * harness/: hold/ (libcannharness_hold.so), preload/ (libcannharness_preload.so), api/
 * (libcannharness.so) and include/ (cannharness.h, cannharness_kernel.h). Read from the tree and the
 * Makefile's source lists, so a file put back in the wrong folder fails here, naming it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

const STUB = path.resolve(__dirname, '..', '..', 'native-stub');

/** Files under native-stub/<dir>, relative to native-stub/ (forward slashes), sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(path.join(STUB, dir), { recursive: true, encoding: 'utf8' })
    .map((f) => `${dir}/${f.split(path.sep).join('/')}`)
    .filter((f) => !f.split('/').some((part) => part.startsWith('build')))
    .sort();
}

const cSources = (dir: string): string[] => filesUnder(dir).filter((f) => /\.(c|h)$/.test(f));
const HARNESS_DIRS = ['harness/hold', 'harness/preload', 'harness/api', 'harness/include'];
/** `file: include` for each quoted include of `files` that `bad` picks. */
const includesWhere = (files: string[], bad: (inc: string) => boolean): string[] =>
  files.flatMap((f) => quotedIncludes(f).filter(bad).map((inc) => `${f}: ${inc}`));
const quotedIncludes = (file: string): string[] =>
  [...readFileSync(path.join(STUB, file), 'utf8').matchAll(/^#include "([^"]+)"/gm)].map((m) => m[1]);

/** A variable's value in native-stub/Makefile (`NAME := a b \` continued lines), as words. */
function makeList(name: string): string[] {
  const text = readFileSync(path.join(STUB, 'Makefile'), 'utf8').replace(/\\\n/g, ' ');
  const line = text.split('\n').find((l) => l.startsWith(`${name} :=`));
  if (line === undefined) throw new Error(`native-stub/Makefile has no ${name} :=`);
  return line.slice(`${name} :=`.length).trim().split(/\s+/);
}

test('native-stub/ has the stub, the harness, their headers, and the suite, samples, kernels and benches; no other folder', () => {
  const folders = readdirSync(STUB, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('build') && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
  expect(folders).toEqual(['bench', 'harness', 'include', 'kernels', 'samples', 'src', 'test']);
  expect(readdirSync(path.join(STUB, 'harness')).sort()).toEqual(['api', 'hold', 'include', 'preload']);
});

test("each library's sources, as the Makefile lists them, lie in its own folder", () => {
  expect(makeList('CORE_SRCS').filter((f) => !/^src\/[a-z_]+\.c$/.test(f))).toEqual([]);
  expect(makeList('HOLD_SRCS').filter((f) => !/^harness\/hold\/[a-z_]+\.c$/.test(f))).toEqual([]);
  expect(makeList('PRELOAD_SRCS')).toEqual(['harness/preload/preload.c']);
  expect(makeList('API_SRCS').filter((f) => !/^harness\/api\/[a-z_]+\.c$/.test(f))).toEqual([]);
  // Every C file of the harness's folders is built into its library (none left behind by a move).
  const listed = [...makeList('HOLD_SRCS'), ...makeList('PRELOAD_SRCS'), ...makeList('API_SRCS')];
  const built = ['harness/hold', 'harness/preload', 'harness/api'].flatMap(cSources).filter((f) => f.endsWith('.c'));
  expect(built.filter((f) => !listed.includes(f))).toEqual([]);
});

test("src/ is the stub's only: no harness library's source or header, and it includes none of the harness's headers", () => {
  const stubFiles = cSources('src');
  expect(stubFiles).toContain('src/stream.c');
  const harnessNames = HARNESS_DIRS.flatMap(cSources).map((f) => path.basename(f));
  const some = ['watch.c', 'barrier.h', 'preload.c', 'rendezvous.c', 'cannharness.h', 'cannharness_kernel.h'];
  expect(harnessNames).toEqual(expect.arrayContaining(some));
  expect(stubFiles.filter((f) => harnessNames.includes(path.basename(f)))).toEqual([]);
  expect(includesWhere(stubFiles, (inc) => harnessNames.includes(path.basename(inc)))).toEqual([]);
});

test("the harness's C (it runs with real CANN too) includes nothing of the stub's: only its own headers and CANN's acl/", () => {
  const stubNames = cSources('src').map((f) => path.basename(f));
  const stubOwn = (inc: string): boolean => inc.includes('src/') || inc.startsWith('cannstub/') || stubNames.includes(path.basename(inc));
  expect(includesWhere(HARNESS_DIRS.flatMap(cSources), stubOwn)).toEqual([]);
});

test("include/ holds the stub's headers only (CANN's acl/ and the stub-only cannstub/); the harness's are in harness/include/", () => {
  expect(readdirSync(path.join(STUB, 'include')).sort()).toEqual(['acl', 'cannstub']);
  expect(readdirSync(path.join(STUB, 'harness', 'include')).sort()).toEqual(['cannharness.h', 'cannharness_kernel.h']);
});
