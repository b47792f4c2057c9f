/**
 * The wait-for graph of a hung run (issue #11): who waits for whom, across processes.
 *
 * Each running role has one outgoing step: a harness wait (signal, handle, barrier: "awaits X from
 * role R"), or an ACL call in progress, followed through the stub's traces (the stream's head task ->
 * the record a wait captured -> the task that record is queued behind -> the role holding it), or a
 * terminal state (busy in JavaScript, blocked outside ACL, ended). Following the steps from each role
 * either ends (the chain's end is named) or comes back to a role already on the path: a deadlock.
 *
 * Pure: built from what the orchestrator collected at the deadline (hang-report.ts) and the stub
 * traces; no I/O, so unit tests give it hand-written states.
 */
import { parseTraceLines, type StubTraceLine, type TraceSource } from '../trace/stub-trace';
import type { CallInProgress } from '../acl/call-record';
import type { ThreadState } from './hang-files';
import type { WaitingFor } from '../rendezvous';

/** What the orchestrator knows about one role at the deadline. */
export interface RoleState {
  name: string;
  pid: number | null;
  /** Set when the role's process is no longer running: how it ended ('crashed (SIGKILL)', ...). */
  ended?: string;
  /** The harness wait it reported (rendezvous), if any. */
  waitingFor?: WaitingFor | null;
  /** Its watcher thread's answer; undefined when it gave none. */
  call?: CallInProgress | null;
  openLatches?: number;
  main?: ThreadState | null;
  /** The main thread answered the diagnostic-report request: its event loop is free. */
  loopFree?: boolean;
}

export interface WaitStep {
  /** Text of this link, e.g. 'awaits signal "go" from producer'. */
  text: string;
  /** The role this step leads to; absent for the chain's end. */
  next?: string;
}

export interface WaitChain {
  /** The roles on the path, from the start; for a deadlock, the cycle's roles in order. */
  roles: string[];
  deadlock: boolean;
  text: string;
}

export interface WaitGraph {
  chains: WaitChain[];
  deadlock: boolean;
  /** The lines for the top of the timeout report. */
  lines: string[];
  /** The ACL call each role was in, by role name. */
  calls: Record<string, CallInProgress>;
}

interface Task {
  pid: number;
  role: string | null;
  stream: number;
  task: number;
  submit: StubTraceLine;
  started: boolean;
  ended: boolean;
  /** Dropped by aclFinalize or exit: it will never execute. */
  cancelled: boolean;
}

/** Unfinished tasks, and where each record (by event identity) was submitted. */
class StubView {
  readonly unfinished = new Map<number, Task[]>(); // pid -> unfinished tasks, in submission order
  readonly records = new Map<string, Task>(); // record key -> its task

  constructor(traces: TraceSource[]) {
    for (const t of traces) {
      const tasks = new Map<string, Task>();
      for (const l of parseTraceLines(t.jsonl)) {
        if (l.task === null || l.task === undefined) continue; // no-op waits, event syncs
        const key = `${l.stream}/${l.task}`;
        if (l.op === 'submit') {
          const task: Task = { pid: t.pid, role: t.role, stream: l.stream, task: l.task, submit: l, started: false, ended: false, cancelled: false };
          tasks.set(key, task);
          const rk = l.kind === 'ipc_record' || l.kind === 'record' ? recordKey(t.pid, l) : null;
          if (rk) this.records.set(rk, task);
        } else if (tasks.has(key)) {
          const task = tasks.get(key)!;
          if (l.op === 'start') task.started = true;
          if (l.op === 'end' || l.op === 'cancel') task.ended = true;
          if (l.op === 'cancel') task.cancelled = true;
        }
      }
      this.unfinished.set(t.pid, [...tasks.values()].filter((k) => !k.ended));
    }
  }

  /** The oldest unfinished task on each of the process's streams. */
  heads(pid: number): Task[] {
    const seen = new Set<number>();
    const out: Task[] = [];
    for (const k of this.unfinished.get(pid) ?? []) {
      if (seen.has(k.stream)) continue;
      seen.add(k.stream);
      out.push(k);
    }
    return out;
  }

  /** The first unfinished task queued before `t` on its stream (what it waits behind), if any. */
  blockerOf(t: Task): Task | undefined {
    return (this.unfinished.get(t.pid) ?? []).find((k) => k.stream === t.stream && k.task < t.task);
  }
}

/** Records are named across processes by (ipc id, slot, use); local ones by (pid, event, generation). */
function recordKey(pid: number, l: StubTraceLine): string | null {
  if (l.kind === 'ipc_record' || l.kind === 'ipc_wait') return `ipc/${l.ipc}/${l.slot}/${l.gen}`;
  if (l.kind === 'record' || l.kind === 'wait') return `local/${pid}/${l.event}/${l.gen}`;
  return null;
}

const isWait = (t: Task) => t.submit.kind === 'wait' || t.submit.kind === 'ipc_wait';

export interface GraphContext {
  /** CLOCK_MONOTONIC ns at the deadline, to say "for 3.0 s". */
  nowNs: bigint;
  /** IPC event id (trace `ipc`) -> the rendezvous name it was shared under. */
  ipcNames?: Map<string, string>;
}

export function buildWaitGraph(roles: RoleState[], traces: TraceSource[], ctx: GraphContext): WaitGraph {
  const view = new StubView(traces);
  const byName = new Map(roles.map((r) => [r.name, r]));
  const byPid = new Map(roles.filter((r) => r.pid !== null).map((r) => [r.pid!, r]));
  const steps = new Map(roles.map((r) => [r.name, stepsOf(r, view, byPid, ctx)]));

  const chains: WaitChain[] = [];
  const inCycle = new Set<string>();
  const chainOf = (start: string): WaitChain => {
    const path: string[] = [];
    const parts: string[] = [];
    let at: string | undefined = start;
    while (at !== undefined && !path.includes(at)) {
      path.push(at);
      const s: WaitStep[] = steps.get(at) ?? [{ text: `${at}: not a role of this run` }];
      parts.push(...s.map((x) => x.text));
      at = s[s.length - 1].next;
      if (at !== undefined && !byName.has(at)) {
        parts.push(`${at} is not a role of this run`);
        at = undefined;
      }
    }
    if (at === undefined) return { roles: path, deadlock: false, text: `chain: ${parts.join(' ← ')}` };
    if (at === start) return { roles: path, deadlock: true, text: `deadlock: ${parts.join(' ← ')} ← (back to ${start})` };
    return { roles: path, deadlock: false, text: `chain: ${parts.join(' ← ')} ← (into the deadlock of ${at})` };
  };

  for (const r of roles) {
    if (r.ended || inCycle.has(r.name)) continue;
    const c = chainOf(r.name);
    if (c.deadlock) c.roles.forEach((n) => inCycle.add(n));
    chains.push(c);
  }
  // A chain that runs into a cycle found later is still useful; a cycle printed once is enough.
  const shown = chains.filter((c, i) => !(c.deadlock && chains.findIndex((d) => d.deadlock && sameCycle(d.roles, c.roles)) !== i));
  const deadlock = shown.some((c) => c.deadlock);
  const lines = ['wait-for graph at the deadline (read "A ← B" as "A waits for B"):', ...shown.map((c) => `  ${c.text}`)];
  if (shown.length === 0) lines.push('  (no role was still running)');
  const calls = Object.fromEntries(roles.filter((r) => r.call).map((r) => [r.name, r.call!]));
  return { chains: shown, deadlock, lines, calls };
}

function sameCycle(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((n) => b.includes(n));
}

function seconds(sinceNs: string, nowNs: bigint): string {
  const ms = Number(nowNs - BigInt(sinceNs)) / 1e6;
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.max(0, Math.round(ms))} ms`;
}

function stepsOf(r: RoleState, view: StubView, byPid: Map<number, RoleState>, ctx: GraphContext): WaitStep[] {
  if (r.ended) return [{ text: `${r.name} has ended (${r.ended})` }];
  if (r.waitingFor) {
    const w = r.waitingFor;
    return [w.from ? { text: `${r.name} awaits ${w.what} from ${w.from}`, next: w.from } : { text: `${r.name} awaits ${w.what} (no role named as its source)` }];
  }
  if (r.call) {
    const head = `${r.name} (${r.call.name}${r.call.args ? ` ${r.call.args}` : ''}, for ${seconds(r.call.sinceNs, ctx.nowNs)})`;
    if (r.pid === null || !view.unfinished.has(r.pid)) return [{ text: `${head}: no stub trace to follow (real mode)` }];
    const blocked = pickBlockedHead(view.heads(r.pid), r.call.args, view.unfinished.get(r.pid) ?? []);
    if (!blocked) return [{ text: `${head}: its streams have no unfinished task` }];
    return [{ text: head }, ...followTask(blocked, view, byPid, ctx, 0)];
  }
  const main = r.main;
  if (r.loopFree) return [{ text: `${r.name} is idle: its event loop is free but its body has not returned (awaiting something the harness does not see)` }];
  if (main?.state === 'R') return [{ text: `${r.name} is busy: its main thread is running (JavaScript, no ACL call, no harness wait)` }];
  if (main) return [{ text: `${r.name} is blocked outside ACL calls: main thread ${main.state === 'S' ? 'sleeping' : `state ${main.state}`}${main.wchan && main.wchan !== '0' ? ` in ${main.wchan}` : ''}` }];
  return [{ text: `${r.name} did not answer (no watcher thread)` }];
}

/**
 * Stub handles are a tag plus the per-process id the traces use (native-stub/src/runtime.h:
 * 0x5a1… streams, 0x5e1… events, id in the low 36 bits), so the call's own stream or event can be
 * found in the trace. With real CANN handles (pointers) nothing matches and the heuristic below is used.
 */
const STUB_HANDLE = { stream: 0x5a1n, event: 0x5e1n } as const;
function stubHandleId(args: string, kind: keyof typeof STUB_HANDLE): number | null {
  const m = new RegExp(`${kind}=0x([0-9a-f]+)`).exec(args);
  if (!m) return null;
  const h = BigInt(`0x${m[1]}`);
  return h >> 36n === STUB_HANDLE[kind] ? Number(h & 0xfffffffffn) : null;
}

/**
 * The task a synchronize is stuck behind: the head of the call's own stream (or of the stream that
 * holds the call's event's record), else a wait or host function at some stream's head, else the oldest.
 */
function pickBlockedHead(heads: Task[], args: string, unfinished: Task[]): Task | undefined {
  const streamId = stubHandleId(args, 'stream');
  const own = streamId !== null ? heads.find((h) => h.stream === streamId) : undefined;
  if (own) return own;
  const eventId = stubHandleId(args, 'event');
  const record = eventId !== null ? unfinished.find((t) => t.submit.event === eventId && t.submit.kind.endsWith('record')) : undefined;
  if (record) return heads.find((h) => h.stream === record.stream);
  const blocking = heads.filter((h) => isWait(h) || h.submit.kind === 'host_func' || h.submit.kind === 'notify_wait');
  const pool = blocking.length ? blocking : heads;
  return pool.sort((a, b) => a.submit.t - b.submit.t)[0];
}

function describeTask(t: Task, ctx: GraphContext): string {
  const l = t.submit;
  const ipcName = l.ipc ? ctx.ipcNames?.get(l.ipc) : undefined;
  const ev = l.kind.startsWith('ipc') ? `IPC event ${ipcName ? `"${ipcName}" (${l.ipc})` : l.ipc} slot ${l.slot}` : `event ${l.event}`;
  return `${ev}${l.gen !== null && l.gen !== undefined ? ` use ${l.gen}` : ''}`;
}

/** From a task at a stream's head, what it waits for, as steps; the last one may lead to a role. */
function followTask(t: Task, view: StubView, byPid: Map<number, RoleState>, ctx: GraphContext, depth: number): WaitStep[] {
  const owner = byPid.get(t.pid);
  const ownerName = owner?.name ?? t.role ?? `pid ${t.pid}`;
  const where = `stream ${t.stream}`;
  if (depth > 8) return [{ text: '… (chain of stream waits too long, stopped following)' }];
  if (isWait(t)) {
    const key = recordKey(t.pid, t.submit);
    const rec = key ? view.records.get(key) : undefined;
    const what = `waits ${describeTask(t, ctx)} on ${where}`;
    if (!rec) return [{ text: `${what}: no trace of the record it captured` }];
    const recOwner = byPid.get(rec.pid);
    const recName = recOwner?.name ?? rec.role ?? `pid ${rec.pid}`;
    const recorded = `${what}, recorded by ${recName} stream ${rec.stream}`;
    if (rec.cancelled) return [{ text: `${recorded}: that record was cancelled when its process finalized or exited, it will never execute` }];
    if (rec.ended) return [{ text: `${recorded} (that record has executed: the wait should end)` }];
    if (!recOwner || recOwner.ended) {
      return [{ text: `${recorded}: that record will never execute, its process ${recOwner ? `has ended (${recOwner.ended})` : `(pid ${rec.pid}) is gone`}` }];
    }
    const behind = view.blockerOf(rec);
    if (!behind) return [{ text: `${recorded} (at its stream's head, not yet executed)` }];
    return [{ text: recorded }, ...followTask(behind, view, byPid, ctx, depth + 1)];
  }
  if (t.submit.kind === 'host_func') {
    if (owner?.ended) return [{ text: `queued behind a host function of ${ownerName}, whose process has ended (${owner.ended})` }];
    if ((owner?.openLatches ?? 0) > 0) return [{ text: `queued behind a latch (host function on ${where}) held by ${ownerName}`, next: owner?.name }];
    return [{ text: `queued behind a host function running on ${ownerName} ${where} (not a latch: it ends by itself)` }];
  }
  if (t.submit.kind === 'notify_wait') return [{ text: `queued behind a notify wait on ${ownerName} ${where} (its recorder is not traced)` }];
  const state = t.started ? 'running' : 'queued';
  return [{ text: `queued behind ${t.submit.kind} (${state}) on ${ownerName} ${where}` }];
}
