/**
 * Files of a hang report in the scenario directory (issue #11): the parent's request, each role's
 * answer (written by its watcher thread: the native watchdog, native-stub/harness/hold/watch.c) and Node
 * diagnostic reports.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CallRecord, readThreadRecords, type CallInProgress, type CallRecordSnapshot } from '../acl/call-record';
import { parseLiveView, type LiveViewAnswer } from '../acl/live-view';

export const HANG_DIR = 'hang';

export interface ThreadState {
  tid: number;
  comm: string;
  /** /proc state letter: R running, S sleeping, D disk wait, ... */
  state: string;
  /** Kernel function the thread sleeps in (e.g. futex_wait_queue), '' or '0' when running. */
  wchan: string;
}

/** What one role's watcher thread answered. */
export interface RoleAnswer extends CallRecordSnapshot {
  pid: number;
  threads: ThreadState[];
  /** The main thread (tid == pid). */
  main: ThreadState | null;
  /** The stub's live view of the process's streams, or why there is none. */
  live: LiveViewAnswer;
  /** Calls in progress in the role's worker threads (`threads: k`), by thread number. */
  threadCalls: ThreadCall[];
}

export interface ThreadCall {
  thread: number;
  call: CallInProgress;
}

export function diagnosticReportFile(dir: string, role: string, pid: number): string {
  return path.join(dir, HANG_DIR, `${role}.${pid}.report.json`);
}

export function answerFile(dir: string, role: string, pid: number): string {
  return path.join(dir, HANG_DIR, `${role}.${pid}.json`);
}

/** Asks every role's watchdog thread and free main thread for an answer; returns the request id. */
export function writeHangRequest(dir: string): string {
  const id = `${process.pid}-${process.hrtime.bigint()}`;
  const hangDir = path.join(dir, HANG_DIR);
  if (!existsSync(hangDir)) mkdirSync(hangDir);
  writeFileSync(path.join(hangDir, 'request.tmp'), id);
  // Rename: a reader never sees half a request id.
  renameSync(path.join(hangDir, 'request.tmp'), path.join(hangDir, 'request'));
  return id;
}

/** The id of the current hang request, or null if there is none. */
export function readHangRequest(dir: string): string | null {
  try {
    return readFileSync(path.join(dir, HANG_DIR, 'request'), 'utf8');
  } catch {
    return null;
  }
}

/** The role's answer to request `id`, or null if it has not answered (yet). */
export function readAnswer(dir: string, role: string, pid: number, id: string): RoleAnswer | null {
  let raw: { request: string; pid: number; record: string | null; threads: ThreadState[]; live?: { json?: string; unavailable?: string }; threadRecords?: { thread: number; record: string | null }[] };
  try {
    raw = JSON.parse(readFileSync(answerFile(dir, role, pid), 'utf8'));
  } catch {
    return null;
  }
  if (raw.request !== id) return null;
  const snapshot: CallRecordSnapshot = raw.record
    ? new CallRecord(decodedRecord(raw.record)).read()
    : { call: null, openLatches: 0 };
  const threadCalls: ThreadCall[] = [];
  for (const t of raw.threadRecords ?? []) {
    if (!t.record) continue;
    const [one] = readThreadRecords(decodedRecord(t.record));
    if (!one) continue;
    snapshot.openLatches += one.snapshot.openLatches; // latches of any thread hold the role's streams
    if (one.snapshot.call) threadCalls.push({ thread: t.thread, call: one.snapshot.call });
  }
  return { ...snapshot, threadCalls, pid: raw.pid, threads: raw.threads, main: raw.threads.find((t) => t.tid === raw.pid) ?? null, live: liveOf(raw.live) };
}

function liveOf(raw: { json?: string; unavailable?: string } | undefined): LiveViewAnswer {
  if (!raw) return { unavailable: 'the watcher sent no live view' };
  if (raw.json === undefined) return { unavailable: raw.unavailable ?? 'no reason given' };
  try {
    return { view: parseLiveView(raw.json) };
  } catch (e) {
    return { unavailable: `unreadable live view: ${(e as Error).message}` };
  }
}

/** A record copied out of an answer, in a buffer of its own (a decoded Buffer may sit in Node's shared pool at any offset). */
function decodedRecord(base64: string): ArrayBuffer {
  return Uint8Array.from(Buffer.from(base64, 'base64')).buffer;
}
