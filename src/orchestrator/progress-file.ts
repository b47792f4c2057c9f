/**
 * Live progress of a run, for `cann-harness run` (issue #11, item 4): when CANN_HARNESS_PROGRESS_DIR
 * is set (by the CLI), each runRoles() keeps one small JSON file there with the scenario's label,
 * its start time and each role's state, rewritten on each run event and removed when the run ends.
 * The CLI's main process reads them (src/report/progress.ts); Jest's workers cannot print there.
 * A role's start, exit and deadline are written at once; its waits and the rounds' rate at most
 * every WAIT_WRITE_MS (a soak round starts and ends several waits: rewriting the file for each
 * cost the CLI a third of a device process's CPU, issue #35).
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunEvent } from './types';
import { ENV } from '../env';

export const PROGRESS_DIR_ENV = ENV.progressDir;

export interface RunProgress {
  label: string;
  /** Date.now() when the run started. */
  startedAt: number;
  /** Role name -> 'starting', 'running', 'waiting for signal "x" from y', 'passed', ... */
  roles: Record<string, string>;
  /** Soak rounds: e.g. "round 1,234 of 10,000, 1,050 rounds/s". */
  rounds?: string;
}

let runs = 0;

/** Waits and round counts are written at most this often; the reader looks every second or less often. */
export const WAIT_WRITE_MS = 100;

/** Null when no one is watching (no CANN_HARNESS_PROGRESS_DIR): then a run writes nothing. */
export function progressFile(label: string, roleNames: string[], env: NodeJS.ProcessEnv = process.env): { onEvent(e: RunEvent): void; close(): void } | null {
  const dir = env[PROGRESS_DIR_ENV];
  if (!dir) return null;
  const file = path.join(dir, `${process.pid}-${++runs}.json`);
  const state: RunProgress = { label, startedAt: Date.now(), roles: Object.fromEntries(roleNames.map((n) => [n, 'starting'])) };
  const roundsRate = roundsProgress();
  let closed = false;
  let lastWrite = 0;
  let later: NodeJS.Timeout | undefined;
  const write = () => {
    if (later) clearTimeout(later);
    later = undefined;
    if (closed) return;
    lastWrite = Date.now();
    try {
      writeFileSync(`${file}.tmp`, JSON.stringify(state));
      renameSync(`${file}.tmp`, file);
    } catch {
      /* the CLI went away or removed the folder: progress is best effort */
    }
  };
  write();
  return {
    onEvent(e) {
      if (e.type === 'started') state.roles[e.role] = 'running';
      else if (e.type === 'waiting') state.roles[e.role] = e.waitingFor ? `waiting for ${e.waitingFor.what}${e.waitingFor.from ? ` from ${e.waitingFor.from}` : ''}` : 'running';
      else if (e.type === 'exited') state.roles[e.role] = e.status;
      else if (e.type === 'timeout') for (const r of e.roles) state.roles[r] = `${state.roles[r]} (deadline passed)`;
      else if (e.type === 'rounds') state.rounds = roundsRate.line(e.done, e.total);
      else return;
      if (e.type !== 'waiting' && e.type !== 'rounds') write();
      else if (!later) later = setTimeout(write, Math.max(0, lastWrite + WAIT_WRITE_MS - Date.now())).unref();
    },
    close() {
      closed = true;
      if (later) clearTimeout(later);
      rmSync(file, { force: true });
      rmSync(`${file}.tmp`, { force: true });
    },
  };
}

/** "round 1,234 of 10,000, 1,050 rounds/s": the rate since the previous report. */
export function roundsProgress(now: () => number = Date.now): { line(done: number, total: number): string } {
  let last: { done: number; at: number } | undefined;
  return {
    line(done, total) {
      const at = now();
      const rate = last && at > last.at ? ((done - last.done) * 1000) / (at - last.at) : undefined;
      last = { done, at };
      const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
      return `round ${fmt(done)} of ${fmt(total)}${rate !== undefined ? `, ${fmt(rate)} rounds/s` : ''}`;
    },
  };
}
