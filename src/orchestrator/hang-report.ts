/**
 * At the deadline, before any signal is sent: ask every running role where it is stuck, then join
 * the answers, the harness waits and the stub traces into the wait-for graph (wait-graph.ts).
 * Runs only when a run times out, so a passing run pays nothing but the idle polls for a request
 * (each role's watchdog thread every 50 ms, its main thread every 100 ms: see harness/hang-watch.ts).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { LAYOUT } from '../rendezvous/layout';
import { HANG_DIR, readAnswer, writeHangRequest, type RoleAnswer } from '../wire/hang-files';
import type { RoleProcess } from './role-process';
import { readTraces } from './scenario-dir';
import { buildWaitGraph, type RoleState, type WaitGraph } from './wait-graph';

/** How long to wait for the roles' watcher threads (they poll every 50 ms; allow for a loaded machine). */
export const ANSWER_BOUND_MS = 2000;
/** After the watchers answered, how long main threads get to answer (a free event loop polls every 100 ms). */
const LOOP_ANSWER_MS = 1000;
/** The longest the hang report takes, from the deadline to the first signal sent to a role. */
export const HANG_REPORT_MAX_MS = ANSWER_BOUND_MS + LOOP_ANSWER_MS;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function collectWaitGraph(roles: RoleProcess[], dir: string): Promise<WaitGraph> {
  const running = roles.filter((r) => r.alive && r.pid !== null);
  const answers = new Map<string, RoleAnswer>();
  let id: string | null = null;
  try {
    id = writeHangRequest(dir);
  } catch {
    /* directory gone: the graph uses what the parent knows */
  }
  const started = Date.now();
  let allAnsweredAt: number | null = null;
  while (id !== null && Date.now() - started < ANSWER_BOUND_MS) {
    for (const r of running) {
      if (answers.has(r.name)) continue;
      const a = readAnswer(dir, r.name, r.pid!, id);
      if (a) answers.set(r.name, a);
    }
    const loopsDone = running.every((r) => r.diagnosticReport !== undefined || !r.alive);
    if (answers.size === running.length) {
      allAnsweredAt ??= Date.now();
      if (loopsDone || Date.now() - allAnsweredAt >= LOOP_ANSWER_MS) break;
    }
    await sleep(25);
  }
  const nowNs = process.hrtime.bigint();
  const states: RoleState[] = roles.map((r) => {
    const a = answers.get(r.name);
    const s: RoleState = { name: r.name, pid: r.pid, waitingFor: r.currentWait };
    if (r.native) s.native = true;
    if (!r.alive) s.ended = r.finalStatus ? `${r.finalStatus}` : 'exited';
    if (a) Object.assign(s, { call: a.call, openLatches: a.openLatches, main: a.main, live: a.live, threadCalls: a.threadCalls });
    // Its main thread answered (a native role's null only means: no event loop to wait for).
    if (r.diagnosticReport !== undefined && !r.native) s.loopFree = true;
    return s;
  });
  const roleByPid = new Map(roles.filter((r) => r.pid !== null).map((r) => [r.pid!, r.name]));
  const graph = buildWaitGraph(states, readTraces(dir, roleByPid), { nowNs, ipcNames: sharedEventNames(dir) });
  try {
    writeFileSync(path.join(dir, HANG_DIR, 'wait-graph.txt'), graph.lines.join('\n') + '\n');
  } catch {
    /* best effort: the graph is in the report anyway */
  }
  return graph;
}

/** IPC event id (as the stub traces it: handle bytes 0..7 in hex) -> the name it was published under. */
export function sharedEventNames(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const handles = path.join(dir, LAYOUT.handles);
  let names: string[] = [];
  try {
    names = readdirSync(handles);
  } catch {
    return out;
  }
  for (const name of names) {
    try {
      const bytes = readFileSync(path.join(handles, name));
      if (bytes.length !== 64) continue;
      out.set(bytes.subarray(0, 8).toString('hex'), name);
      out.set(Buffer.from(bytes.subarray(0, 8)).reverse().toString('hex'), name);
    } catch {
      /* not ours to judge */
    }
  }
  return out;
}
