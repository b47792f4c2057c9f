/**
 * `cann-harness audit [patterns...]`: the suite once without a mutant, then once per stub mutant
 * (ACL_STUB_MUTANT), then the table of scenario x mutant -> killed or survived (src/audit/report.ts).
 * Always stub mode: mutants exist only in the stub.
 */
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import chalk from 'chalk';
import type { AggregatedResult } from '@jest/test-result';
import { MUTANTS, MUTANT_ENV, JITTER_ENV, type MutantName } from '../mutants';
import { auditFails, buildAuditRows, cellText, formatAuditTable, type AuditCell, type AuditInput, type AuditRow, type TestOutcome } from '../audit/report';
import type { MatrixCell, MatrixPage } from '../report/html/matrix';
import { createAuditLog, readAuditDeclarations } from '../jest/audit-log';
import { installSessionGuard, onSessionStop, uninstallSessionGuard } from '../orchestrator/session-guard';
import { AUDIT_LOG_ENV, JITTER_US_ENV, REPEAT_EACH_ENV } from '../jest/repeat';
import { UsageError, checkHtmlOption, jestConfig, noSpecsMatched, prepareRun, runJest } from './run';
import { ENV } from '../env';

export interface AuditCommandOptions {
  specs: string;
  mutants?: MutantName[];
  testNamePattern?: string;
  strict?: boolean;
  json?: boolean;
  /** Also write the matrix as an HTML page into this folder. */
  html?: string;
}

export const DEFAULT_AUDIT_HTML_DIR = 'reports/html-audit';

/**
 * Spec files run side by side in each pass: a scenario's time goes mostly to its device processes
 * starting and waiting on each other, so Jest's default on 2 CPUs (CPUs - 1: one file at a time, in
 * the audit's own process) leaves a CPU idle. Files share nothing (scenario directories and events
 * are per run), as in `npm test`, which runs them beside the other test files.
 */
export function auditWorkers(cpus: number = availableParallelism()): number {
  return Math.max(2, cpus - 1);
}

/** The matrix page's data: each verdict as good (killed), bad (an undeclared survivor, a failing baseline) or neither. */
export function auditMatrix(rows: AuditRow[], mutants: readonly MutantName[], cwd = process.cwd()): MatrixPage {
  const kind = (c: AuditCell | undefined): MatrixCell['kind'] => (c?.verdict === 'killed' ? 'good' : c?.verdict === 'survived' && !c.expected ? 'bad' : 'neutral');
  const run = rows.filter((r) => r.testsItsWaits !== null);
  return {
    columns: [...mutants],
    rows: rows.map((r) => ({
      file: path.relative(cwd, r.file),
      scenario: r.scenario,
      baseline: { text: r.baseline, kind: r.baseline === 'failed' ? 'bad' : r.baseline === 'passed' ? 'good' : 'neutral' },
      cells: mutants.map((m) => ({ text: cellText(r.mutants[m]), kind: kind(r.mutants[m]) })),
      remarks: [
        ...r.problems.map((text) => ({ bad: true, text })),
        ...(r.declaration && mutants.some((m) => r.mutants[m]?.expected) ? [{ bad: false, text: `declared survivor: ${r.declaration.reason}` }] : []),
        ...r.notes.map((text) => ({ bad: false, text })),
      ],
    })),
    summary: [
      'killed: failed under the mutant, as it should (hb: the happens-before check flagged it); SURVIVED: passed anyway, so the scenario does not notice that broken behaviour; survived (declared): the scenario says why in audit.expectSurvive.',
      `${run.filter((r) => r.testsItsWaits).length} of ${run.length} scenarios run are killed by wait-noop: they test their waits.`,
    ],
  };
}

export async function auditCommand(patterns: string[], opts: AuditCommandOptions): Promise<number> {
  for (const name of [MUTANT_ENV, JITTER_ENV, REPEAT_EACH_ENV, JITTER_US_ENV]) {
    if (process.env[name]) throw new UsageError(`${name} is set (${process.env[name]}): unset it, the audit chooses the mutants itself (--mutants)`);
  }
  checkHtmlOption(opts.html);
  const progress = (text: string) => (opts.json ? process.stderr : process.stdout).write(`${text}\n`);
  const prepared = await prepareRun({ mode: 'stub', specs: opts.specs }, progress);
  if (!prepared) return 1;
  const mutants = opts.mutants ?? [...MUTANTS];
  const log = createAuditLog();
  // For the whole audit, not only while a pass runs: Ctrl-C between passes also stops it, and
  // a signal removes the audit's private directory as well (it dies by the signal: no finally).
  installSessionGuard();
  const forgetLog = onSessionStop(() => log.remove());
  process.env[AUDIT_LOG_ENV] = log.file;
  process.env[ENV.keep] = '0'; // scenarios killed on purpose leave no directories
  const started = Date.now();
  try {
    const config = { ...jestConfig(prepared.specs, []), maxWorkers: auditWorkers() };
    const run = async (mutant: MutantName | null): Promise<TestOutcome[] | null> => {
      if (mutant) process.env[MUTANT_ENV] = mutant;
      else delete process.env[MUTANT_ENV];
      const t0 = Date.now();
      const results = await runJest(patterns, config, { testNamePattern: opts.testNamePattern, silent: true });
      delete process.env[MUTANT_ENV];
      if (results.numTotalTestSuites === 0) return null;
      const outcomes = toOutcomes(results);
      const failed = outcomes.filter((o) => o.outcome === 'failed').length;
      const ran = outcomes.filter((o) => o.outcome !== 'skipped').length;
      const what = mutant ? `mutant ${mutant}` : 'no mutant';
      progress(`${chalk.bold('audit')} ${what.padEnd(22)} ${mutant ? `${failed} of ${ran} killed` : `${ran - failed} of ${ran} passed`} ${chalk.dim(`(${((Date.now() - t0) / 1000).toFixed(1)} s)`)}`);
      return outcomes;
    };
    const baseline = await run(null);
    if (!baseline) {
      process.stderr.write(chalk.red(`${noSpecsMatched(patterns, prepared.specs)}\n`));
      return 1;
    }
    const input: AuditInput = { mutants, baseline, perMutant: {}, declarations: [] };
    for (const m of mutants) input.perMutant[m] = (await run(m)) ?? [];
    input.declarations = readAuditDeclarations(log.file);
    const rows = buildAuditRows(input);
    const seconds = (Date.now() - started) / 1000;
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ mutants, seconds, scenarios: rows }, null, 2)}\n`);
    } else {
      process.stdout.write(`\n${formatAuditTable(rows, mutants)}\n${chalk.dim(`audit took ${seconds.toFixed(1)} s`)}\n`);
    }
    if (opts.html) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { writeMatrixReport } = require('../report/html/matrix') as typeof import('../report/html/matrix');
      const file = writeMatrixReport(path.resolve(opts.html), auditMatrix(rows, mutants), `--html ${opts.html}`);
      progress(`HTML report: ${path.relative(process.cwd(), file) || file}`);
    }
    return auditFails(rows, opts.strict ?? false) ? 1 : 0;
  } finally {
    delete process.env[AUDIT_LOG_ENV];
    forgetLog();
    uninstallSessionGuard();
    log.remove();
  }
}

/** Each file's tests in their order, the files by path: Jest lists files as they end, which varies with workers. */
function toOutcomes(results: AggregatedResult): TestOutcome[] {
  const files = [...results.testResults].sort((a, b) => (a.testFilePath < b.testFilePath ? -1 : a.testFilePath > b.testFilePath ? 1 : 0));
  return files.flatMap((file) =>
    file.testResults.map((tc) => ({
      file: file.testFilePath,
      title: tc.title,
      outcome: tc.status === 'passed' ? 'passed' : tc.status === 'failed' ? 'failed' : 'skipped',
      failureText: tc.failureMessages.join('\n'),
    })),
  );
}
