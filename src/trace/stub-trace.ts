/**
 * The stub's per-process trace (native-stub/README.md, "Trace format"): one JSON object per
 * line, CLOCK_MONOTONIC ns, written with one write(2) per line so a killed process leaves only
 * whole lines. Shared by the timeline (chrome-trace.ts) and the happens-before check.
 */

export interface TraceSource {
  pid: number;
  role: string | null;
  /** The stub's trace file content: one JSON object per line. */
  jsonl: string;
}

export interface StubTraceLine {
  t: number;
  pid: number;
  tid: number;
  op: 'submit' | 'start' | 'end' | 'cancel' | 'sync';
  kind: string;
  device: number;
  stream: number;
  /** Per-stream task number (1, 2, ...); null for no-op waits and event syncs. Absent in old traces. */
  task?: number | null;
  event: number;
  slot: number | null;
  /** Which record: local event generation, or IPC slot use. */
  gen?: number | null;
  ipc: string | null;
  note?: string;
  /** sync lines: the call's return code. */
  rc?: number;
  /** start lines under ACL_STUB_JITTER: the delay applied. */
  jitter_us?: number;
}

export function parseTraceLines(jsonl: string): StubTraceLine[] {
  const lines: StubTraceLine[] = [];
  for (const raw of jsonl.split('\n')) {
    if (raw.trim() === '') continue;
    try {
      lines.push(JSON.parse(raw) as StubTraceLine);
    } catch {
      // A process killed mid-run leaves only complete lines; anything else is not ours to guess at.
    }
  }
  return lines;
}
