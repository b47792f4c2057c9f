/**
 * The data of the HTML report's pages, built in Node from the Jest results and the workers'
 * scenario records (record.ts). The timeline comes from the stub traces through the existing
 * readers (toChromeTrace: bars with their queue time, marks, and the record → wait release arrows);
 * the wait-for graph from the orchestrator's WaitGraph. The pages only draw what is here.
 */
import { runCut } from '../../orchestrator/run-cut';
import { toChromeTrace } from '../../trace/chrome-trace';
import { parseTraceLines } from '../../trace/stub-trace';
import type { RoleStatus } from '../../orchestrator';
import type { ScenarioRecord } from './record';

export type CaseStatus = 'failed' | 'flaky' | 'passed' | 'skipped';

/** One Jest test as the reporter saw it. */
export interface CaseResult {
  specFile: string;
  /** Spec file relative to the project root. */
  file: string;
  title: string;
  status: CaseStatus;
  durationMs: number;
  /** Runs of this test (more than 1 after retries). */
  attempts: number;
  /** Why it was skipped (its `[skip: ...]`), when it was. */
  skipReason?: string;
  failureMessages: string[];
}

export interface RunInfo {
  mode: string;
  library: string;
  devices: number | null;
  durationMs: number;
  startedAt: number;
  rerun: string;
  /** Spec files that could not be loaded, with Jest's message. */
  loadErrors: { file: string; message: string }[];
}

export interface IndexRow {
  id: number;
  file: string;
  title: string;
  status: CaseStatus;
  durationMs: number;
  attempts: number;
  /** "2/5" for the second of five repetitions, else null. */
  repetition: string | null;
  reason: string | null;
  /** The scenario page, relative to index.html; null for skipped tests. */
  page: string | null;
  /** It passed with every wait a no-op (this many): a pass that proves nothing. */
  noopWaits: number | null;
  /** A soak-rounds run: e.g. "200 rounds", "round 137 of 200 failed". */
  rounds: string | null;
}

export interface IndexModel {
  totals: { passed: number; failed: number; skipped: number; flaky: number; loadErrors: number };
  run: RunInfo;
  seeds: string[];
  rows: IndexRow[];
}

export interface TimelineLane {
  pid: number;
  label: string;
  /** tid 0: the role's host thread (marks, synchronize calls); other rows: streams. */
  rows: { tid: number; label: string }[];
}

/** Times in µs since the timeline's origin (its earliest trace line or mark). */
export interface TimelineModel {
  lanes: TimelineLane[];
  /** [lane, row, start, duration, queued (µs before start), name, kind, unfinished: 0, 1 never ended, 2 ended only by the harness's stop] */
  bars: [number, number, number, number, number, string, string, number][];
  /** [lane, row, t, name, kind] */
  ticks: [number, number, number, string, string][];
  /** [fromLane, fromRow, fromT, toLane, toRow, toT]: a record to a wait it released. */
  arrows: [number, number, number, number, number, number][];
  failureT: number | null;
  deadlineT: number | null;
  endT: number;
  /** Where unfinished tasks are drawn up to: 'the deadline', 'the first failure' or 'the end of the run'. */
  unfinishedUntil: string;
}

export interface WaitGraphModel {
  nodes: { name: string; call: string | null; inCycle: boolean }[];
  edges: { from: string; to: string; inCycle: boolean }[];
  lines: string[];
  deadlock: boolean;
}

export interface RoleModel {
  name: string;
  device: number;
  pid: number | null;
  status: RoleStatus;
  how: string;
  durationMs: number;
  first: boolean;
  consequenceOf: string | null;
  error: string | null;
  acl: { call: string; args: string; name: string; code: number; recentErrMsg: string | null } | null;
  errorWhileStopping: string | null;
  waitingFor: string | null;
  cancelled: string[];
  stdout: string;
  stderr: string;
  outputLoss: string[];
}

export interface ScenarioModel {
  row: IndexRow;
  specFile: string;
  scenario: string;
  mode: string | null;
  jitter: string | null;
  explore: string | null;
  replay: string | null;
  timedOut: boolean;
  verifyError: string | null;
  failureMessages: string[];
  firstFailure: { role: string; status: string } | null;
  roles: RoleModel[];
  happensBefore: { ok: boolean; skipped: string | null; stats: Record<string, number>; violations: string[] } | null;
  timeline: TimelineModel | null;
  waitGraph: WaitGraphModel | null;
  /** Why there is no timeline (real mode, or a passing run without --trace). */
  noTimeline: string | null;
  /** A soak-rounds run: its rounds, their rate and which round the timeline shows. */
  rounds: { total: number; done: number; failedRound: number | null; perSecond: number | null; shown: number } | null;
}

const fmtInt = (n: number) => n.toLocaleString('en-US');

const ORDER: Record<CaseStatus, number> = { failed: 0, flaky: 1, passed: 2, skipped: 3 };

export const pageOf = (id: number): string => `scenarios/${id}.html`;

/** The index rows and the scenario pages, failed first, flaky next, then passed, then skipped. */
export function buildModels(cases: CaseResult[], records: ScenarioRecord[], run: RunInfo): { index: IndexModel; scenarios: ScenarioModel[] } {
  const byKey = new Map<string, ScenarioRecord[]>();
  for (const r of records) {
    const k = `${r.specFile}\0${r.title}`;
    byKey.set(k, [...(byKey.get(k) ?? []), r]);
  }
  const sorted = cases.map((c, i) => ({ c, i })).sort((a, b) => ORDER[a.c.status] - ORDER[b.c.status] || a.i - b.i);
  const rows: IndexRow[] = [];
  const scenarios: ScenarioModel[] = [];
  sorted.forEach(({ c }, id) => {
    const attempts = (byKey.get(`${c.specFile}\0${c.title}`) ?? []).sort((a, b) => a.writtenAt - b.writtenAt);
    const record = attempts[attempts.length - 1];
    const row: IndexRow = {
      id,
      file: c.file,
      title: c.skipReason ? c.title.replace(/\s*\[skip: [^\]]*\]$/, '') : c.title, // the reason has its own place
      status: c.status,
      durationMs: c.durationMs,
      attempts: c.attempts,
      repetition: /\[repeat (\d+\/\d+)/.exec(c.title)?.[1] ?? null,
      reason: c.skipReason ?? null,
      page: c.status === 'skipped' ? null : pageOf(id),
      noopWaits: record?.noopWaits ?? null,
      rounds: record?.rounds ? (record.rounds.failedRound !== null ? `round ${fmtInt(record.rounds.failedRound)} of ${fmtInt(record.rounds.total)} failed` : `${fmtInt(record.rounds.done)} rounds`) : null,
    };
    rows.push(row);
    if (row.page) scenarios.push(scenarioModel(row, c, record));
  });
  const count = (s: CaseStatus) => cases.filter((c) => c.status === s).length;
  const seeds = [...new Set(records.flatMap((r) => (r.jitter ? [r.jitter] : [])))];
  return {
    index: { totals: { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), flaky: count('flaky'), loadErrors: run.loadErrors.length }, run, seeds, rows },
    scenarios,
  };
}

function scenarioModel(row: IndexRow, c: CaseResult, record: ScenarioRecord | undefined): ScenarioModel {
  const run = record?.run;
  const traces = run?.traces;
  const built = run && traces?.length ? timelineModel(run, traces) : null;
  // Processes that traced nothing (e.g. failed before any stream work) draw no picture.
  const timeline = built && built.bars.length + built.ticks.length > 0 ? built : null;
  return {
    row,
    specFile: c.specFile,
    scenario: record?.scenario ?? c.title,
    mode: record?.mode ?? null,
    jitter: record?.jitter ?? null,
    explore: record?.explore ?? null,
    replay: record?.replay ?? null,
    timedOut: run?.timedOut ?? false,
    verifyError: record?.verifyError ?? null,
    failureMessages: c.failureMessages,
    firstFailure: run?.firstFailure ? { role: run.firstFailure.role, status: run.firstFailure.status } : null,
    roles: (run?.roles ?? []).map((r) => ({
      name: r.name,
      device: r.device,
      pid: r.pid,
      status: r.status,
      how: r.signal ? `signal ${r.signal}` : r.exitCode !== null ? `exit ${r.exitCode}` : 'not started',
      durationMs: r.durationMs,
      first: run?.firstFailure?.role === r.name,
      consequenceOf: r.consequenceOf ?? null,
      error: r.error?.message ?? null,
      acl: r.error?.acl ? { call: r.error.acl.call, args: r.error.acl.args, name: r.error.acl.name, code: r.error.acl.code, recentErrMsg: r.error.acl.recentErrMsg } : null,
      errorWhileStopping: r.errorWhileStopping?.message ?? null,
      waitingFor: r.waitingFor ? `${r.waitingFor.what}${r.waitingFor.from ? ` from role "${r.waitingFor.from}"` : ''}` : null,
      cancelled: (r.cancelledTasks ?? []).map((t) => `${t.kind} on device ${t.device}, stream ${t.stream}${t.ipc ? `, IPC event ${t.ipc}` : ''}`),
      stdout: r.stdout,
      stderr: r.stderr,
      outputLoss: (r.outputLoss ?? []).map((l) => `${l.stream} incomplete: ${l.notKeptChars} characters not kept in memory, at most ${l.unflushedBytes} bytes never flushed`),
    })),
    happensBefore: run?.happensBefore
      ? {
          ok: run.happensBefore.ok,
          skipped: run.happensBefore.skipped ?? null,
          stats: { ...run.happensBefore.stats },
          violations: run.happensBefore.violations.map((v) => `[${v.rule}] ${v.message}`),
        }
      : null,
    timeline,
    waitGraph: run?.waitGraph ? waitGraphModel(run.waitGraph) : null,
    rounds: record?.rounds
      ? {
          ...record.rounds,
          // Whole run, start-up included: a floor of the rate.
          perSecond: run && run.durationMs > 0 ? Math.round(record.rounds.done / (run.durationMs / 1000)) : null,
          shown: record.rounds.failedRound ?? record.rounds.total,
        }
      : null,
    noTimeline: !run ? 'no record of this run (it failed before any role started)' : traces?.length ? 'no stream work or marks were traced' : traces && record?.mode !== 'real' ? 'nothing was traced: no role made stub ACL calls (native roles\' C API calls are not traced)' : record?.mode === 'real' ? 'real mode: the CANN runtime writes no trace' : 'no trace kept for a passing run (run with --trace to keep them)',
  };
}

function timelineModel(run: NonNullable<ScenarioRecord['run']>, traces: NonNullable<ScenarioRecord['run']['traces']>): TimelineModel {
  const marks = run.roles.map((r) => ({ role: r.name, pid: r.pid, marks: r.marks }));
  // Unfinished tasks, and those that ended only because the harness stopped their role, run to the
  // deadline, else to the first failure, else to the run's end: never to a role's last trace line
  // (a host function that never returned was a 0 µs sliver), nor to its stop after the deadline.
  const cut = runCut(run);
  const failureNs = run.firstFailure ? (run.roles.find((r) => r.name === run.firstFailure!.role)?.failedAtNs ?? run.firstFailure.atNs) : undefined;
  const unfinishedUntil = cut?.label ?? 'the end of the run';
  const deadlineNs = run.deadlineNs !== undefined ? Number(BigInt(run.deadlineNs)) : undefined;
  const chrome = toChromeTrace(traces, marks, { endNs: cut?.endNs, endLabel: unfinishedUntil, stoppedAt: cut?.stoppedAt, deadlineNs, ipcNames: run.ipcNames }).traceEvents;
  // toChromeTrace's origin: the earliest trace line or mark (its µs count from there).
  const allNs = [...traces.flatMap((t) => parseTraceLines(t.jsonl).map((l) => l.t)), ...marks.flatMap((m) => m.marks.map((k) => Number(BigInt(k.tNs))))];
  const origin = allNs.length ? Math.min(...allNs) : 0;
  const us = (ns: string | undefined) => (ns === undefined ? null : (Number(BigInt(ns)) - origin) / 1000);

  // Lanes in the roles' order, then any other process (a role's children).
  const order = new Map(run.roles.map((r, i) => [r.pid, i]));
  const laneIdx = new Map<number, number>();
  const lanes: TimelineLane[] = [];
  const procNames = new Map<number, string>();
  const rowNames = new Map<string, string>();
  for (const e of chrome) {
    if (e.ph !== 'M') continue;
    const name = String(e.args?.name ?? '');
    if (e.name === 'process_name') procNames.set(e.pid, name);
    else rowNames.set(`${e.pid}/${e.tid}`, e.tid === 0 ? 'host: marks, synchronize' : name);
  }
  const pids = [...procNames.keys()].sort((a, b) => (order.get(a) ?? 1e9) - (order.get(b) ?? 1e9) || a - b);
  for (const pid of pids) {
    const role = run.roles.find((r) => r.pid === pid);
    laneIdx.set(pid, lanes.length);
    lanes.push({ pid, label: role ? `${role.name}@dev${role.device} (pid ${pid})` : (procNames.get(pid) ?? `pid ${pid}`), rows: [] });
  }
  const rowIdx = (pid: number, tid: number): [number, number] => {
    let li = laneIdx.get(pid);
    if (li === undefined) {
      li = lanes.length;
      laneIdx.set(pid, li);
      lanes.push({ pid, label: `pid ${pid}`, rows: [] });
    }
    const lane = lanes[li];
    let ri = lane.rows.findIndex((r) => r.tid === tid);
    if (ri < 0) {
      lane.rows.push({ tid, label: rowNames.get(`${pid}/${tid}`) ?? (tid === 0 ? 'host: marks, synchronize' : `stream ${tid}`) });
      lane.rows.sort((a, b) => a.tid - b.tid);
      ri = lane.rows.findIndex((r) => r.tid === tid);
    }
    return [li, tid];
  };
  const bars: TimelineModel['bars'] = [];
  const ticks: TimelineModel['ticks'] = [];
  const flowStart = new Map<number, [number, number, number]>();
  const arrows: TimelineModel['arrows'] = [];
  let endT = 0;
  for (const e of chrome) {
    if (e.ph === 'M') continue;
    // Synchronize calls sit on the host row: they block the calling thread, not the stream.
    const tid = e.cat === 'sync' ? 0 : e.tid;
    const [li, t] = rowIdx(e.pid, tid);
    const ts = e.ts ?? 0;
    endT = Math.max(endT, ts + (e.dur ?? 0));
    if (e.ph === 'X') bars.push([li, t, ts, e.dur ?? 0, Number(e.args?.queuedUs ?? 0), e.name, e.cat ?? '', e.args?.unfinished === 'stopped' ? 2 : e.args?.unfinished ? 1 : 0]);
    else if (e.ph === 'i') ticks.push([li, t, ts, e.name, e.cat ?? '']);
    else if (e.ph === 's' && e.id !== undefined) flowStart.set(e.id, [li, t, ts]);
    else if (e.ph === 'f' && e.id !== undefined) {
      const from = flowStart.get(e.id);
      if (from) arrows.push([...from, li, t, ts]);
    }
  }
  const deadlineT = us(run.deadlineNs);
  // A role that timed out failed at the deadline (it was stopped later, once the hang was reported).
  const failureT = run.firstFailure?.status === 'timeout' && deadlineT !== null ? deadlineT : us(failureNs);
  endT = Math.max(endT, failureT ?? 0, deadlineT ?? 0);
  // Row indices as positions inside their lane (the page draws rows in this order).
  const pos = (li: number, tid: number) => lanes[li].rows.findIndex((r) => r.tid === tid);
  return {
    lanes,
    bars: bars.map((b) => [b[0], pos(b[0], b[1]), ...b.slice(2)] as TimelineModel['bars'][number]),
    ticks: ticks.map((k) => [k[0], pos(k[0], k[1]), ...k.slice(2)] as TimelineModel['ticks'][number]),
    arrows: arrows.map((a) => [a[0], pos(a[0], a[1]), a[2], a[3], pos(a[3], a[4]), a[5]]),
    failureT,
    deadlineT,
    endT,
    unfinishedUntil,
  };
}

function waitGraphModel(g: NonNullable<ScenarioRecord['run']['waitGraph']>): WaitGraphModel {
  const nodes = new Map<string, { name: string; call: string | null; inCycle: boolean }>();
  const edges = new Map<string, { from: string; to: string; inCycle: boolean }>();
  const node = (name: string, inCycle: boolean) => {
    const n = nodes.get(name) ?? { name, call: g.calls[name] ? `${g.calls[name].name}(${g.calls[name].args})` : null, inCycle: false };
    n.inCycle ||= inCycle;
    nodes.set(name, n);
  };
  const edge = (from: string, to: string, inCycle: boolean) => {
    const e = edges.get(`${from}\0${to}`) ?? { from, to, inCycle: false };
    e.inCycle ||= inCycle;
    edges.set(`${from}\0${to}`, e);
  };
  for (const c of g.chains) {
    c.roles.forEach((r) => node(r, c.deadlock));
    const inCycle = (from: string, to: string) => c.deadlock && c.roles.includes(from) && c.roles.includes(to);
    // Each step's "waits for": the roles followed and those it waits on without following (a record's owner).
    for (const e of c.edges ?? []) {
      node(e.to, false);
      edge(e.from, e.to, inCycle(e.from, e.to));
    }
    // Records of older versions have no edges: the path itself.
    for (let i = 0; i + 1 < c.roles.length; i++) edge(c.roles[i], c.roles[i + 1], c.deadlock);
    if (c.deadlock && c.roles.length > 0) edge(c.roles[c.roles.length - 1], c.roles[0], true);
    // A chain into another chain's cycle: "(into the deadlock of X)".
    const into = /\(into the deadlock of (.+)\)$/.exec(c.text)?.[1];
    if (into && c.roles.length) {
      node(into, true);
      edge(c.roles[c.roles.length - 1], into, false);
    }
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()], lines: g.lines, deadlock: g.deadlock };
}
