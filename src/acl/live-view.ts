/**
 * The stub's live view of a process's streams (cannstub_live_view, a stub-only extension:
 * native-stub/include/cannstub/live_view.h, docs/acl-contract.md S11), for hang reports (issue #11).
 *
 * The native watchdog thread (native-stub/harness/hold/watch.c) makes the call while the main thread may
 * be blocked inside a synchronize: it looks cannstub_live_view up in the ACL library the binding
 * loaded (watchdog.ts publishLoadedLibrary; real CANN has no such call, and then the answer says
 * so) and hands the JSON text to the parent, which parses it here.
 */

/** One task as the stub describes it (kinds as in the stub's trace). */
export interface LiveTask {
  task: number;
  kind: string;
  event?: number;
  /** Local events: the record's generation; IPC: the slot's use. */
  gen?: number;
  /** IPC: the event's id, as the stub's trace writes it (16 hex). */
  ipc?: string;
  slot?: number;
  /** IPC waits: whose record it waits for (null: the slot was taken again since). */
  recorder?: { pid: number; stream: number } | null;
  /** Only on a stream's head: 'running' (the executor runs it) or 'queued' (not taken yet). */
  state?: 'running' | 'queued';
  sinceNs?: string;
}

export interface LiveStream {
  stream: number;
  device: number;
  destroyed: boolean;
  syncWaiters: number;
  head: LiveTask | null;
  /** The tasks behind the head, in order (at most 32; queuedTotal counts all). */
  queued: LiveTask[];
  queuedTotal: number;
}

export interface LiveView {
  pid: number;
  nowNs: string;
  streams: LiveStream[];
}

/** What the watcher got: the view, or why there is none. */
export type LiveViewAnswer = { view: LiveView } | { unavailable: string };

/** The C answer (snake_case) as LiveView; throws on anything that is not one. */
export function parseLiveView(json: string): LiveView {
  const raw = JSON.parse(json) as { pid: number; now_ns: string; streams: Record<string, unknown>[] };
  if (typeof raw.pid !== 'number' || !Array.isArray(raw.streams)) throw new Error(`not a live view: ${json.slice(0, 200)}`);
  const task = (t: Record<string, unknown>): LiveTask => {
    const out: LiveTask = { task: t.task as number, kind: t.kind as string };
    for (const k of ['event', 'gen', 'ipc', 'slot', 'recorder', 'state'] as const) if (k in t) (out as unknown as Record<string, unknown>)[k] = t[k];
    if (typeof t.since_ns === 'string') out.sinceNs = t.since_ns;
    return out;
  };
  return {
    pid: raw.pid,
    nowNs: raw.now_ns,
    streams: raw.streams.map((s) => ({
      stream: s.stream as number,
      device: s.device as number,
      destroyed: s.destroyed as boolean,
      syncWaiters: s.sync_waiters as number,
      head: s.head ? task(s.head as Record<string, unknown>) : null,
      queued: (s.queued as Record<string, unknown>[]).map(task),
      queuedTotal: s.queued_total as number,
    })),
  };
}
