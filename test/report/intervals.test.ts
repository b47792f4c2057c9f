/** Percentiles of result.between() intervals across runs: the nearest-rank rule, grouping, the table and intervals.json. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { formatIntervalTable, logIntervalSamples, percentile, readIntervalSamples, summarizeIntervals, writeIntervalsReport, type IntervalSample } from '../../src/report/intervals';

const oneToTen = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

test('nearest rank: the smallest sample with at least q % of the samples at or below it', () => {
  expect(percentile(oneToTen, 50)).toBe(5);
  expect(percentile(oneToTen, 90)).toBe(9);
  expect(percentile(oneToTen, 91)).toBe(10);
  expect(percentile(oneToTen, 99)).toBe(10);
  expect(percentile(oneToTen, 100)).toBe(10);
  expect(percentile(oneToTen, 10)).toBe(1);
  expect(percentile([0.5, 0.75, 2, 40, 41], 50)).toBe(2);
  expect(percentile([0.5, 0.75, 2, 40, 41], 90)).toBe(41);
  expect(percentile([7], 99)).toBe(7);
});

test('percentile refuses no samples and q outside (0, 100]', () => {
  expect(() => percentile([], 50)).toThrow('percentile of no samples');
  expect(() => percentile(oneToTen, 0)).toThrow('percentile 0 is out of range: give 0 < q <= 100');
  expect(() => percentile(oneToTen, 101)).toThrow('out of range');
});

const sample = (role: string, ms: number, scenario = 's'): IntervalSample => ({ file: 'specs/a.spec.ts', scenario, from: 'producer:release', to: 'consumer:after-wait', role, ms });

test('samples group by scenario, interval and role, whatever their order', () => {
  const samples = [4, 1, 3, 5, 2].flatMap((v) => [sample('consumer-0', v), sample('consumer-1', v * 10)]).concat(sample('consumer-0', 100, 'other'));
  expect(summarizeIntervals(samples)).toEqual([
    { file: 'specs/a.spec.ts', scenario: 's', from: 'producer:release', to: 'consumer:after-wait', role: 'consumer-0', count: 5, min: 1, p50: 3, p90: 5, p99: 5, max: 5 },
    { file: 'specs/a.spec.ts', scenario: 's', from: 'producer:release', to: 'consumer:after-wait', role: 'consumer-1', count: 5, min: 10, p50: 30, p90: 50, p99: 50, max: 50 },
    { file: 'specs/a.spec.ts', scenario: 'other', from: 'producer:release', to: 'consumer:after-wait', role: 'consumer-0', count: 1, min: 100, p50: 100, p90: 100, p99: 100, max: 100 },
  ]);
});

test('workers log samples as JSON lines; the report file has a schema, unit and method', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cann-intervals-test-'));
  try {
    const log = path.join(dir, 'reports', 'intervals-samples.jsonl'); // its folder is made on the first write
    logIntervalSamples([sample('consumer-0', 1.5)], { CANN_HARNESS_INTERVALS_LOG: log });
    logIntervalSamples([sample('consumer-0', 2.5), sample('consumer-1', 3)], { CANN_HARNESS_INTERVALS_LOG: log });
    logIntervalSamples([sample('consumer-0', 9)], {}); // outside `cann-harness run`: nowhere
    expect(readIntervalSamples(log).map((s) => s.ms)).toEqual([1.5, 2.5, 3]);
    const file = path.join(dir, 'reports', 'intervals.json');
    writeIntervalsReport(file, summarizeIntervals(readIntervalSamples(log)));
    const report = JSON.parse(readFileSync(file, 'utf8'));
    expect(report).toMatchObject({ schema: 'cann-harness/intervals@1', unit: 'ms', percentiles: 'nearest-rank' });
    expect(report.intervals[0]).toMatchObject({ role: 'consumer-0', count: 2, p50: 1.5, max: 2.5 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the table: one line per interval and role, the role named only when it is not the selector\'s', () => {
  const text = formatIntervalTable(summarizeIntervals([sample('consumer-0', 0.25), sample('consumer-0', 12.5)]), 'reports/intervals.json');
  const lines = text.split('\n');
  expect(lines[0]).toContain('intervals (ms) across runs, written to reports/intervals.json');
  expect(lines[1]).toMatch(/interval\s+count\s+p50\s+p90\s+p99\s+max$/);
  expect(lines[2]).toMatch(/^ {2}s › producer:release → consumer:after-wait \(consumer-0\)\s+2\s+0\.250\s+12\.50\s+12\.50\s+12\.50$/);
  const own = formatIntervalTable(summarizeIntervals([{ ...sample('consumer', 3), to: 'consumer:woken' }]), 'x');
  expect(own.split('\n')[2]).toMatch(/› producer:release → consumer:woken\s+1\s+3\.00/);
});
