/**
 * The wait-for graph of a hung run (issue #11): who waits for whom, across processes.
 *
 * Each running role has one outgoing step: a harness wait (signal, handle, barrier: "awaits X from
 * role R"), or an ACL call in progress, followed through the stub's state of each process: its live
 * view (cannstub_live_view, asked by the role's watcher at the deadline) when it gave one, else its
 * trace file (the stream's head task ->
 * the record a wait captured -> the task that record is queued behind -> the role holding it), or a
 * terminal state (busy in JavaScript, blocked outside ACL, ended). Following the steps from each role
 * either ends (the chain's end is named) or comes back to a role already on the path: a deadlock.
 *
 * Pure: built from what the orchestrator collected at the deadline (hang-report.ts) and the stub
 * traces; no I/O, so unit tests give it hand-written states. The graph says which source it used.
 */
import { parseTraceLines, type StubTraceLine, type TraceSource } from '../trace/stub-trace';
import type { CallInProgress } from '../acl/call-record';
import type { LiveTask, LiveView, LiveViewAnswer } from '../acl/live-view';
import type { ThreadCall, ThreadState } from '../wire/hang-files';
import type { WaitingFor } from '../rendezvous';
import type { StubSource, WaitChain, WaitGraph, WaitStep } from '../wire/results';

export type { StubSource, WaitChain, WaitGraph, WaitStep };

/** What the orchestrator knows about one role at the deadline. */
export interface RoleState {
  name: string;
  pid: number | null;
  /** Set when the role's process is no longer running: how it ended ('crashed (SIGKILL)', ...). */
  ended?: string;
  /** The harness wait it reported (rendezvous), if any. */
  waitingFor?: WaitingFor | null;
  /** Its watchdog thread's answer (native-stub/harness/hold/watch.c); undefined when it gave none. */
  call?: CallInProgress | null;
  openLatches?: number;
  main?: ThreadState | null;
  /** The main thread answered the diagnostic-report request: its event loop is free. */
  loopFree?: boolean;
  /** Calls in progress in the role's worker threads (`threads: k`). */
  threadCalls?: ThreadCall[];
  /** The stub's live view of the role's streams (or why there is none); undefined: not asked. */
  live?: LiveViewAnswer;
  /** A native role (a program): no event loop; its harness waits are C API calls (cannharness.h). */
  native?: boolean;
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
  /** Live view, IPC waits: the process and stream of the record it waits for. */
  recorder?: { pid: number; stream: number } | null;
}

/** Unfinished tasks, and where each record (by event identity) was submitted. */
class StubView {
  readonly unfinished = new Map<number, Task[]>(); // pid -> unfinished tasks, in submission order
  readonly records = new Map<string, Task>(); // record key -> its task
  readonly sources = new Map<number, StubSource>(); // pid -> where its tasks came from

  constructor(traces: TraceSource[], lives: { role: string; view: LiveView }[]) {
    for (const { role, view } of lives) this.addLive(role, view);
    for (const t of traces) {
      if (this.sources.get(t.pid) === 'live') continue; // the live view is the process's state now
      this.sources.set(t.pid, 'trace');
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

  private addLive(role: string, view: LiveView): void {
    this.sources.set(view.pid, 'live');
    const tasks: Task[] = [];
    for (const st of view.streams) {
      for (const lt of st.head ? [st.head, ...st.queued] : st.queued) {
        const submit: StubTraceLine = {
          t: lt.sinceNs ? Number(lt.sinceNs) : 0,
          pid: view.pid,
          tid: 0,
          op: 'submit',
          kind: lt.kind,
          device: st.device,
          stream: st.stream,
          task: lt.task,
          event: lt.event ?? 0,
          slot: lt.slot ?? null,
          gen: lt.gen ?? null,
          ipc: lt.ipc ?? null,
        };
        const task: Task = { pid: view.pid, role, stream: st.stream, task: lt.task, submit, started: lt.state === 'running', ended: false, cancelled: false, recorder: lt.recorder };
        tasks.push(task);
        const rk = lt.kind === 'ipc_record' || lt.kind === 'record' ? recordKey(view.pid, submit) : null;
        if (rk) this.records.set(rk, task);
      }
    }
    this.unfinished.set(view.pid, tasks);
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

/** What buildWaitGraph needs besides the roles and their traces: the time of the deadline and IPC names. */
export interface WaitGraphInputs {
  /** CLOCK_MONOTONIC ns at the deadline, to say "for 3.0 s". */
  nowNs: bigint;
  /** IPC event id (trace `ipc`) -> the rendezvous name it was shared under. */
  ipcNames?: Map<string, string>;
}

export function buildWaitGraph(roles: RoleState[], traces: TraceSource[], ctx: WaitGraphInputs): WaitGraph {
  const lives = roles.flatMap((r) => (r.live && 'view' in r.live ? [{ role: r.name, view: r.live.view }] : []));
  const view = new StubView(traces, lives);
  const byName = new Map(roles.map((r) => [r.name, r]));
  const byPid = new Map(roles.filter((r) => r.pid !== null).map((r) => [r.pid!, r]));
  const steps = new Map(roles.map((r) => [r.name, stepsOf(r, view, byPid, ctx, roles)]));

  const chains: WaitChain[] = [];
  const inCycle = new Set<string>();
  const chainOf = (start: string): WaitChain => {
    const path: string[] = [];
    const parts: string[] = [];
    const edges: { from: string; to: string }[] = [];
    let at: string | undefined = start;
    while (at !== undefined && !path.includes(at)) {
      path.push(at);
      const s: WaitStep[] = steps.get(at) ?? [{ text: `${at}: not a role of this run` }];
      parts.push(...s.map((x) => x.text));
      for (const x of s) {
        const to = x.next ?? x.on;
        if (to !== undefined && to !== at && byName.has(to) && !edges.some((e) => e.from === at && e.to === to)) edges.push({ from: at, to });
      }
      at = s[s.length - 1].next;
      if (at !== undefined && !byName.has(at)) {
        parts.push(`${at} is not a role of this run`);
        at = undefined;
      }
    }
    if (at === undefined) return { roles: path, deadlock: false, text: `chain: ${parts.join(' ← ')}`, edges };
    if (at === start) return { roles: path, deadlock: true, text: `deadlock: ${parts.join(' ← ')} ← (back to ${start})`, edges };
    return { roles: path, deadlock: false, text: `chain: ${parts.join(' ← ')} ← (into the deadlock of ${at})`, edges };
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
  const calls = Object.fromEntries(roles.flatMap((r) => {
    const c = r.call ?? oldestThreadCall(r.threadCalls)?.call;
    return c ? [[r.name, c]] : [];
  }));
  const sources: Record<string, StubSource> = {};
  for (const r of roles) if ((r.call || r.threadCalls?.length) && !r.ended) sources[r.name] = (r.pid !== null && view.sources.get(r.pid)) || 'none';
  if (Object.keys(sources).length) lines.push(`  (stream state from: ${describeSources(sources, roles)})`);
  return { chains: shown, deadlock, lines, calls, sources };
}

/** e.g. 'the stub's live view (consumer, producer); trace files (other: live view unavailable, ...)'. */
function describeSources(sources: Record<string, StubSource>, roles: RoleState[]): string {
  const label: Record<StubSource, string> = { live: "the stub's live view", trace: 'trace files', none: 'nothing' };
  const why = (name: string) => {
    const live = roles.find((r) => r.name === name)?.live;
    return live && 'unavailable' in live ? `${name}: ${live.unavailable}` : name;
  };
  return (['live', 'trace', 'none'] as const)
    .map((k) => [k, Object.keys(sources).filter((n) => sources[n] === k)] as const)
    .filter(([, names]) => names.length)
    .map(([k, names]) => `${label[k]} (${(k === 'live' ? names : names.map(why)).join('; ')})`)
    .join(', ');
}

function sameCycle(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((n) => b.includes(n));
}

function seconds(sinceNs: string, nowNs: bigint): string {
  const ms = Number(nowNs - BigInt(sinceNs)) / 1e6;
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.max(0, Math.round(ms))} ms`;
}

/** The C API's waits (native-stub/harness/api/rendezvous.c), recorded by the preload like ACL calls, with args `name="<name>"`. */
const C_API_WAITS: Record<string, string> = { cannharness_await: 'handle', cannharness_await_signal: 'signal' };

/** The harness wait a C API call in progress is, as a TypeScript role reports its waits; null for any other call. */
export function cApiWait(call: CallInProgress | null | undefined): WaitingFor | null {
  if (!call || !Object.hasOwn(C_API_WAITS, call.name)) return null;
  const name = /^name="(.*)"$/.exec(call.args)?.[1];
  return name === undefined ? null : { what: `${C_API_WAITS[call.name]} "${name}"` };
}

/**
 * Who is expected to send what a wait with no `from` awaits (a C API wait, `awaitSignals`): the role
 * the name starts with (`consumer-0.waiting`: consumer-0), else the only other role still running
 * (nobody else can send it). Null when neither tells.
 */
export function likelySource(self: string, w: WaitingFor, roles: RoleState[]): { from: string; why: string } | null {
  const name = /^(?:signal|handle) "(.*)"$/.exec(w.what)?.[1];
  if (name === undefined) return null;
  const named = roles
    .filter((r) => r.name !== self && (name.startsWith(`${r.name}.`) || name.startsWith(`${r.name}-`) || name.startsWith(`${r.name}:`)))
    .sort((a, b) => b.name.length - a.name.length)[0];
  if (named) return { from: named.name, why: `its name starts with "${named.name}"` };
  const others = roles.filter((r) => r.name !== self && !r.ended);
  if (others.length === 1) return { from: others[0].name, why: 'the only other role still running' };
  return null;
}

function waitStep(who: string, self: string, w: WaitingFor, roles: RoleState[]): WaitStep {
  if (w.from) return { text: `${who} awaits ${w.what} from ${w.from}`, next: w.from };
  const guess = likelySource(self, w, roles);
  if (guess) return { text: `${who} awaits ${w.what} from ${guess.from} (no source named: ${guess.why})`, next: guess.from };
  return { text: `${who} awaits ${w.what} (no role named as its source)` };
}

function stepsOf(r: RoleState, view: StubView, byPid: Map<number, RoleState>, ctx: WaitGraphInputs, roles: RoleState[]): WaitStep[] {
  if (r.ended) return [{ text: `${r.name} has ended (${r.ended})` }];
  if (r.waitingFor) return [waitStep(r.name, r.name, r.waitingFor, roles)];
  const cWait = cApiWait(r.call);
  if (cWait) return [waitStep(`${r.name} (${r.call!.name}, for ${seconds(r.call!.sinceNs, ctx.nowNs)})`, r.name, cWait, roles)];
  if (r.call) return callSteps(r, r.name, r.call, view, byPid, ctx, roles);
  const threadCall = oldestThreadCall(r.threadCalls);
  if (threadCall) {
    const others = (r.threadCalls?.length ?? 1) - 1;
    const who = `${r.name} thread ${threadCall.thread}${others ? ` (and ${others} more thread${others > 1 ? 's' : ''} in ACL calls)` : ''}`;
    const threadWait = cApiWait(threadCall.call);
    if (threadWait) return [waitStep(`${who} (${threadCall.call.name}, for ${seconds(threadCall.call.sinceNs, ctx.nowNs)})`, r.name, threadWait, roles)];
    return callSteps(r, who, threadCall.call, view, byPid, ctx, roles);
  }
  const main = r.main;
  if (r.loopFree) return [{ text: `${r.name} is idle: its event loop is free but its body has not returned (awaiting something the harness does not see)` }];
  if (r.native && main?.state === 'R') return [{ text: `${r.name} is busy: its main thread is running (no ACL call, no C API wait)` }];
  if (main?.state === 'R') return [{ text: `${r.name} is busy: its main thread is running (JavaScript, no ACL call, no harness wait)` }];
  const outside = r.native ? 'outside ACL calls and C API waits (cannharness.h)' : 'outside ACL calls';
  if (main) return [{ text: `${r.name} is blocked ${outside}: main thread ${main.state === 'S' ? 'sleeping' : `state ${main.state}`}${main.wchan && main.wchan !== '0' ? ` in ${main.wchan}` : ''}` }];
  return [{ text: `${r.name} did not answer: its native watchdog thread is not running (the warning in its log says why; fix: npm run build:stub)` }];
}

/** The steps of a role blocked in an ACL call (of its main thread, or of worker thread `who`). */
function callSteps(r: RoleState, who: string, call: CallInProgress, view: StubView, byPid: Map<number, RoleState>, ctx: WaitGraphInputs, roles: RoleState[]): WaitStep[] {
  const head = `${who} (${call.name}${call.args ? ` ${call.args}` : ''}, for ${seconds(call.sinceNs, ctx.nowNs)})`;
  if (r.pid === null || !view.unfinished.has(r.pid)) return [{ text: `${head}: no stub state to follow (no live view, no trace: real mode?)` }];
  const blocked = pickBlockedHead(view.heads(r.pid), call.args, view.unfinished.get(r.pid) ?? []);
  if (!blocked) return [{ text: `${head}: its streams have no unfinished task` }];
  return [{ text: head }, ...followTask(blocked, view, byPid, ctx, 0, roles)];
}

/** The worker thread blocked the longest: the one the others most likely wait behind. */
function oldestThreadCall(calls: ThreadCall[] | undefined): ThreadCall | undefined {
  if (!calls?.length) return undefined;
  return [...calls].sort((a, b) => (BigInt(a.call.sinceNs) < BigInt(b.call.sinceNs) ? -1 : 1))[0];
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
  const blocking = heads.filter((h) => isWait(h) || h.submit.kind === 'host_func' || h.submit.kind === 'notify_wait' || h.submit.kind === 'value_wait');
  const pool = blocking.length ? blocking : heads;
  return pool.sort((a, b) => a.submit.t - b.submit.t)[0];
}

function describeTask(t: Task, ctx: WaitGraphInputs): string {
  const l = t.submit;
  const ipcName = l.ipc ? ctx.ipcNames?.get(l.ipc) : undefined;
  const ev = l.kind.startsWith('ipc') ? `IPC event ${ipcName ? `"${ipcName}" (${l.ipc})` : l.ipc} slot ${l.slot}` : `event ${l.event}`;
  return `${ev}${l.gen !== null && l.gen !== undefined ? ` use ${l.gen}` : ''}`;
}

/** A wait whose record is in no process's view: what the live view's recorder (pid, stream) tells. */
function unseenRecord(what: string, t: Task, view: StubView, byPid: Map<number, RoleState>): string {
  const r = t.recorder;
  if (!r) return `${what}: no trace of the record it captured`;
  const owner = byPid.get(r.pid);
  const recorded = `${what}, recorded by ${owner?.name ?? `pid ${r.pid}`} stream ${r.stream}`;
  if (!owner) return `${recorded}: that record will never execute, its process (pid ${r.pid}) is not a running role of this run`;
  if (owner.ended) return `${recorded}: that record will never execute, its process has ended (${owner.ended})`;
  if (view.sources.get(r.pid) === 'live') return `${recorded} (no longer queued there: it has executed, the wait should end)`;
  return `${recorded}: ${owner.name} gave no view of its streams`;
}

/** From a task at a stream's head, what it waits for, as steps; the last one may lead to a role. */
function followTask(t: Task, view: StubView, byPid: Map<number, RoleState>, ctx: WaitGraphInputs, depth: number, roles: RoleState[]): WaitStep[] {
  const owner = byPid.get(t.pid);
  const ownerName = owner?.name ?? t.role ?? `pid ${t.pid}`;
  const where = `stream ${t.stream}`;
  if (depth > 8) return [{ text: '… (chain of stream waits too long, stopped following)' }];
  if (isWait(t)) {
    const key = recordKey(t.pid, t.submit);
    const rec = key ? view.records.get(key) : undefined;
    const what = `waits ${describeTask(t, ctx)} on ${where}`;
    if (!rec) {
      const recorder = t.recorder ? byPid.get(t.recorder.pid) : undefined;
      return [{ text: unseenRecord(what, t, view, byPid), on: recorder && !recorder.ended ? recorder.name : undefined }];
    }
    const recOwner = byPid.get(rec.pid);
    const recName = recOwner?.name ?? rec.role ?? `pid ${rec.pid}`;
    const recorded = `${what}, recorded by ${recName} stream ${rec.stream}`;
    if (rec.cancelled) return [{ text: `${recorded}: that record was cancelled when its process finalized or exited, it will never execute` }];
    if (rec.ended) return [{ text: `${recorded} (that record has executed: the wait should end)` }];
    if (!recOwner || recOwner.ended) {
      return [{ text: `${recorded}: that record will never execute, its process ${recOwner ? `has ended (${recOwner.ended})` : `(pid ${rec.pid}) is gone`}` }];
    }
    const behind = view.blockerOf(rec);
    if (!behind) return [{ text: `${recorded} (at its stream's head, not yet executed)`, on: recOwner.name }];
    return [{ text: recorded, on: recOwner.name }, ...followTask(behind, view, byPid, ctx, depth + 1, roles)];
  }
  if (t.submit.kind === 'host_func') {
    if (owner?.ended) return [{ text: `queued behind a host function of ${ownerName}, whose process has ended (${owner.ended})` }];
    if ((owner?.openLatches ?? 0) > 0) return [{ text: `queued behind a latch (host function on ${where}) held by ${ownerName}`, next: owner?.name }];
    // A thread of the owner in a C API wait (a native role's host function awaiting a signal, say): follow that wait.
    const waiting = owner?.threadCalls?.find((c) => cApiWait(c.call));
    if (owner && waiting) {
      const step = waitStep(`queued behind a host function running on ${ownerName} ${where}, while ${ownerName} thread ${waiting.thread}`, owner.name, cApiWait(waiting.call)!, roles);
      return [step.next ? step : { ...step, on: owner.name }];
    }
    return [{ text: `queued behind a host function running on ${ownerName} ${where} (user code, not a latch: it runs until it returns, and the harness does not see what it waits for)`, on: owner?.name }];
  }
  if (t.submit.kind === 'notify_wait') return [{ text: `queued behind a notify wait on ${ownerName} ${where} (its recorder is not traced)` }];
  if (t.submit.kind === 'value_wait') {
    return [{ text: `queued behind a value wait (aclrtValueWait) on ${ownerName} ${where}: it waits for a write to device memory, which is not traced` }];
  }
  const state = t.started ? 'running' : 'queued';
  return [{ text: `queued behind ${t.submit.kind} (${state}) on ${ownerName} ${where}` }];
}
