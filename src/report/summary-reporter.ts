/**
 * The Jest reporter of `cann-harness run`: one coloured line per scenario as it finishes
 * (progress), the failure reports, then a summary. Skips keep their reason visible.
 */
import * as path from 'node:path';
import chalk from 'chalk';
import type { AggregatedResult, Reporter, Test, TestCaseResult, TestResult } from '@jest/reporters';

export interface SummaryReporterOptions {
  /** Where jest-junit writes, shown in the summary. */
  junitFile?: string;
  /** Write somewhere else than stdout (tests). */
  write?: (text: string) => void;
}

const SKIP_REASON = /\s*\[skip: ([^\]]*)\]$/;

export default class SummaryReporter implements Pick<Reporter, 'onRunStart' | 'onTestCaseResult' | 'onTestResult' | 'onRunComplete'> {
  private readonly write: (text: string) => void;
  private readonly failures: string[] = [];
  private readonly rootDir: string;
  /** Cases already printed by onTestCaseResult (Jest does not send it for skipped tests). */
  private readonly printed = new Set<string>();

  constructor(globalConfig: { rootDir: string }, private readonly options: SummaryReporterOptions = {}) {
    this.rootDir = globalConfig.rootDir;
    this.write = options.write ?? ((t) => process.stdout.write(t));
  }

  onRunStart(results: AggregatedResult): void {
    const n = results.numTotalTestSuites;
    this.write(chalk.dim(`running ${count(n, 'spec file')}\n`));
  }

  onTestCaseResult(test: Test, tc: TestCaseResult): void {
    this.printed.add(`${test.path}\0${tc.fullName}`);
    this.write(`${formatCase(tc, this.fileLabel(test.path))}\n`);
  }

  onTestResult(test: Test, result: TestResult): void {
    const file = this.fileLabel(test.path);
    if (result.testExecError) {
      // The spec could not even be collected (e.g. an invalid scenario declaration).
      const msg = result.testExecError.message || String(result.testExecError);
      this.write(`${chalk.red('✗')} ${file} ${chalk.red('could not be loaded')}\n`);
      this.failures.push(`${chalk.bold.red(file)}\n${indent(msg)}`);
      return;
    }
    for (const tc of result.testResults) {
      if (!this.printed.delete(`${test.path}\0${tc.fullName}`)) this.write(`${formatCase(tc, file)}\n`);
      if (tc.status !== 'failed') continue;
      this.failures.push(`${chalk.bold.red(`${file} › ${tc.title}`)}\n${indent(tc.failureMessages.map(cleanStack).join('\n'))}`);
    }
  }

  onRunComplete(_contexts: unknown, results: AggregatedResult): void {
    if (this.failures.length) {
      this.write(`\n${chalk.bold.red('Failures')}\n\n${this.failures.join('\n\n')}\n`);
    }
    const parts = [
      chalk.green(`${results.numPassedTests} passed`),
      results.numPendingTests ? chalk.yellow(`${results.numPendingTests} skipped`) : null,
      results.numFailedTests ? chalk.red(`${results.numFailedTests} failed`) : null,
      results.numRuntimeErrorTestSuites ? chalk.red(`${results.numRuntimeErrorTestSuites} spec file(s) failed to load`) : null,
    ].filter(Boolean);
    const seconds = ((Date.now() - results.startTime) / 1000).toFixed(1);
    const ok = results.numFailedTests === 0 && results.numRuntimeErrorTestSuites === 0;
    this.write(
      `\n${ok ? chalk.bgGreen.black(' PASS ') : chalk.bgRed.white(' FAIL ')} ${parts.join(chalk.dim(' · '))}` +
        chalk.dim(` (${count(results.numTotalTests, 'scenario')} in ${count(results.numTotalTestSuites, 'spec file')}, ${seconds} s)\n`),
    );
    if (this.options.junitFile) this.write(chalk.dim(`JUnit XML: ${this.options.junitFile}\n`));
  }

  private fileLabel(file: string): string {
    return path.relative(this.rootDir, file) || file;
  }
}

/** "1 scenario", "2 scenarios". */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

export function formatCase(tc: Pick<TestCaseResult, 'status' | 'title' | 'duration'>, file: string): string {
  const where = chalk.dim(`${file} ›`);
  const took = chalk.dim(`${((tc.duration ?? 0) / 1000).toFixed(1)} s`);
  switch (tc.status) {
    case 'passed':
      return `${chalk.green('✓')} ${where} ${tc.title} ${took}`;
    case 'failed':
      return `${chalk.red('✗')} ${where} ${chalk.red(tc.title)} ${took}`;
    case 'pending':
    case 'skipped': {
      const reason = SKIP_REASON.exec(tc.title)?.[1];
      const title = tc.title.replace(SKIP_REASON, '');
      return `${chalk.yellow('○')} ${where} ${title} ${chalk.yellow(`skipped${reason ? `: ${reason}` : ''}`)}`;
    }
    default:
      return `${chalk.dim('-')} ${where} ${tc.title} ${chalk.dim(tc.status)}`;
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

/** Jest failure messages end with node_modules frames nobody needs in a summary. */
function cleanStack(message: string): string {
  return message
    .split('\n')
    .filter((l) => !/^\s+at .*(node_modules|node:internal)/.test(l))
    .join('\n')
    .trimEnd();
}
