/**
 * Happens-before check of one stub run, across all its processes' traces (stub-trace.ts):
 * - an IPC wait that captured slot k (use g) of event E ends no earlier than the record that
 *   completed that use of the slot took effect, in whichever process it ran;
 * - a local wait on generation g ends no earlier than a record (or reset) of generation >= g;
 * - a synchronize that returned 0 returned after what it waited for ended (a stream's tasks up to
 *   its newest one, or an event's record);
 * - the tasks of one stream run one after the other, in submission order.
 * Waits that were no-ops (nothing pending when issued) are counted as such, never as waits.
 * All timestamps are CLOCK_MONOTONIC ns, comparable across processes; the stub takes a record's
 * time before its waiters can see it, so a correct run never shows a wait ending first.
 */
import { parseTraceLines, type StubTraceLine, type TraceSource } from './stub-trace';

export type HappensBeforeRule = 'ipc-wait' | 'local-wait' | 'sync' | 'stream-order';

/** One task (or synchronize call) as named in a violation. */
export interface TaskRef {
  role: string | null;
  /** The trace line's op: 'end' for tasks, 'sync' for synchronize calls, 'submit' for a task that never ended. */
  op: string;
  pid: number;
  device: number;
  stream: number;
  task: number | null;
  kind: string;
  event: number;
  ipc: string | null;
  slot: number | null;
  gen: number | null;
  /** CLOCK_MONOTONIC ns of the line that matters (the end, the record's effect, the sync's return). */
  tNs: number;
  submitNs?: number;
  startNs?: number;
}

export interface HappensBeforeViolation {
  rule: HappensBeforeRule;
  /** What should have come second (the wait, the synchronize, the later task). */
  later: TaskRef;
  /** What it should have come after; null when no trace of it exists. */
  earlier: TaskRef | null;
  message: string;
}

export interface HappensBeforeStats {
  /** Tasks that ran (have a start line). */
  tasks: number;
  /** Waits queued on a pending record (IPC and local). */
  waits: number;
  /** Of those, how many started before their record took effect: they really blocked. */
  blockedWaits: number;
  /** Waits that were no-ops: nothing was pending when they were issued. */
  noopWaits: number;
  /** Synchronize calls that found work pending and returned 0. */
  syncs: number;
}

export interface HappensBeforeReport {
  ok: boolean;
  /** Why nothing was checked (no stub traces: real CANN writes none). */
  skipped?: string;
  violations: HappensBeforeViolation[];
  stats: HappensBeforeStats;
}

interface Task {
  role: string | null;
  submit?: StubTraceLine;
  start?: StubTraceLine;
  end?: StubTraceLine;
}

const WAIT_KINDS = new Set(['wait', 'ipc_wait']);
/** End notes of waits that did not wait for their record (timeout, cancelled by finalize or exit). */
const UNFINISHED_NOTES = new Set(['timeout', 'abandoned']);
/** Report at most this many violations (the first ones are the useful ones). */
const MAX_VIOLATIONS = 20;

export function checkHappensBefore(traces: TraceSource[]): HappensBeforeReport {
  if (traces.length === 0) {
    return { ok: true, skipped: 'no stub traces (no role made stub ACL calls, or real mode: the CANN runtime writes none)', violations: [], stats: { tasks: 0, waits: 0, blockedWaits: 0, noopWaits: 0, syncs: 0 } };
  }
  const tasks = new Map<string, Task>();
  const syncs: { line: StubTraceLine; role: string | null }[] = [];
  const ipcRecords = new Map<string, { line: StubTraceLine; role: string | null }>();
  /** Local records and resets that took effect, per process and event. */
  const localEffects = new Map<string, { line: StubTraceLine; role: string | null }[]>();
  const stats: HappensBeforeStats = { tasks: 0, waits: 0, blockedWaits: 0, noopWaits: 0, syncs: 0 };
  let origin = Infinity;

  for (const source of traces) {
    for (const l of parseTraceLines(source.jsonl)) {
      origin = Math.min(origin, l.t);
      if (l.op === 'sync') {
        if (l.rc === 0) syncs.push({ line: l, role: source.role });
        continue;
      }
      if (l.note === 'noop') {
        stats.noopWaits++;
        continue;
      }
      // cancel lines, and traces without task numbers: nothing to pair
      if (l.task === null || l.task === undefined || (l.op !== 'submit' && l.op !== 'start' && l.op !== 'end')) continue;
      const key = taskKey(l.pid, l.stream, l.task);
      const task = tasks.get(key) ?? { role: source.role };
      tasks.set(key, task);
      if (l.op === 'submit') task.submit = l;
      else if (l.op === 'start') task.start = l;
      else if (l.op === 'end') task.end = l;
      if (l.op !== 'end') continue;
      if (l.kind === 'ipc_record') ipcRecords.set(recordKey(l.ipc, l.slot, l.gen), { line: l, role: source.role });
      if (l.kind === 'record' || l.kind === 'reset') {
        const k = `${l.pid}/${l.event}`;
        const list = localEffects.get(k) ?? [];
        localEffects.set(k, list);
        list.push({ line: l, role: source.role });
      }
    }
  }

  const ref = (line: StubTraceLine, role: string | null, task = taskOf(line)): TaskRef => ({
    role, op: line.op, pid: line.pid, device: line.device, stream: line.stream, task: line.task ?? null, kind: line.kind,
    event: line.event, ipc: line.ipc, slot: line.slot, gen: line.gen ?? null, tNs: line.t,
    submitNs: task?.submit?.t, startNs: task?.start?.t,
  });
  function taskOf(line: StubTraceLine): Task | undefined {
    return line.op === 'sync' || line.task == null ? undefined : tasks.get(taskKey(line.pid, line.stream, line.task));
  }
  const at = (ns: number) => `t=${ns} ns (+${((ns - origin) / 1e6).toFixed(3)} ms)`;
  const violations: HappensBeforeViolation[] = [];
  const violate = (rule: HappensBeforeRule, later: TaskRef, earlier: TaskRef | null, what: string) => {
    const lines = [`happens-before violation (${rule}): ${what}`, `  ${describe(later, at)}`];
    if (earlier) lines.push(`  ${describe(earlier, at)}`);
    if (earlier) lines.push(`  the first came ${((earlier.tNs - later.tNs) / 1e6).toFixed(3)} ms too early: it must not happen before the second`);
    violations.push({ rule, later, earlier, message: lines.join('\n') });
  };

  /** When a local record or reset of generation >= gen first took effect (what releases it). */
  const localRelease = (pid: number, event: number, gen: number) => {
    let best: { line: StubTraceLine; role: string | null } | undefined;
    for (const e of localEffects.get(`${pid}/${event}`) ?? []) {
      if ((e.line.gen ?? -1) >= gen && (!best || e.line.t < best.line.t)) best = e;
    }
    return best;
  };

  for (const task of tasks.values()) {
    if (task.start) stats.tasks++;
    const wait = task.submit;
    if (!wait || !WAIT_KINDS.has(wait.kind) || !task.end || UNFINISHED_NOTES.has(task.end.note ?? '')) continue;
    stats.waits++;
    const gen = wait.gen ?? -1;
    const released = wait.kind === 'ipc_wait' ? ipcRecords.get(recordKey(wait.ipc, wait.slot, gen)) : localRelease(wait.pid, wait.event, gen);
    if (task.start && released && task.start.t < released.line.t && task.end.t >= released.line.t) stats.blockedWaits++;
    const rule = wait.kind === 'ipc_wait' ? 'ipc-wait' : 'local-wait';
    // TaskRefs are made only for a violation: a soak round checks every round, and almost all pass.
    if (!released) {
      violate(rule, ref(task.end, task.role, task), null, 'a wait ended, but no process traced the record it captured as executed');
    } else if (task.end.t < released.line.t) {
      violate(rule, ref(task.end, task.role, task), ref(released.line, released.role), 'a wait ended before the record it captured took effect');
    }
  }

  checkStreams(tasks, (later, earlier) =>
    violate('stream-order', ref(later.start!, later.role, later), ref(earlier.end!, earlier.role, earlier),
      'a task started before the task queued ahead of it on the same stream ended'),
  );

  const byStream = streamsOf(tasks);
  for (const { line, role } of syncs) {
    stats.syncs++;
    const later = () => ref(line, role);
    if (line.kind === 'stream') {
      const unfinished = byStream.get(`${line.pid}/${line.stream}`)?.find(
        (t) => t.submit && t.submit.task! <= (line.task ?? 0) && (!t.end || t.end.t > line.t),
      );
      if (unfinished) {
        violate('sync', later(), unfinished.end ? ref(unfinished.end, unfinished.role, unfinished) : ref(unfinished.submit!, unfinished.role, unfinished),
          unfinished.end ? 'a stream synchronize returned 0 before a task it waited for ended' : 'a stream synchronize returned 0, but a task it waited for never ended');
      }
    } else {
      const released = line.kind === 'ipc_event' ? ipcRecords.get(recordKey(line.ipc, line.slot, line.gen ?? -1)) : localRelease(line.pid, line.event, line.gen ?? -1);
      if (!released) violate('sync', later(), null, 'an event synchronize returned 0, but no process traced its record as executed');
      else if (line.t < released.line.t) violate('sync', later(), ref(released.line, released.role), 'an event synchronize returned 0 before its record took effect');
    }
  }

  violations.sort((a, b) => a.later.tNs - b.later.tNs);
  return { ok: violations.length === 0, violations: violations.slice(0, MAX_VIOLATIONS), stats };
}

/** One paragraph per report: the violations (at most MAX_VIOLATIONS), then the counts. */
export function formatHappensBefore(report: HappensBeforeReport): string {
  if (report.skipped) return `happens-before check skipped: ${report.skipped}`;
  const s = report.stats;
  const counts = `happens-before: ${s.tasks} tasks, ${s.waits} waits (${s.blockedWaits} blocked, ${s.noopWaits} no-op), ${s.syncs} synchronizes checked`;
  if (report.ok) return `${counts}: no violation`;
  return [...report.violations.map((v) => v.message), counts].join('\n');
}

function checkStreams(tasks: Map<string, Task>, onViolation: (later: Task, earlier: Task) => void): void {
  for (const list of streamsOf(tasks).values()) {
    let previous: Task | undefined;
    for (const t of list) {
      if (!t.start) continue;
      if (previous?.end && t.start.t < previous.end.t) onViolation(t, previous);
      previous = t;
    }
  }
}

/** Tasks grouped by process and stream, in task-number order. */
function streamsOf(tasks: Map<string, Task>): Map<string, Task[]> {
  const out = new Map<string, Task[]>();
  for (const t of tasks.values()) {
    const l = t.submit ?? t.start ?? t.end!;
    const k = `${l.pid}/${l.stream}`;
    const list = out.get(k) ?? [];
    out.set(k, list);
    list.push(t);
  }
  for (const list of out.values()) list.sort((a, b) => numberOf(a) - numberOf(b));
  return out;
}

function numberOf(t: Task): number {
  return (t.submit ?? t.start ?? t.end!).task ?? 0;
}

function taskKey(pid: number, stream: number, task: number): string {
  return `${pid}/${stream}/${task}`;
}

function recordKey(ipc: string | null, slot: number | null, gen: number | null | undefined): string {
  return `${ipc}/${slot}/${gen}`;
}

function describe(r: TaskRef, at: (ns: number) => string): string {
  const where = `role ${r.role ?? '?'} (pid ${r.pid}, device ${r.device}${r.stream ? `, stream ${r.stream}` : ''}${r.task !== null ? `, task ${r.task}` : ''})`;
  const target = r.ipc !== null ? `ipc ${r.ipc} slot ${r.slot} use ${r.gen}` : r.event ? `event ${r.event} gen ${r.gen}` : '';
  if (r.op === 'sync') {
    const call = r.kind === 'stream' ? `aclrtSynchronizeStream (up to task ${r.task})` : `aclrtSynchronizeEvent ${target}`;
    return `${where} ${call}: returned 0 ${at(r.tNs)}`;
  }
  const times = [
    r.submitNs !== undefined ? `submitted ${at(r.submitNs)}` : null,
    r.startNs !== undefined ? `started ${at(r.startNs)}` : null,
    r.op === 'end' ? `${r.kind.endsWith('record') || r.kind === 'reset' ? 'took effect' : 'ended'} ${at(r.tNs)}` : 'never ended',
  ];
  return `${where} ${r.kind}${target ? ` ${target}` : ''}: ${times.filter(Boolean).join(', ')}`;
}
