/**
 * Merges one run's stub traces (one JSON-lines file per process, CLOCK_MONOTONIC ns) and the roles'
 * marks (same clock) into a single Chrome trace (the JSON "Trace Event Format"), which
 * https://ui.perfetto.dev and chrome://tracing open as a timeline: one process per role, one track
 * per stream, each executed task a bar (submit -> start -> end), each mark an instant.
 */
import { parseTraceLines, type StubTraceLine, type TraceSource } from './stub-trace';

export type { TraceSource } from './stub-trace';

export interface MarkSource {
  role: string;
  pid: number | null;
  marks: { name: string; tNs: string }[];
}

interface ChromeEvent {
  name: string;
  ph: 'X' | 'i' | 'M' | 's' | 'f';
  id?: number;
  bp?: 'e';
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  s?: 't' | 'p';
  cat?: string;
  args?: Record<string, unknown>;
}

const MARKS_TRACK = 0; // stream ids start at 1

function taskName(l: StubTraceLine, ipcNames?: Record<string, string>): string {
  // An IPC event by the name it was shared under (as the wait-for graph names it), else the process's event id.
  const shared = l.ipc ? ipcNames?.[l.ipc] : undefined;
  if (shared !== undefined) return `${l.kind} "${shared}"${l.slot === null ? '' : ` slot ${l.slot}`}`;
  // Memory and notify tasks (memcpy, memset, notify_record, notify_wait) carry no event id.
  const what = l.kind === 'host_func' ? 'host func' : l.event ? `${l.kind} ev${l.event}` : l.kind.replace('_', ' ');
  return l.slot === null ? what : `${what} slot ${l.slot}`;
}

export interface ChromeTraceOptions {
  /** CLOCK_MONOTONIC ns at which the run was stopped (its deadline): unfinished tasks end there. */
  endNs?: number;
  /** What endNs is, for unfinished tasks' names (default: 'the deadline'). */
  endLabel?: string;
  /**
   * The deadline of a run that timed out: a wait that ended after it ended because its role was
   * stopped, not because a record released it (no release arrow).
   */
  deadlineNs?: number;
  /** IPC event trace id -> the name it was shared under (RunResult.ipcNames). */
  ipcNames?: Record<string, string>;
  /**
   * With endNs: from when a process's task ends were the harness stopping it (a latch released, a
   * wait abandoned at exit). Such a task is unfinished, drawn up to endNs, never as ending by itself.
   */
  stoppedAt?: (pid: number) => number | undefined;
}

export function toChromeTrace(traces: TraceSource[], marks: MarkSource[] = [], opts: ChromeTraceOptions = {}): { traceEvents: ChromeEvent[] } {
  const parsed = traces.map((t) => ({ source: t, lines: parseTraceLines(t.jsonl) }));
  const allNs = [
    ...parsed.flatMap((p) => p.lines.map((l) => l.t)),
    ...marks.flatMap((m) => m.marks.map((k) => Number(BigInt(k.tNs)))),
  ];
  const origin = allNs.length ? Math.min(...allNs) : 0;
  const us = (ns: number) => (ns - origin) / 1000;
  const events: ChromeEvent[] = [];
  const named = new Set<string>();
  const nameTrack = (pid: number, tid: number, name: string) => {
    if (named.has(`${pid}/${tid}`)) return;
    named.add(`${pid}/${tid}`);
    events.push({ name: 'thread_name', ph: 'M', pid, tid, args: { name } });
  };

  // A task that began only after the run's end (deadline, first failure): an instant where it began.
  const startedAfterEnd = (start: StubTraceLine, pid: number, stopped: boolean): ChromeEvent => ({
    name: `${taskName(start, opts.ipcNames)} (started after ${opts.endLabel ?? 'the deadline'}, ${stopped ? 'as the harness stopped the run' : 'never ended'})`,
    ph: 'i', s: 't', pid, tid: start.stream, ts: us(start.t), cat: 'stopped',
  });

  for (const { source, lines } of parsed) {
    const label = source.role ? `${source.role} (pid ${source.pid})` : `pid ${source.pid}`;
    events.push({ name: 'process_name', ph: 'M', pid: source.pid, tid: 0, args: { name: label } });
    // Each stream runs its tasks in order, so its starts and ends pair up first-in, first-out.
    const open = new Map<number, { start: StubTraceLine; submitT?: number }[]>();
    const submitted = new Map<string, number[]>();
    const key = (l: StubTraceLine) => `${l.stream}/${l.kind}/${l.event}/${l.slot}`;
    for (const l of lines) {
      nameTrack(source.pid, l.stream, `device ${l.device} stream ${l.stream}`);
      const args = { device: l.device, stream: l.stream, event: l.event, slot: l.slot, ipc: l.ipc, tid: l.tid };
      if (l.op === 'submit') {
        if (l.note === 'noop') {
          events.push({ name: `${taskName(l, opts.ipcNames)} (no-op)`, ph: 'i', s: 't', pid: source.pid, tid: l.stream, ts: us(l.t), cat: 'submit', args });
        } else {
          submitted.set(key(l), [...(submitted.get(key(l)) ?? []), l.t]);
        }
      } else if (l.op === 'start') {
        const queue = submitted.get(key(l));
        open.set(l.stream, [...(open.get(l.stream) ?? []), { start: l, submitT: queue?.shift() }]);
      } else if (l.op === 'end') {
        const started = open.get(l.stream)?.shift();
        if (!started) continue;
        const queuedUs = started.submitT === undefined ? undefined : (started.start.t - started.submitT) / 1000;
        const stopNs = opts.endNs !== undefined ? opts.stoppedAt?.(source.pid) : undefined;
        if (stopNs !== undefined && l.t >= stopNs) {
          if (started.start.t >= opts.endNs!) {
            // Began after the run's end, as it was being stopped (e.g. behind a latch the exit released): an instant.
            events.push(startedAfterEnd(started.start, source.pid, true));
            continue;
          }
          // Running at the run's end and ended by the stop: drawn up to the end, unfinished.
          events.push({
            name: `${taskName(l, opts.ipcNames)} (unfinished at ${opts.endLabel ?? 'the deadline'}: stopped by the harness)`, ph: 'X', pid: source.pid, tid: l.stream,
            ts: us(started.start.t), dur: (opts.endNs! - started.start.t) / 1000, cat: l.kind,
            args: { ...args, queuedUs, unfinished: 'stopped', stoppedAfterUs: (l.t - opts.endNs!) / 1000 },
          });
          continue;
        }
        events.push({
          name: taskName(l, opts.ipcNames), ph: 'X', pid: source.pid, tid: l.stream, ts: us(started.start.t),
          dur: (l.t - started.start.t) / 1000, cat: l.kind, args: { ...args, queuedUs },
        });
      } else if (l.op === 'cancel' || l.op === 'sync') {
        events.push({ name: l.op === 'sync' ? `synchronize ${l.kind} (rc ${l.rc})` : `${taskName(l, opts.ipcNames)} cancelled`, ph: 'i', s: 't', pid: source.pid, tid: l.stream, ts: us(l.t), cat: l.op, args });
      }
    }
    // Started but never ended (the hang, or a process killed inside the task): up to the run's
    // deadline when known, else to the process's last line, and labelled so.
    const lastT = opts.endNs ?? (lines.length ? lines[lines.length - 1].t : origin);
    const unfinished = opts.endNs !== undefined ? `unfinished at ${opts.endLabel ?? 'the deadline'}` : 'unfinished';
    for (const [stream, pending] of open) {
      for (const { start } of pending) {
        if (opts.endNs !== undefined && start.t >= opts.endNs) {
          events.push(startedAfterEnd(start, source.pid, opts.stoppedAt?.(source.pid) !== undefined));
          continue;
        }
        events.push({
          name: `${taskName(start, opts.ipcNames)} (${unfinished})`, ph: 'X', pid: source.pid, tid: stream, ts: us(start.t),
          dur: Math.max(0, lastT - start.t) / 1000, cat: start.kind, args: { unfinished: true },
        });
      }
    }
  }

  events.push(...releaseFlows(parsed, us, opts.endNs !== undefined ? opts.stoppedAt : undefined, opts.deadlineNs));

  for (const m of marks) {
    const pid = m.pid ?? 0;
    if (!parsed.some((p) => p.source.pid === pid)) {
      events.push({ name: 'process_name', ph: 'M', pid, tid: 0, args: { name: `${m.role} (pid ${pid})` } });
    }
    nameTrack(pid, MARKS_TRACK, 'marks');
    for (const k of m.marks) {
      events.push({ name: k.name, ph: 'i', s: 'p', pid, tid: MARKS_TRACK, ts: us(Number(BigInt(k.tNs))), cat: 'mark', args: { role: m.role } });
    }
  }
  return { traceEvents: events };
}

/** Which record (across processes for IPC) a record or wait line names; null for other tasks. */
function recordKey(pid: number, l: StubTraceLine): string | null {
  if (l.gen === null || l.gen === undefined) return null;
  if (l.kind === 'ipc_record' || l.kind === 'ipc_wait') return `ipc/${l.ipc}/${l.slot}/${l.gen}`;
  if (l.kind === 'record' || l.kind === 'wait') return `local/${pid}/${l.event}/${l.gen}`;
  return null;
}

/**
 * Flow arrows from each record to the waits it released (a wait that ended normally after its
 * record took effect), so the timeline shows who woke whom across processes.
 */
function releaseFlows(
  parsed: { source: TraceSource; lines: StubTraceLine[] }[],
  us: (ns: number) => number,
  stoppedAt: ((pid: number) => number | undefined) | undefined,
  deadlineNs?: number,
): ChromeEvent[] {
  const recordEnds = new Map<string, { pid: number; l: StubTraceLine }>();
  for (const { source, lines } of parsed) {
    for (const l of lines) {
      if (l.op !== 'end' || (l.kind !== 'ipc_record' && l.kind !== 'record')) continue;
      const key = recordKey(source.pid, l);
      if (key) recordEnds.set(key, { pid: source.pid, l });
    }
  }
  const out: ChromeEvent[] = [];
  let id = 0;
  for (const { source, lines } of parsed) {
    for (const l of lines) {
      if (l.op !== 'end' || (l.kind !== 'ipc_wait' && l.kind !== 'wait') || l.note) continue;
      if (deadlineNs !== undefined && l.t > deadlineNs) continue; // ended by the stop after the deadline, not by its record
      const stopNs = stoppedAt?.(source.pid);
      if (stopNs !== undefined && l.t >= stopNs) continue; // drawn unfinished: the stop ended it
      const key = recordKey(source.pid, l);
      const rec = key ? recordEnds.get(key) : undefined;
      if (!rec) continue;
      id++;
      // 's' sits just inside the record's bar (which ends at its effect); 'f' binds to the wait's bar end.
      out.push({ name: 'release', ph: 's', id, pid: rec.pid, tid: rec.l.stream, ts: us(rec.l.t) - 0.001, cat: 'flow' });
      out.push({ name: 'release', ph: 'f', bp: 'e', id, pid: source.pid, tid: l.stream, ts: us(l.t), cat: 'flow' });
    }
  }
  return out;
}
