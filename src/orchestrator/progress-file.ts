/**
 * Live progress of a run, for `cann-harness run` (issue #11, item 4): when CANN_HARNESS_PROGRESS_DIR
 * is set (by the CLI), each runRoles() keeps one small JSON file there with the scenario's label,
 * its start time and each role's state, rewritten on each run event and removed when the run ends.
 * The CLI's main process reads them (src/report/progress.ts); Jest's workers cannot print there.
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
}

let runs = 0;

/** Null when no one is watching (no CANN_HARNESS_PROGRESS_DIR): then a run writes nothing. */
export function progressFile(label: string, roleNames: string[], env: NodeJS.ProcessEnv = process.env): { onEvent(e: RunEvent): void; close(): void } | null {
  const dir = env[PROGRESS_DIR_ENV];
  if (!dir) return null;
  const file = path.join(dir, `${process.pid}-${++runs}.json`);
  const state: RunProgress = { label, startedAt: Date.now(), roles: Object.fromEntries(roleNames.map((n) => [n, 'starting'])) };
  const write = () => {
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
      else return;
      write();
    },
    close() {
      rmSync(file, { force: true });
      rmSync(`${file}.tmp`, { force: true });
    },
  };
}
