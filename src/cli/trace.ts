/**
 * `cann-harness trace <dir>`: builds `<dir>/trace.json` from any scenario directory that has stub
 * traces (kept after a failure, with --keep or --trace). Role names, marks and the deadline come
 * from `result.json` when the harness wrote one; without it, processes are named by pid.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { LAYOUT } from '../rendezvous/layout';
import { writeTimeline } from '../orchestrator/scenario-dir';
import type { RoleResult } from '../orchestrator';
import { runCut, type CutInputs } from '../orchestrator/run-cut';
import { UsageError } from './run';

type SavedResult = CutInputs & { roles: (Pick<RoleResult, 'name' | 'pid' | 'marks'>)[] };

export function traceCommand(dirArg: string): string {
  const dir = path.resolve(dirArg);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`${dirArg}: no such directory (give a scenario directory, e.g. the one printed as "scenario directory kept at ...")`);
  if (!existsSync(path.join(dir, LAYOUT.trace))) {
    throw new UsageError(`${dirArg} has no ${LAYOUT.trace}/ folder of stub traces: is it a scenario directory of a stub-mode run? (real CANN writes no traces)`);
  }
  let saved: SavedResult | null = null;
  try {
    saved = JSON.parse(readFileSync(path.join(dir, 'result.json'), 'utf8')) as SavedResult;
  } catch {
    /* a directory kept by hand (CANN_HARNESS_KEEP=1 and an interrupted run): pids only */
  }
  const roles = saved?.roles ?? [];
  // Unfinished tasks end at the deadline or the first failure, as in the trace.json the run wrote.
  const file = writeTimeline(dir, roles, saved ? runCut(saved) : undefined);
  if (!file) throw new UsageError(`${dirArg}/${LAYOUT.trace} holds no trace-<pid>.jsonl files: nothing to draw`);
  return `${file} (open it in https://ui.perfetto.dev or chrome://tracing)`;
}
