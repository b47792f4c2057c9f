/**
 * `cann-harness run`'s live progress (issue #11, item 4): which scenarios are running, for how long,
 * and each running role's state, read from the files runRoles() keeps in a private folder
 * (src/orchestrator/progress-file.ts). Only scenarios running longer than `quietMs` are shown, so a
 * healthy suite prints nothing extra and Jest's reporter output stays as it is; a hang is no longer
 * minutes of silence. Lines go to stderr: every `intervalMs` on a TTY (2 s), every 10 s otherwise (CI).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { PROGRESS_DIR_ENV, type RunProgress } from '../orchestrator/progress-file';
import { SCENARIO_DIR_PREFIX, scenarioBaseDir } from '../orchestrator/scenario-dir';

export interface ProgressOptions {
  out?: NodeJS.WriteStream;
  intervalMs?: number;
  quietMs?: number;
  now?: () => number;
}

export function formatProgress(runs: RunProgress[], now: number, quietMs: number): string[] {
  const lines: string[] = [];
  for (const r of runs.filter((x) => now - x.startedAt >= quietMs).sort((a, b) => a.startedAt - b.startedAt)) {
    const roles = Object.entries(r.roles).map(([name, state]) => `${name}: ${state}`).join('; ');
    lines.push(`[running ${((now - r.startedAt) / 1000).toFixed(0)} s] ${r.label} | ${roles}`);
  }
  return lines;
}

export function readProgress(dir: string): RunProgress[] {
  const out: RunProgress[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    if (!n.endsWith('.json')) continue;
    try {
      out.push(JSON.parse(readFileSync(path.join(dir, n), 'utf8')) as RunProgress);
    } catch {
      /* removed between readdir and read: that run just ended */
    }
  }
  return out;
}

/** Sets CANN_HARNESS_PROGRESS_DIR for Jest's workers and prints progress until stop() is called. */
export function startProgress(opts: ProgressOptions = {}): { stop(): void } {
  const out = opts.out ?? process.stderr;
  // Named like a scenario directory of this process, so the session guard removes it on an interrupt.
  const dir = mkdtempSync(path.join(scenarioBaseDir(), `${SCENARIO_DIR_PREFIX}${process.pid}-progress-`));
  process.env[PROGRESS_DIR_ENV] = dir;
  const now = opts.now ?? Date.now;
  const quietMs = opts.quietMs ?? 5_000;
  const timer = setInterval(() => {
    for (const line of formatProgress(readProgress(dir), now(), quietMs)) out.write(`${line}\n`);
  }, opts.intervalMs ?? (out.isTTY ? 2_000 : 10_000));
  timer.unref();
  const remove = () => rmSync(dir, { recursive: true, force: true });
  // Jest may end the process itself (process.exit) before stop() runs, e.g. when no test matched.
  process.once('exit', remove);
  return {
    stop() {
      clearInterval(timer);
      delete process.env[PROGRESS_DIR_ENV];
      process.removeListener('exit', remove);
      remove();
    },
  };
}
