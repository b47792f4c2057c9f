/**
 * One fact, one home, across the language line (issue 34): the constants and layouts that the C of
 * native-stub/ and the TypeScript of src/ must agree on. Numbers and struct layouts are checked by
 * the C compiler itself (a generated file of _Static_asserts, compiled -fsyntax-only against the
 * real headers and sources, with the TypeScript values written in); names and strings are read
 * from the C text. Changing either side alone fails here, naming the pair.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  CALL_RECORD_BYTES,
  CALL_RECORD_SINCE_OFFSET,
  CALL_RECORD_SLOTS,
  CALL_RECORD_TEXT_BYTES,
  CALL_RECORD_TEXT_OFFSET,
  MAX_THREAD_RECORDS,
} from '../../src/acl/call-record';
import { IPC_EVENT_HANDLE_SIZE, IPC_KEY_BUFFER_SIZE } from '../../src/acl/enums';
import { LAYOUT } from '../../src/rendezvous/layout';
import { MAX_ROUND_PARTIES, ROUND_BARRIER_BYTES, ROUND_BARRIER_MAGIC } from '../../src/wire/round-barrier-file';
import { SHARED_RECORD_MAGIC } from '../../src/wire/shared-record';
import { EXPLORE_BYTES } from '../../src/wire/explore-file';
import { MAX_EXPLORE_DEPTH } from '../../src/env/explore';

const REPO = path.resolve(__dirname, '..', '..');
const STUB = path.join(REPO, 'native-stub');
const read = (file: string): string => readFileSync(path.join(REPO, file), 'utf8');

/** One compile-time fact: `c` (a C constant expression, with `include`) must equal TypeScript's `ts`. */
interface Fact {
  /** Both homes, for the failure message. */
  what: string;
  /** The file the expression needs, relative to native-stub/ (a header, or the source that defines it). */
  include: string;
  c: string;
  ts: number;
}
const fact = (include: string, c: string, ts: number, tsHome: string): Fact => ({ what: `${include} ${c} vs ${tsHome}`, include, c, ts });

const WATCH_H = 'harness/hold/watch.h';
const WATCH_C = 'harness/hold/watch.c';
const PRELOAD_C = 'harness/preload/preload.c';
const BARRIER_C = 'harness/hold/barrier.c';
const ACL_RT_H = 'include/acl/acl_rt.h';
const RECORD_TS = 'src/acl/call-record.ts';
const BARRIER_TS = 'src/wire/round-barrier-file.ts';
const BARRIER_FIELD = (field: string) => `sizeof(((struct barrier *)0)->${field})`;

const FACTS: Fact[] = [
  // The call records: written by the binding (src/acl/call-record.ts) and the preload library, read by the watchdog.
  fact(WATCH_H, 'CANNHARNESS_CALL_RECORD_BYTES', CALL_RECORD_BYTES, `${RECORD_TS} CALL_RECORD_BYTES`),
  fact(WATCH_H, 'CANNHARNESS_THREAD_RECORDS', MAX_THREAD_RECORDS, `${RECORD_TS} MAX_THREAD_RECORDS`),
  fact(WATCH_C, 'RECORD_SLOTS', CALL_RECORD_SLOTS, `${RECORD_TS} CALL_RECORD_SLOTS`),
  fact(WATCH_C, 'sizeof records', CALL_RECORD_SLOTS * CALL_RECORD_BYTES, `${RECORD_TS} CALL_RECORD_SLOTS * CALL_RECORD_BYTES`),
  fact(PRELOAD_C, 'RECORD_SINCE', CALL_RECORD_SINCE_OFFSET, `${RECORD_TS} CALL_RECORD_SINCE_OFFSET`),
  fact(PRELOAD_C, 'RECORD_TEXT', CALL_RECORD_TEXT_OFFSET, `${RECORD_TS} CALL_RECORD_TEXT_OFFSET`),
  fact(PRELOAD_C, 'RECORD_TEXT_BYTES', CALL_RECORD_TEXT_BYTES, `${RECORD_TS} CALL_RECORD_TEXT_BYTES`),
  // The round barrier file: src/wire/round-barrier-file.ts writes magic and parties, barrier.c maps it.
  fact(BARRIER_C, 'CANNHARNESS_BARRIER_MAGIC', ROUND_BARRIER_MAGIC, `${BARRIER_TS} ROUND_BARRIER_MAGIC`),
  fact(BARRIER_C, 'CANNHARNESS_BARRIER_BYTES', ROUND_BARRIER_BYTES, `${BARRIER_TS} ROUND_BARRIER_BYTES`),
  fact(BARRIER_C, 'MAX_PARTIES', MAX_ROUND_PARTIES, `${BARRIER_TS} MAX_ROUND_PARTIES`),
  fact(BARRIER_C, 'offsetof(struct barrier, magic)', 0, `${BARRIER_TS} writeUInt32LE(MAGIC, 0)`),
  fact(BARRIER_C, 'offsetof(struct barrier, parties)', 4, `${BARRIER_TS} writeUInt32LE(parties, 4)`),
  fact(BARRIER_C, `${BARRIER_FIELD('magic')} + ${BARRIER_FIELD('parties')}`, 8, `${BARRIER_TS} two writeUInt32LE`),
  // The schedule explorer's file: src/wire/explore-file.ts creates it, the stub maps it (explore.c checks the size).
  fact('include/cannstub/explore.h', 'CANNSTUB_EXPLORE_BYTES', EXPLORE_BYTES, 'src/wire/explore-file.ts EXPLORE_BYTES'),
  fact('src/explore.c', 'XP_MAX_DEPTH', MAX_EXPLORE_DEPTH, 'src/env/explore.ts MAX_EXPLORE_DEPTH'),
  // The IPC event handle, which the binding copies as bytes (acl_rt.h).
  fact(ACL_RT_H, 'ACL_IPC_EVENT_HANDLE_SIZE', IPC_EVENT_HANDLE_SIZE, 'src/acl/enums.ts IPC_EVENT_HANDLE_SIZE'),
  fact(ACL_RT_H, 'sizeof(aclrtIpcEventHandle)', IPC_EVENT_HANDLE_SIZE, 'src/acl/enums.ts IPC_EVENT_HANDLE_SIZE'),
  // The export keys of IPC memory and notify: the stub formats them, the binding sizes its buffer.
  fact('src/ipc_key.h', 'IPC_KEY_LEN', IPC_KEY_BUFFER_SIZE, 'src/acl/enums.ts IPC_KEY_BUFFER_SIZE'),
];

const message = (f: Fact): string => `${f.what}: TypeScript says ${f.ts}`;

/**
 * The facts the C compiler rejects: one translation unit per included file (sources are not meant
 * to share one), each fact a _Static_assert whose message is its `what`. gcc's own error for
 * anything else (a renamed constant) is returned as is.
 */
function rejectedFacts(facts: Fact[]): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'cann-harness-c-ts-'));
  try {
    const rejected: string[] = [];
    for (const include of [...new Set(facts.map((f) => f.include))]) {
      const file = path.join(dir, `${include.replace(/\W/g, '_')}.c`);
      const asserts = facts
        .filter((f) => f.include === include)
        .map((f) => `_Static_assert((long long)(${f.c}) == ${f.ts}LL, ${JSON.stringify(message(f))});`);
      writeFileSync(file, [`#include <stddef.h>`, `#include "${include}"`, ...asserts, ''].join('\n'), { flag: 'wx' });
      // The build's language and includes (native-stub/Makefile CFLAGS); -fsyntax-only: nothing is linked.
      const flags = ['-std=c11', '-D_GNU_SOURCE', '-pthread', '-fsyntax-only', `-I${STUB}`, `-I${path.join(STUB, 'include')}`];
      const r = spawnSync('gcc', [...flags, file], { encoding: 'utf8' });
      if (r.error) throw r.error;
      if (r.status === 0) continue;
      const failed = [...r.stderr.matchAll(/static assertion failed: "([^"]*)"/g)].map((m) => m[1]);
      rejected.push(...(failed.length > 0 ? failed : [`${include}: ${r.stderr.trim()}`]));
    }
    return rejected;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `#define NAME "text"` in a C file, or an error naming the file. */
function cString(file: string, name: string): string {
  const m = new RegExp(`^#define ${name} "([^"]*)"`, 'm').exec(read(file));
  if (!m) throw new Error(`${file} has no #define ${name} "..."`);
  return m[1];
}

test('the numbers and layouts shared by the C and the TypeScript agree (checked by the C compiler)', () => {
  expect(rejectedFacts(FACTS)).toEqual([]);
});

test('the check can fail: a TypeScript value unlike the C one is rejected, naming the pair', () => {
  const wrong = { ...FACTS[0], ts: FACTS[0].ts + 8 };
  expect(rejectedFacts([wrong])).toEqual([message(wrong)]);
});

test('the strings shared by the C and the TypeScript agree', () => {
  // The shared record's first line (native-stub/harness/api/shared.c writes it, src/wire/shared-record.ts parses it).
  expect(cString('native-stub/harness/api/shared.c', 'RECORD_MAGIC')).toBe(SHARED_RECORD_MAGIC);
  // The rendezvous layout of the scenario directory (src/rendezvous/layout.ts), as the C API uses it.
  expect({
    handles: cString('native-stub/harness/api/rendezvous.c', 'HANDLES_DIR'),
    signals: cString('native-stub/harness/api/rendezvous.c', 'SIGNALS_DIR'),
    staging: cString('native-stub/harness/api/rendezvous.c', 'STAGING_DIR'),
    marks: cString('native-stub/harness/api/marks.c', 'MARKS_DIR'),
  }).toEqual({ handles: LAYOUT.handles, signals: LAYOUT.signals, staging: LAYOUT.staging, marks: LAYOUT.marks });
});

/** The ACL calls the preload library wraps (WRAP(name, ...) lines), sorted. */
function preloadWrapped(): string[] {
  return [...read('native-stub/harness/preload/preload.c').matchAll(/^WRAP\((\w+),/gm)].map((m) => m[1]).sort();
}

/**
 * The calls the binding records (recordCall('name', ...), or recordCall(call, ...) with the
 * function's `const call = 'name'`), over src/acl/*.ts, sorted.
 */
function bindingRecorded(): string[] {
  const dir = path.join(REPO, 'src', 'acl');
  const names = new Set<string>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts') && n !== 'call-record.ts')) {
    const text = readFileSync(path.join(dir, f), 'utf8');
    for (const m of text.matchAll(/\brecordCall\(([^,)]*)/g)) {
      const literal = /^'(\w+)'$/.exec(m[1]);
      const declared = new RegExp(`const ${m[1]} = '(\\w+)'`, 'g');
      const variable = /^\w+$/.test(m[1]) ? [...text.slice(0, m.index).matchAll(declared)].pop() : undefined;
      const name = literal?.[1] ?? variable?.[1];
      if (!name) throw new Error(`src/acl/${f}: recordCall(${m[1]}, ...) names no call this test reads: pass 'name' or a const`);
      names.add(name);
    }
  }
  return [...names].sort();
}

test("the preload library's wrapped calls and the binding's recorded calls are the pinned lists", () => {
  // Recorded on both sides: a JavaScript role and a native role show the same call in a hang report.
  const both = [
    'aclFinalize',
    'aclrtMemcpyAsync',
    'aclrtSynchronizeDevice',
    'aclrtSynchronizeDeviceWithTimeout',
    'aclrtSynchronizeEvent',
    'aclrtSynchronizeEventWithTimeout',
    'aclrtSynchronizeStream',
    'aclrtSynchronizeStreamWithTimeout',
  ];
  // Wrapped for native roles only: the binding calls these without a record today (a hang inside
  // one shows a JavaScript role's last recorded call instead).
  const preloadOnly = [
    'aclrtDestroyStream',
    'aclrtDestroyStreamForce',
    'aclrtMemcpy',
    'aclrtMemcpyBatch',
    'aclrtMemset',
    'aclrtResetDevice',
    'aclrtResetDeviceForce',
  ];
  // Recorded by the binding only: roundBarrier is the harness's own wait (no ACL call to wrap);
  // aclrtUnmapMem is not wrapped by the preload library.
  const bindingOnly = ['aclrtUnmapMem', 'roundBarrier'];
  const wrapped = preloadWrapped();
  const recorded = bindingRecorded();
  expect({
    both: wrapped.filter((n) => recorded.includes(n)),
    preloadOnly: wrapped.filter((n) => !recorded.includes(n)),
    bindingOnly: recorded.filter((n) => !wrapped.includes(n)),
  }).toEqual({ both: both.sort(), preloadOnly: preloadOnly.sort(), bindingOnly: bindingOnly.sort() });
});
