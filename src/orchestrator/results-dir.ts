/**
 * The results folder: where kept scenario directories go, under the project, as Playwright keeps
 * `test-results/`. A scenario runs in a directory of its own in the temp dir (scenario-dir.ts);
 * when it is kept (a failure, or --keep / --trace), that directory is moved here, so nothing of a
 * run stays in the temp dir, which is shared with strangers and never cleaned.
 *
 * The folder is ours only when it carries our marker file; a run's start (Jest's global setup,
 * `cann-harness run`) removes from it what finished runs left: directories named as scenario
 * directories (`cann-harness-<pid>-...`) whose process is no longer running, never a link, never
 * anything else. A run still going on beside it (another Jest) keeps its directories.
 */
import { cpSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ENV } from '../env';
import { SCENARIO_DIR_PREFIX } from './scenario-dir';

/** The default folder, relative to the directory the run starts in. */
export const DEFAULT_RESULTS_DIR = path.join('test-results', 'cann-harness');

/** The file that marks a folder as the harness's results folder (the only kind it ever empties). */
export const RESULTS_MARKER = '.cann-harness-results';

const MARKER_TEXT = 'Kept scenario directories of cann-ipc-harness; each run removes those of finished runs.\n';

export class ResultsDirError extends Error {
  override name = 'ResultsDirError';
}

/** Where kept scenario directories go: CANN_HARNESS_RESULTS_DIR (from the working directory), else test-results/cann-harness. */
export function resultsDir(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  return path.resolve(cwd, env[ENV.resultsDir] || DEFAULT_RESULTS_DIR);
}

function refuse(dir: string, why: string): never {
  throw new ResultsDirError(
    `the results folder ${dir} ${why}: ` +
      'set CANN_HARNESS_RESULTS_DIR (config resultsDir, run --results-dir) to a folder of your own, or remove it',
  );
}

/**
 * Makes the results folder (and its parents) if it is missing, with its marker; returns its path.
 * Refuses a link, a file, another user's folder, or a folder without the marker that holds anything.
 */
export function ensureResultsDir(dir: string = resultsDir()): string {
  mkdirSync(path.dirname(dir), { recursive: true });
  try {
    mkdirSync(dir, { mode: 0o755 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const st = lstatSync(dir);
  if (st.isSymbolicLink()) refuse(dir, 'is a symbolic link');
  if (!st.isDirectory()) refuse(dir, 'is not a directory');
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) refuse(dir, `belongs to another user (uid ${st.uid})`);
  let marker: ReturnType<typeof lstatSync> | undefined;
  try {
    marker = lstatSync(path.join(dir, RESULTS_MARKER));
  } catch {
    /* none yet */
  }
  if (marker && !marker.isFile()) refuse(dir, `has a ${RESULTS_MARKER} that is not a regular file`);
  if (!marker) {
    if (readdirSync(dir).length > 0) refuse(dir, `holds files the harness did not make (no ${RESULTS_MARKER} in it)`);
    writeFileSync(path.join(dir, RESULTS_MARKER), MARKER_TEXT, { flag: 'wx' });
  }
  return dir;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A run's start: makes the results folder if needed and removes the scenario directories that
 * finished runs kept there (their process is gone). Returns how many it removed.
 */
export function emptyResultsDir(dir: string = resultsDir()): number {
  ensureResultsDir(dir);
  let removed = 0;
  for (const name of readdirSync(dir)) {
    const m = new RegExp(`^${SCENARIO_DIR_PREFIX}(\\d+)-`).exec(name);
    if (!m || running(Number(m[1]))) continue;
    const entry = path.join(dir, name);
    if (!lstatSync(entry).isDirectory()) continue; // a link or a file at such a name is not ours
    rmSync(entry, { recursive: true, force: true }); // removes links inside, never what they point at
    removed++;
  }
  return removed;
}

/**
 * The scenario directories moved into the results folder since `sinceMs` (epoch ms): a move (a
 * rename, or a copy) sets the directory's change time.
 */
export function keptSince(sinceMs: number, dir: string = resultsDir()): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(SCENARIO_DIR_PREFIX));
  } catch {
    return [];
  }
  return names.map((n) => path.join(dir, n)).filter((p) => {
    try {
      const st = lstatSync(p);
      return st.isDirectory() && st.ctimeMs >= sinceMs;
    } catch {
      return false;
    }
  });
}

/** At a run's end: where this process's run kept scenario directories, as one line (empty: none). */
export function keptSummary(dir: string = resultsDir()): string {
  const kept = keptSince(Date.now() - process.uptime() * 1000 - 1000, dir);
  if (kept.length === 0) return '';
  const n = kept.length === 1 ? '1 scenario directory' : `${kept.length} scenario directories`;
  return `${n} kept in ${displayPath(dir)}/ (logs, result.json, trace.json; the next run removes them)`;
}

/**
 * Moves a kept scenario directory from the temp dir into the results folder (a rename, or a copy
 * and a removal across file systems; links inside are copied as links, never followed). Returns
 * its new path, or `{ error }` when it could not be moved (it then stays where it is).
 */
export function moveToResults(scenarioDir: string, env: NodeJS.ProcessEnv = process.env): string | { error: string } {
  let target: string;
  try {
    target = path.join(ensureResultsDir(resultsDir(env)), path.basename(scenarioDir));
  } catch (e) {
    return { error: (e as Error).message };
  }
  try {
    renameSync(scenarioDir, target);
    return target;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') return { error: `${scenarioDir} -> ${target}: ${(e as Error).message}` };
  }
  try {
    cpSync(scenarioDir, target, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true });
  } catch (e) {
    rmSync(target, { recursive: true, force: true });
    return { error: `copying ${scenarioDir} to ${target}: ${(e as Error).message}` };
  }
  rmSync(scenarioDir, { recursive: true, force: true });
  return target;
}

/** For messages: the folder relative to the working directory when it is inside it. */
export function displayPath(dir: string, cwd: string = process.cwd()): string {
  const rel = path.relative(cwd, dir);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : dir;
}
