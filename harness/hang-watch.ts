/**
 * Answers "where are you stuck?" for a hang report (issue #11), even while the main thread is
 * blocked inside a native call or spinning in JavaScript.
 *
 * - The parent writes `<dir>/hang/request`. The parent-watch worker thread (parent-watch.ts) polls
 *   for it and writes `<dir>/hang/<role>.<pid>.json`: a copy of the binding's call record
 *   (src/acl/call-record.ts: the ACL call in progress and since when) and the state of every
 *   thread of this process from /proc (R = running, S = sleeping, with its kernel wait channel),
 *   and, with the stub, its live view of this process's streams (src/acl/live-view.ts).
 * - The parent also sends `{ type: 'diagnose' }` over IPC: if the main thread's event loop is free,
 *   it writes a Node diagnostic report (process.report: JS and native stacks) next to it and says
 *   so. A main thread that does not answer is blocked or busy, which is itself the finding.
 */
import { writeFileSync } from 'node:fs';
import { CALL_RECORD_BYTES, callRecord, threadCallRecords } from '../src/acl/call-record';
import { LIVE_VIEW_READER, loadedLibrary } from '../src/acl/live-view';
import { HANG_DIR, diagnosticReportFile } from '../src/orchestrator/hang-files';
import { ENV } from '../src/env';

export interface HangWatchData {
  dir: string;
  role: string;
  buffer: SharedArrayBuffer;
  /** Worker threads' call records (src/acl/call-record.ts), one slot per thread. */
  threadRecords: SharedArrayBuffer;
  recordBytes: number;
  /** The loaded ACL library's path (src/acl/live-view.ts), for the stub's live view. */
  library: SharedArrayBuffer;
  liveViewReader: string;
}

export function hangWatchData(): HangWatchData | undefined {
  const dir = process.env[ENV.dir];
  const role = process.env[ENV.role];
  if (!dir || !role) return undefined;
  return { dir, role, buffer: callRecord.buffer, threadRecords: threadCallRecords(), recordBytes: CALL_RECORD_BYTES, library: loadedLibrary, liveViewReader: LIVE_VIEW_READER };
}

/**
 * Plain JS for the watcher worker (no TypeScript loader there). `hang` is a HangWatchData. The
 * record is copied under its seqlock (word 0 even and unchanged) and decoded by the parent.
 */
export const HANG_WATCH_SOURCE = `
function serveHangRequests(hang) {
  const fs = require('node:fs');
  const path = require('node:path');
  const hangDir = path.join(hang.dir, ${JSON.stringify(HANG_DIR)});
  const request = path.join(hangDir, 'request');
  let served = '';
  function copyRecord(buffer, at, bytes) {
    const words = new Int32Array(buffer, at, 4);
    for (let i = 0; i < 100; i++) {
      const seq = Atomics.load(words, 0);
      if (seq % 2 === 1) continue;
      const copy = Buffer.from(new Uint8Array(buffer, at, bytes).slice());
      if (Atomics.load(words, 0) === seq) return copy.toString('base64');
    }
    return null;
  }
  // Worker threads' slots that were ever written (seq) or hold latches: { thread, record }.
  function copyThreadRecords() {
    const out = [];
    for (let t = 0; (t + 1) * hang.recordBytes <= hang.threadRecords.byteLength; t++) {
      const words = new Int32Array(hang.threadRecords, t * hang.recordBytes, 4);
      if (Atomics.load(words, 0) === 0 && Atomics.load(words, 3) === 0) continue;
      out.push({ thread: t, record: copyRecord(hang.threadRecords, t * hang.recordBytes, hang.recordBytes) });
    }
    return out;
  }
  function threads() {
    const out = [];
    for (const tid of fs.readdirSync('/proc/self/task')) {
      try {
        const stat = fs.readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
        const close = stat.lastIndexOf(')');
        const comm = stat.slice(stat.indexOf('(') + 1, close);
        const state = stat.slice(close + 2, close + 3);
        let wchan = '';
        try { wchan = fs.readFileSync('/proc/self/task/' + tid + '/wchan', 'utf8'); } catch {}
        out.push({ tid: Number(tid), comm, state, wchan });
      } catch {}
    }
    return out;
  }
  // The stub's live view of our streams; required only when asked, so passing runs never load it.
  function liveView() {
    try {
      return { json: require(hang.liveViewReader).readLiveViewJson(hang.library) };
    } catch (e) {
      return { unavailable: String((e && e.message) || e) };
    }
  }
  function check() {
    let id;
    if (!fs.existsSync(request)) return;
    try { id = fs.readFileSync(request, 'utf8'); } catch { return; }
    if (id === served) return;
    served = id;
    try {
      const file = path.join(hangDir, hang.role + '.' + process.pid + '.json');
      const body = JSON.stringify({ request: id, role: hang.role, pid: process.pid, record: copyRecord(hang.buffer, 0, hang.buffer.byteLength), threadRecords: copyThreadRecords(), threads: threads(), live: liveView() });
      fs.writeFileSync(file + '.tmp', body);
      fs.renameSync(file + '.tmp', file);
    } catch {}
  }
  setInterval(check, 50);
}
`;

/** Main thread: write a Node diagnostic report when asked (only possible while the loop is free). */
export function answerDiagnose(send: (m: { type: 'diagnosed'; file: string | null }) => void): void {
  const data = hangWatchData();
  if (!data) return;
  let file: string | null = diagnosticReportFile(data.dir, data.role, process.pid);
  try {
    // getReport, not writeReport: the latter also prints a line to the role's stderr.
    writeFileSync(file, JSON.stringify(process.report.getReport(), null, 1));
  } catch {
    file = null;
  }
  send({ type: 'diagnosed', file });
}
