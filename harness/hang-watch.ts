/**
 * Answers "where are you stuck?" for a hang report (issue #11), even while the main thread is
 * blocked inside a native call or spinning in JavaScript.
 *
 * - The parent writes `<dir>/hang/request`. The parent-watch worker thread (parent-watch.ts) polls
 *   for it and writes `<dir>/hang/<role>.<pid>.json`: a copy of the binding's call record
 *   (src/acl/call-record.ts: the ACL call in progress and since when) and the state of every
 *   thread of this process from /proc (R = running, S = sleeping, with its kernel wait channel).
 * - The parent also sends `{ type: 'diagnose' }` over IPC: if the main thread's event loop is free,
 *   it writes a Node diagnostic report (process.report: JS and native stacks) next to it and says
 *   so. A main thread that does not answer is blocked or busy, which is itself the finding.
 */
import { writeFileSync } from 'node:fs';
import { callRecord } from '../src/acl/call-record';
import { HANG_DIR, diagnosticReportFile } from '../src/orchestrator/hang-files';
import { ENV } from '../src/env';

export interface HangWatchData {
  dir: string;
  role: string;
  buffer: SharedArrayBuffer;
}

export function hangWatchData(): HangWatchData | undefined {
  const dir = process.env[ENV.dir];
  const role = process.env[ENV.role];
  if (!dir || !role) return undefined;
  return { dir, role, buffer: callRecord.buffer };
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
  const words = new Int32Array(hang.buffer, 0, 1);
  let served = '';
  function copyRecord() {
    for (let i = 0; i < 100; i++) {
      const seq = Atomics.load(words, 0);
      if (seq % 2 === 1) continue;
      const copy = Buffer.from(new Uint8Array(hang.buffer).slice());
      if (Atomics.load(words, 0) === seq) return copy.toString('base64');
    }
    return null;
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
  function check() {
    let id;
    if (!fs.existsSync(request)) return;
    try { id = fs.readFileSync(request, 'utf8'); } catch { return; }
    if (id === served) return;
    served = id;
    try {
      const file = path.join(hangDir, hang.role + '.' + process.pid + '.json');
      const body = JSON.stringify({ request: id, role: hang.role, pid: process.pid, record: copyRecord(), threads: threads() });
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
