/**
 * `cann-harness run`'s live progress (issue #11, item 4): which scenarios are running, for how long,
 * and each running role's state, read from the files runRoles() keeps in a private folder
 * (src/orchestrator/progress-file.ts). Only scenarios running longer than `quietMs` are shown, so a
 * healthy suite prints nothing extra and Jest's reporter output stays as it is; a hang is no longer
 * minutes of silence. On a TTY, a small block at the bottom of stderr is redrawn in place every
 * second (live-block.ts: erased before anything else is written to stdout or stderr, drawn again
 * after); otherwise (CI logs) lines are appended every 10 s.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { PROGRESS_DIR_ENV, type RunProgress } from '../orchestrator/progress-file';
import { SCENARIO_DIR_PREFIX, scenarioBaseDir } from '../orchestrator/scenario-dir';
import { LiveBlock, type TtyLike } from './live-block';

export interface ProgressOptions {
  out?: TtyLike;
  /** TTY only: the streams whose writes erase the block first (default: process.stdout and out). */
  hooked?: TtyLike[];
  intervalMs?: number;
  quietMs?: number;
  now?: () => number;
}

/** Rows of the in-place block at most: it must stay small next to Jest's output. */
export const BLOCK_MAX_LINES = 12;

/** The TTY block: one line per running scenario, then one indented line per role. */
export function formatBlock(runs: RunProgress[], now: number, quietMs: number, maxLines = BLOCK_MAX_LINES): string[] {
  const shown = runs.filter((x) => now - x.startedAt >= quietMs).sort((a, b) => a.startedAt - b.startedAt);
  const lines: string[] = [];
  for (const r of shown) {
    lines.push(`[running ${((now - r.startedAt) / 1000).toFixed(0)} s] ${r.label}${r.rounds ? ` (${r.rounds})` : ''}`);
    for (const [name, state] of Object.entries(r.roles)) lines.push(`    ${name}: ${state}`);
  }
  if (lines.length <= maxLines) return lines;
  const hidden = lines.length - (maxLines - 1);
  return [...lines.slice(0, maxLines - 1), `    … ${hidden} more line(s) (${shown.length} scenario(s) running)`];
}

export function formatProgress(runs: RunProgress[], now: number, quietMs: number): string[] {
  const lines: string[] = [];
  for (const r of runs.filter((x) => now - x.startedAt >= quietMs).sort((a, b) => a.startedAt - b.startedAt)) {
    const roles = Object.entries(r.roles).map(([name, state]) => `${name}: ${state}`).join('; ');
    lines.push(`[running ${((now - r.startedAt) / 1000).toFixed(0)} s] ${r.label}${r.rounds ? ` (${r.rounds})` : ''} | ${roles}`);
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
  const out: TtyLike = opts.out ?? process.stderr;
  // Named like a scenario directory of this process, so the session guard removes it on an interrupt.
  const dir = mkdtempSync(path.join(scenarioBaseDir(), `${SCENARIO_DIR_PREFIX}${process.pid}-progress-`));
  process.env[PROGRESS_DIR_ENV] = dir;
  const now = opts.now ?? Date.now;
  const tty = out.isTTY === true;
  const quietMs = opts.quietMs ?? (tty ? 2_000 : 5_000);
  const block = tty ? new LiveBlock(out, opts.hooked ?? [process.stdout, out]) : null;
  const timer = setInterval(() => {
    if (block) block.render(formatBlock(readProgress(dir), now(), quietMs));
    else for (const line of formatProgress(readProgress(dir), now(), quietMs)) out.write(`${line}\n`);
  }, opts.intervalMs ?? (tty ? 1_000 : 10_000));
  timer.unref();
  const remove = () => {
    block?.close();
    rmSync(dir, { recursive: true, force: true });
  };
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
