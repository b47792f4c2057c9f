/**
 * After `cann-harness run --repeat-each N [--jitter]`: which scenarios failed in every repetition,
 * which only in some (flaky, with the jitter seeds that failed and the command replaying each).
 */
import * as path from 'node:path';
import chalk from 'chalk';
import type { AggregatedResult } from '@jest/test-result';
import { replayCommand } from '../jest/repeat';
import { count } from '../report/summary-reporter';

const LABEL = /^(.*) \[(?:repeat (\d+)\/(\d+))?(?:, )?(?:jitter seed (\d+))?(?:, )?(?:explore seed \d+|explore off: [^\]]*)?\]$/;

export interface RepeatedScenario {
  file: string;
  scenario: string;
  runs: number;
  failed: number;
  /** Jitter seeds of the failed repetitions (empty without jitter). */
  failedSeeds: number[];
  passedSeeds: number[];
}

export function repetitionReport(results: Pick<AggregatedResult, 'testResults'>): RepeatedScenario[] {
  const byKey = new Map<string, RepeatedScenario>();
  for (const file of results.testResults) {
    for (const tc of file.testResults) {
      if (tc.status !== 'passed' && tc.status !== 'failed') continue;
      const m = LABEL.exec(tc.title);
      const scenario = m ? m[1] : tc.title;
      const seed = m?.[4] !== undefined ? Number(m[4]) : null;
      const key = `${file.testFilePath}\0${scenario}`;
      const entry = byKey.get(key) ?? { file: file.testFilePath, scenario, runs: 0, failed: 0, failedSeeds: [], passedSeeds: [] };
      byKey.set(key, entry);
      entry.runs++;
      if (tc.status === 'failed') entry.failed++;
      if (seed !== null) (tc.status === 'failed' ? entry.failedSeeds : entry.passedSeeds).push(seed);
    }
  }
  return [...byKey.values()];
}

export function formatRepetitionReport(rows: RepeatedScenario[], jitterMaxUs: number | undefined): string {
  const runs = rows.reduce((n, r) => n + r.runs, 0);
  const lines = [chalk.bold(`repetitions: ${count(rows.length, 'scenario')}, ${count(runs, 'run')}${jitterMaxUs ? ` under seeded jitter of up to ${jitterMaxUs} us` : ''}`)];
  const stable = rows.filter((r) => r.failed === 0).length;
  lines.push(`  ${chalk.green(`${stable} passed every repetition`)}`);
  for (const r of rows.filter((x) => x.failed > 0)) {
    const where = `${path.relative(process.cwd(), r.file)} › ${r.scenario}`;
    const kind = r.failed === r.runs ? chalk.red('FAILED in every repetition') : chalk.yellow(`FLAKY: failed ${r.failed} of ${r.runs}`);
    lines.push(`  ${kind}: ${where}`);
    if (r.failedSeeds.length) {
      lines.push(`    failing seeds: ${r.failedSeeds.join(', ')}`);
      if (jitterMaxUs) lines.push(`    replay the first: ${replayCommand(r.file, r.scenario, `${r.failedSeeds[0]}:${jitterMaxUs}`)}`);
    }
  }
  return lines.join('\n');
}

/** Scenarios that failed, then passed on a retry (`--retries N`): they pass, and are reported flaky. */
export function retriedThenPassed(results: Pick<AggregatedResult, 'testResults'>): { file: string; scenario: string; attempts: number }[] {
  return results.testResults.flatMap((file) =>
    file.testResults
      .filter((tc) => tc.status === 'passed' && (tc.invocations ?? 1) > 1)
      .map((tc) => ({ file: file.testFilePath, scenario: tc.title, attempts: tc.invocations ?? 1 })),
  );
}

export function formatRetried(rows: { file: string; scenario: string; attempts: number }[]): string {
  const lines = [chalk.yellow.bold(`FLAKY: ${rows.length} scenario${rows.length === 1 ? '' : 's'} passed only after a retry`)];
  for (const r of rows) lines.push(`  ${chalk.yellow('FLAKY')} ${path.relative(process.cwd(), r.file)} › ${r.scenario} (passed on attempt ${r.attempts})`);
  return lines.join('\n');
}
