/**
 * Answers "where are you stuck?" for a hang report (issue #11), even while the main thread is
 * blocked inside a native call or spinning in JavaScript.
 *
 * - The parent writes `<dir>/hang/request`. The native watchdog thread (parent-watch.ts,
 *   native-stub/harness/hold/watch.c) polls for it every 50 ms and writes `<dir>/hang/<role>.<pid>.json`:
 *   a copy of the binding's call records (src/acl/call-record.ts: the ACL call in progress and
 *   since when, for the main thread and each worker thread) and the state of every thread of this
 *   process from /proc (R = running, S = sleeping, with its kernel wait channel), and, with the
 *   stub, its live view of this process's streams (src/acl/live-view.ts).
 * - The main thread polls for the same request on an unref'd timer: if its event loop is free, it
 *   writes a Node diagnostic report (process.report: JS and native stacks) next to it and says so
 *   (a 'diagnosed' message). A main thread that does not answer is blocked or busy, which is itself
 *   the finding.
 */
import { writeFileSync } from 'node:fs';
import { diagnosticReportFile, readHangRequest } from '../src/wire/hang-files';

/** How often the main thread looks for a hang request (the parent waits up to 1 s for main threads). */
const REQUEST_POLL_MS = 100;

type Diagnosed = { type: 'diagnosed'; file: string | null };

/** Main thread: answers each new hang request of the job's scenario directory with a Node diagnostic report. */
export function watchHangRequests(job: { dir: string; role: string }, send: (m: Diagnosed) => void): void {
  const { dir, role } = job;
  let answered: string | null = null;
  setInterval(() => {
    const id = readHangRequest(dir);
    if (id === null || id === answered) return;
    answered = id;
    answerDiagnose(dir, role, send);
  }, REQUEST_POLL_MS).unref();
}

/** Writes a Node diagnostic report (only possible while the loop is free) and says where. */
function answerDiagnose(dir: string, role: string, send: (m: Diagnosed) => void): void {
  let file: string | null = diagnosticReportFile(dir, role, process.pid);
  try {
    // getReport, not writeReport: the latter also prints a line to the role's stderr.
    writeFileSync(file, JSON.stringify(process.report.getReport(), null, 1));
  } catch {
    file = null;
  }
  send({ type: 'diagnosed', file });
}
