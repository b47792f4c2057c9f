/**
 * A few lines per role of what ran on which stream, and when (issue #11, item 6): the failure
 * report's timeline for CI logs, where nobody opens trace.json in Perfetto. Times are ms from the
 * run's first trace line (the same origin as the happens-before report).
 */
import { parseTraceLines, type StubTraceLine, type TraceSource } from './stub-trace';

/** At most this many tasks per stream (the last ones: a hang is at the end). */
const TASKS_PER_STREAM = 6;

interface Task {
  submit: StubTraceLine;
  start?: number;
  end?: number;
  cancelled?: boolean;
  note?: string;
}

function name(l: StubTraceLine): string {
  if (l.kind === 'host_func') return 'host func';
  const slot = l.slot === null ? '' : ` slot ${l.slot}`;
  const ev = l.ipc ? ` ${l.ipc.slice(0, 8)}` : l.event ? ` ev${l.event}` : '';
  return `${l.kind}${ev}${slot}`;
}

export interface TextTimelineOptions {
  /** Where the run ended (the deadline, the first failure): unfinished tasks run to it. */
  endNs?: bigint;
  /** What endNs is (default 'the deadline'). */
  endLabel?: string;
  /** From when a process's task ends were the harness stopping it: those tasks are UNFINISHED too. */
  stoppedAt?: (pid: number) => number | undefined;
}

export function formatTextTimeline(traces: TraceSource[], opts: TextTimelineOptions = {}): string[] {
  const parsed = traces.map((t) => ({ source: t, lines: parseTraceLines(t.jsonl) })).filter((p) => p.lines.length > 0);
  if (parsed.length === 0) return [];
  const origin = Math.min(...parsed.map((p) => p.lines[0].t));
  const ms = (ns: number) => `+${((ns - origin) / 1e6).toFixed(1)}`;
  const endNs = opts.endNs === undefined ? undefined : Number(opts.endNs);
  const endLabel = opts.endLabel ?? 'the deadline';
  const deadline = endNs === undefined ? '' : `; ${endLabel} was at ${ms(endNs)}`;
  const out = [`timeline (ms from the first trace line; per role and stream, the last tasks${deadline}):`];
  // Up to where an unfinished task is shown running: the run's end, when it started before it.
  const until = (start: number) => (endNs !== undefined && start < endNs ? `${ms(endNs)} ` : '');
  for (const { source, lines } of parsed) {
    const streams = new Map<number, Task[]>();
    const byKey = new Map<string, Task>();
    for (const l of lines) {
      if (l.task === null || l.task === undefined) continue;
      const key = `${l.stream}/${l.task}`;
      if (l.op === 'submit') {
        const task: Task = { submit: l };
        byKey.set(key, task);
        streams.set(l.stream, [...(streams.get(l.stream) ?? []), task]);
        continue;
      }
      const task = byKey.get(key);
      if (!task) continue;
      if (l.op === 'start') task.start = l.t;
      if (l.op === 'end') (task.end = l.t), (task.note = l.note);
      if (l.op === 'cancel') (task.cancelled = true), (task.end = l.t);
    }
    out.push(`  ${source.role ?? 'pid'} (pid ${source.pid})`);
    // Ends written once the harness stopped the process (a latch released, a wait abandoned at exit).
    const stopNs = endNs !== undefined ? opts.stoppedAt?.(source.pid) : undefined;
    for (const [stream, tasks] of [...streams].sort((a, b) => a[0] - b[0])) {
      const shown = tasks.slice(-TASKS_PER_STREAM).map((t) => {
        const n = name(t.submit);
        if (t.cancelled) return `${n} cancelled ${ms(t.end!)}`;
        if (t.start === undefined) return `${n} queued ${ms(t.submit.t)}, never ran`;
        const endedByStop = t.end !== undefined && stopNs !== undefined && t.end >= stopNs;
        if (endNs !== undefined && t.start >= endNs && (t.end === undefined || endedByStop)) {
          const why = stopNs !== undefined ? 'as the harness stopped the run' : 'never ended';
          return `${n} ${ms(t.start)} (started after ${endLabel}, ${why})`;
        }
        if (t.end === undefined) return `${n} ${ms(t.start)}..${until(t.start)}UNFINISHED`;
        if (endedByStop) return `${n} ${ms(t.start)}..${until(t.start)}UNFINISHED (stopped by the harness at ${ms(t.end!)})`;
        return `${n} ${ms(t.start)}..${ms(t.end)}${t.note ? ` (${t.note})` : ''}`;
      });
      const more = tasks.length > TASKS_PER_STREAM ? `${tasks.length - TASKS_PER_STREAM} earlier, ` : '';
      out.push(`    stream ${stream} (device ${tasks[0].submit.device}): ${more}${shown.join('; ')}`);
    }
  }
  return out;
}
