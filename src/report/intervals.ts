/**
 * Intervals as data across runs: every `result.between(from, to)` asked in a passing verify(), and
 * every interval a scenario declares, is one sample per role. Under `cann-harness run` the Jest
 * workers append them (one JSON line each) to `intervals-samples.jsonl` in the reports folder (the
 * file named by CANN_HARNESS_INTERVALS_LOG); the command then reports count, min, p50, p90, p99
 * and max per scenario, interval and role, as `intervals.json` next to it and as a table.
 */
import { closeSync, constants, existsSync, fstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { replaceFile } from './html/folder';
import * as path from 'node:path';
import chalk from 'chalk';
import { ENV } from '../env';

export const INTERVALS_FILE = 'intervals.json';
export const INTERVAL_SAMPLES_FILE = 'intervals-samples.jsonl';
export const INTERVALS_SCHEMA = 'cann-harness/intervals@1';

export interface IntervalSample {
  /** Spec file, relative to the working directory. */
  file: string;
  scenario: string;
  from: string;
  to: string;
  role: string;
  ms: number;
}

export interface IntervalStats {
  file: string;
  scenario: string;
  from: string;
  to: string;
  /** The role of `to` the interval ends in. */
  role: string;
  count: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface IntervalsReport {
  schema: typeof INTERVALS_SCHEMA;
  unit: 'ms';
  percentiles: 'nearest-rank';
  intervals: IntervalStats[];
}

/**
 * The q-th percentile (0 < q <= 100) of ascending `sorted` by nearest rank: the smallest sample
 * with at least q % of the samples at or below it (always one of the samples, no interpolation).
 */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new Error('percentile of no samples');
  if (!(q > 0 && q <= 100)) throw new Error(`percentile ${q} is out of range: give 0 < q <= 100`);
  return sorted[Math.ceil((q / 100) * sorted.length) - 1];
}

/** Samples grouped by spec file, scenario, interval and role, in first-seen order. */
export function summarizeIntervals(samples: readonly IntervalSample[]): IntervalStats[] {
  const groups = new Map<string, { key: Omit<IntervalSample, 'ms'>; values: number[] }>();
  for (const s of samples) {
    const id = JSON.stringify([s.file, s.scenario, s.from, s.to, s.role]);
    const g = groups.get(id) ?? { key: { file: s.file, scenario: s.scenario, from: s.from, to: s.to, role: s.role }, values: [] };
    groups.set(id, g);
    g.values.push(s.ms);
  }
  return [...groups.values()].map(({ key, values }) => {
    const sorted = [...values].sort((a, b) => a - b);
    return {
      ...key,
      count: sorted.length,
      min: sorted[0],
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1],
    };
  });
}

/** In a Jest worker: append one passing run's samples to the run's log (no-op outside `cann-harness run`). */
export function logIntervalSamples(samples: readonly IntervalSample[], env: NodeJS.ProcessEnv = process.env): void {
  const log = env[ENV.intervalsLog];
  if (!log || samples.length === 0) return;
  mkdirSync(path.dirname(log), { recursive: true }); // the reports folder, made only when there is something to write
  // One write per run with O_APPEND: lines from parallel workers do not interleave. Never through a
  // link planted at the name (O_NOFOLLOW: ELOOP), never into another user's file.
  let fd: number;
  try {
    fd = openSync(log, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') return;
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) return;
    writeSync(fd, samples.map((s) => `${JSON.stringify(s)}\n`).join(''));
  } finally {
    closeSync(fd);
  }
}

export function readIntervalSamples(log: string): IntervalSample[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as IntervalSample);
}

export function intervalsReport(stats: IntervalStats[]): IntervalsReport {
  return { schema: INTERVALS_SCHEMA, unit: 'ms', percentiles: 'nearest-rank', intervals: stats };
}

export function writeIntervalsReport(file: string, stats: IntervalStats[]): void {
  mkdirSync(path.dirname(file), { recursive: true });
  // Renamed into place from a file created exclusively: a link at the name is replaced, never written through.
  replaceFile(path.dirname(file), path.basename(file), [`${JSON.stringify(intervalsReport(stats), null, 2)}\n`]);
}

const ms = (v: number): string => (v >= 100 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));

/** The CLI summary's table: one line per scenario, interval and role. */
export function formatIntervalTable(stats: IntervalStats[], file: string): string {
  const header = ['count', 'p50', 'p90', 'p99', 'max'];
  const rows = stats.map((s) => ({ label: `${s.scenario} › ${s.from} → ${s.to}${s.role === s.to.split(':')[0] ? '' : ` (${s.role})`}`, cells: [String(s.count), ms(s.p50), ms(s.p90), ms(s.p99), ms(s.max)] }));
  const labelWidth = Math.max(...rows.map((r) => r.label.length), 'interval'.length);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r.cells[i].length)));
  const line = (label: string, cells: string[]) => `  ${label.padEnd(labelWidth)}  ${cells.map((c, i) => c.padStart(widths[i])).join('  ')}`;
  return [
    chalk.bold(`intervals (ms) across runs, written to ${file}`),
    chalk.dim(line('interval', header)),
    ...rows.map((r) => line(r.label, r.cells)),
  ].join('\n');
}
