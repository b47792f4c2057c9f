/**
 * `cann-harness run [patterns...]`: probe the devices, then run the spec suite with Jest's
 * programmatic API, reporting with the coloured summary reporter and writing JUnit XML.
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';
import chalk from 'chalk';
import type { AggregatedResult } from '@jest/test-result';
import { stubTamperingNotice } from '../mutants';
import { StubBuildError } from '../acl/stub-build';
import { buildStubIfNeeded } from '../acl/stub-setup';
import type { PrecheckResult } from '../orchestrator';
import { installSessionGuard, uninstallSessionGuard } from '../orchestrator/session-guard';
import { removeDeadRunLeftovers } from '../orchestrator/dead-runs';
import { ResultsDirError, emptyResultsDir, resultsDir } from '../orchestrator/results-dir';
import { NO_RUNTIME_HINT, PROBE_ENV, REQUIRE_DEVICES_ENV, probeDevices } from '../jest/probe';
import { JITTER_US_ENV, REPEAT_EACH_ENV, RETRIES_ENV, SHARD_ENV, type Shard } from '../jest/repeat';
import { HTML_REPORTER, JUNIT_REPORTER, SUMMARY_REPORTER, basePreset, jestCacheDirectory, junitReporterOptions } from '../jest/preset';
import { defaultTimeoutMs } from '../env/timeout';
import { ReportFolderError, checkReportFolder } from '../report/html/folder';
import { formatRepetitionReport, formatRetried, repetitionReport, retriedThenPassed } from './repetitions';
import { startProgress } from '../report/progress';
import { ENV, type Mode } from '../env';
import { DEFAULT_EXPLORE_DEPTH } from '../env/explore';
import { inlineReplayFile, readReplayArgument } from '../scenario/explore';
import { IS_SOURCE_CHECKOUT, PACKAGE_ROOT } from '../paths';
import { INTERVALS_FILE, INTERVAL_SAMPLES_FILE, formatIntervalTable, readIntervalSamples, summarizeIntervals, writeIntervalsReport } from '../report/intervals';

export { PACKAGE_ROOT };
/**
 * Where specs live by default: the bundled suite in a source checkout; `specs/` in the current
 * directory (the user's project) for an installed package.
 */
export const DEFAULT_JUNIT = 'reports/junit.xml';
/** The reports folder: the JUnit file's, else reports/ in the working directory. */
export function reportsDir(junit: string | false): string {
  return junit === false ? path.resolve('reports') : path.dirname(path.resolve(junit));
}
export const DEFAULT_SPECS = IS_SOURCE_CHECKOUT ? path.join(PACKAGE_ROOT, 'specs') : 'specs';
/** Jest's rootDir (spec paths are shown relative to it): the project the command runs in. */
const projectRoot = (): string => process.cwd();

export interface RunCommandOptions {
  mode: Mode;
  specs: string;
  requireDevices?: number;
  keep?: boolean;
  /** Keep every scenario directory with its timeline (trace.json), passing ones too. */
  trace?: boolean;
  echo?: boolean;
  /** Where to write JUnit XML; false: not at all. */
  junit: string | false;
  runInBand?: boolean;
  /** Run every scenario this many times (Jest titles say which repetition). */
  repeatEach?: number;
  /** Seeded stub jitter of at most this many microseconds, a fresh seed per repetition. */
  jitter?: number;
  /** The schedule explorer: a seed, or 'fresh' (a new one per scenario). */
  explore?: number | 'fresh';
  /** PCT depth of --explore. */
  exploreDepth?: number;
  /** Replay one recorded schedule: ex1.<token> or @<file>. */
  exploreReplay?: string;
  /** Soak rounds: every scenario's role processes run their bodies this many times. */
  rounds?: number;
  /** Run only the scenarios of shard i of n (by scenario, not by file). */
  shard?: Shard;
  /** A failed scenario runs again up to this many times; passing on a retry is reported flaky. */
  retries?: number;
  /** Only scenarios whose name matches this regular expression (Jest's -t). */
  testNamePattern?: string;
  /** Write the HTML report to this folder. */
  html?: string;
  /** Where kept scenario directories go (default: CANN_HARNESS_RESULTS_DIR, the config's resultsDir, test-results/cann-harness). */
  resultsDir?: string;
}

export function describeProbe(p: PrecheckResult): string {
  if (!p.ok) return chalk.red(`no usable ACL runtime (${p.mode} mode): ${(p.error ?? p.reason).split('\n')[0]}`);
  return [
    chalk.bold(`${p.mode} mode`),
    `${p.deviceCount} device${p.deviceCount === 1 ? '' : 's'}`,
    p.ipcSupported ? 'IPC events supported' : chalk.yellow('IPC events NOT supported'),
    chalk.dim(p.library),
  ].join(chalk.dim(' · '));
}

/** Probes the devices, prints the run header and hands the probe to Jest's workers; null when nothing can run. */
export async function prepareRun(
  opts: Pick<RunCommandOptions, 'mode' | 'specs'>,
  say: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<{ specs: string; probe: PrecheckResult } | null> {
  const specs = path.resolve(opts.specs);
  try {
    jestCacheDirectory(); // a cache others could write to: refused before anything runs
  } catch (e) {
    throw new UsageError((e as Error).message.replace(/^cann-harness: /, ''));
  }
  if (!existsSync(specs) || !statSync(specs).isDirectory()) {
    throw new UsageError(`--specs ${opts.specs}: no such directory (give the folder that holds your *.spec.ts files)`);
  }
  try {
    buildStubIfNeeded(opts.mode, (line) => say(`${chalk.bold('cann-harness')} ${line}`));
  } catch (e) {
    if (e instanceof StubBuildError) throw new UsageError(e.message); // set-up error: exit 2
    throw e;
  }
  // A killed earlier run's directories and shared memory: gone before this run makes its own.
  removeDeadRunLeftovers((line) => say(`${chalk.bold('cann-harness')} ${line}`));
  say(`${chalk.bold('cann-harness')} ${chalk.dim('probing devices...')}`);
  const probe = await probeDevices(opts.mode);
  say(`${chalk.bold('cann-harness')} ${describeProbe(probe)}`);
  if (!probe.ok) {
    // Nothing could run: say so and fail, rather than report every scenario as skipped.
    process.stderr.write(`${chalk.red(NO_RUNTIME_HINT)}\n`);
    return null;
  }
  const notice = stubTamperingNotice();
  if (notice) say(`${chalk.bold('cann-harness')} ${chalk.bgYellow.black(' NOTE ')} ${notice}`);
  if (probe.mode === 'real') say(`${chalk.bold('cann-harness')} ${chalk.dim('happens-before check skipped: real mode (only the stub writes traces)')}`);
  // Test workers inherit these: the probe is not repeated, the mode and options are shared.
  process.env[PROBE_ENV] = JSON.stringify(probe);
  process.env[ENV.mode] = probe.mode;
  return { specs, probe };
}

export function jestConfig(specs: string, reporters: unknown[]): Record<string, unknown> {
  return {
    ...basePreset(defaultTimeoutMs()),
    rootDir: projectRoot(),
    roots: [specs],
    reporters,
  };
}

export async function runJest(
  patterns: string[],
  config: Record<string, unknown>,
  opts: { runInBand?: boolean; testNamePattern?: string; silent?: boolean },
): Promise<AggregatedResult> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { runCLI } = require('jest') as typeof import('jest');
  // Ctrl-C, SIGTERM, SIGHUP: stop every device process of this run, remove its scenario
  // directories and shared memory, then die by the signal (Jest's global setup shares this guard).
  installSessionGuard();
  try {
    const { results } = await runCLI(
      {
        _: [], // patterns go in testPathPatterns only (Jest joins both lists: they would show twice)
        $0: 'cann-harness',
        config: JSON.stringify(config),
        testPathPatterns: patterns,
        runInBand: opts.runInBand,
        testNamePattern: opts.testNamePattern,
        silent: opts.silent,
        passWithNoTests: false,
      } as Parameters<typeof runCLI>[0],
      [projectRoot()],
    );
    return results;
  } finally {
    uninstallSessionGuard();
  }
}

export function noSpecsMatched(patterns: string[], specs: string): string {
  return `no spec files matched ${patterns.length ? patterns.map((p) => JSON.stringify(p)).join(', ') : '*.spec.ts'} under ${specs}`;
}

/** `--html dir` (run and audit): a folder the report may be written into, else exit 2 before anything runs. */
export function checkHtmlOption(dir: string | undefined): void {
  if (dir === undefined) return;
  try {
    checkReportFolder(path.resolve(dir), `--html ${dir}`);
  } catch (e) {
    if (e instanceof ReportFolderError) throw new UsageError(e.message);
    throw e;
  }
}

export async function runCommand(patterns: string[], opts: RunCommandOptions): Promise<number> {
  checkHtmlOption(opts.html);
  const exploring = checkExploreOptions(opts);
  const prepared = await prepareRun(opts);
  if (!prepared) return 1;
  if (exploring && prepared.probe.mode === 'real') throw new UsageError(`${exploring} needs stub mode: ${EXPLORE_IS_STUB} (auto mode found real CANN here: add --mode stub)`);
  const { specs } = prepared;
  if (opts.requireDevices !== undefined) process.env[REQUIRE_DEVICES_ENV] = String(opts.requireDevices);
  if (opts.resultsDir) process.env[ENV.resultsDir] = opts.resultsDir;
  process.env[ENV.resultsDir] = resultsDir(); // absolute, for every worker
  if (opts.explore !== undefined) {
    process.env[ENV.explore] = String(opts.explore);
    delete process.env[ENV.exploreReplay];
  }
  if (opts.exploreReplay !== undefined) {
    // The option wins over the config's explore; a file is read before the results folder (which may hold it) is emptied.
    process.env[ENV.exploreReplay] = opts.exploreReplay;
    delete process.env[ENV.explore];
    inlineReplayFile(process.env);
  }
  try {
    emptyResultsDir(); // what the last runs kept goes now (results-dir.ts)
  } catch (e) {
    if (e instanceof ResultsDirError) throw new UsageError(e.message);
    throw e;
  }
  if (opts.keep) process.env[ENV.keep] = '1';
  if (opts.trace) process.env[ENV.trace] = '1';
  if (opts.echo) process.env[ENV.echo] = '1';
  if (opts.repeatEach !== undefined) process.env[REPEAT_EACH_ENV] = String(opts.repeatEach);
  if (opts.jitter !== undefined) process.env[JITTER_US_ENV] = String(opts.jitter);
  if (opts.rounds !== undefined) process.env[ENV.rounds] = String(opts.rounds);
  if (opts.exploreDepth !== undefined) process.env[ENV.exploreDepth] = String(opts.exploreDepth);
  if (exploring) process.stdout.write(`${chalk.bold('cann-harness')} ${exploring === '--explore-replay' ? 'replaying one recorded schedule (the rounds up to the recorded one; the stub forces its order)' : `schedule explorer on (${opts.explore === undefined || opts.explore === 'fresh' ? 'a fresh seed per scenario' : `seed ${opts.explore}`}, depth ${opts.exploreDepth ?? DEFAULT_EXPLORE_DEPTH}): every round runs one PCT schedule`}\n`);
  if (opts.retries !== undefined) process.env[RETRIES_ENV] = String(opts.retries);
  if (opts.shard) process.env[SHARD_ENV] = `${opts.shard.index}/${opts.shard.total}`;

  if ((opts.repeatEach ?? 1) > 1 || opts.jitter !== undefined) {
    const jitter = opts.jitter !== undefined ? `, seeded stub jitter of up to ${opts.jitter} us with a fresh seed each time` : '';
    process.stdout.write(`${chalk.bold('cann-harness')} each scenario runs ${opts.repeatEach ?? 1} time(s)${jitter}\n`);
  }
  const junit = opts.junit === false ? null : path.resolve(opts.junit);
  const config = jestConfig(specs, [
    [SUMMARY_REPORTER, junit ? { junitFile: path.relative(process.cwd(), junit) } : {}],
    ...(junit ? [[JUNIT_REPORTER, junitReporterOptions(junit)]] : []),
    ...(opts.html ? [[HTML_REPORTER, { outputFolder: path.resolve(opts.html) }]] : []),
  ]);
  // Which scenarios run long, and each role's state (src/report/progress.ts); silent while all is quick.
  const progress = startProgress();
  // Jest workers append the intervals of passing runs here: result.between() and declared ones
  // (src/report/intervals.ts). This run's files replace the previous run's.
  const reports = reportsDir(opts.junit);
  const samplesFile = path.join(reports, INTERVAL_SAMPLES_FILE);
  const intervalsFile = path.join(reports, INTERVALS_FILE);
  for (const f of [samplesFile, intervalsFile]) rmSync(f, { force: true });
  process.env[ENV.intervalsLog] = samplesFile;
  let results: AggregatedResult;
  try {
    results = await runJest(patterns, config, opts);
  } finally {
    progress.stop();
    delete process.env[ENV.intervalsLog];
  }
  if (results.numTotalTestSuites === 0) {
    process.stderr.write(chalk.red(`${noSpecsMatched(patterns, specs)}\n`));
    return 1;
  }
  if ((opts.repeatEach ?? 1) > 1 || opts.jitter !== undefined) {
    process.stdout.write(`${formatRepetitionReport(repetitionReport(results), opts.jitter)}\n`);
  }
  const samples = readIntervalSamples(samplesFile);
  if (samples.length) {
    const stats = summarizeIntervals(samples);
    writeIntervalsReport(intervalsFile, stats);
    process.stdout.write(`${formatIntervalTable(stats, path.relative(process.cwd(), intervalsFile) || intervalsFile)}\n`);
  }
  const retried = retriedThenPassed(results);
  if (retried.length) process.stdout.write(`${formatRetried(retried)}\n`);
  return results.success ? 0 : 1;
}

const EXPLORE_IS_STUB = "the schedule explorer is a stub feature (it pauses the stub's threads at its points; the real runtime's threads and the device cannot be paused)";

/**
 * The explorer's options against each other, the mode and the jitter (the config's explore too):
 * the option that turns it on, or null. A bad replay token is a usage error here, before anything runs.
 */
export function checkExploreOptions(opts: Pick<RunCommandOptions, 'mode' | 'jitter' | 'explore' | 'exploreDepth' | 'exploreReplay'>, env: NodeJS.ProcessEnv = process.env): string | null {
  const configured = opts.exploreReplay === undefined && opts.explore === undefined && env[ENV.explore] ? `${ENV.explore} (or the config's explore)` : null;
  const which = opts.exploreReplay !== undefined ? '--explore-replay' : opts.explore !== undefined ? '--explore' : configured;
  if (opts.explore !== undefined && opts.exploreReplay !== undefined) {
    throw new UsageError('give --explore or --explore-replay, not both: --explore draws new schedules, --explore-replay forces one recorded schedule');
  }
  if (opts.exploreDepth !== undefined && opts.explore === undefined && !env[ENV.explore]) {
    throw new UsageError('--explore-depth needs --explore (the depth of its schedules); a replay forces recorded decisions and has no depth');
  }
  if (!which) return null;
  if (opts.mode === 'real') throw new UsageError(`${which} needs stub mode: ${EXPLORE_IS_STUB}; drop --mode real or ${which}`);
  if (opts.jitter !== undefined || env[ENV.stubJitter]) {
    throw new UsageError(`${which} and ${opts.jitter !== undefined ? '--jitter' : ENV.stubJitter} exclude each other: the explorer decides the order at every point, jitter would only disturb it; give one of them`);
  }
  if (opts.exploreReplay !== undefined) {
    try {
      readReplayArgument(opts.exploreReplay);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  return which;
}

/** Bad command-line input: printed without a stack trace, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
