/**
 * The `cann-harness` command (bin/cann-harness.js loads this):
 *   cann-harness run [patterns...]   run the scenario suite (stub mode unless real hardware is found)
 *   cann-harness trace <dir>         build trace.json from a scenario directory
 *   cann-harness doctor              what would run here, and why
 *   cann-harness flags               compiler/linker flags for native roles (pkg-config style)
 *   cann-harness show-report [dir]   serve an HTML report (run --html) on 127.0.0.1
 *   cann-harness conformance         the C conformance suite against a libascendcl.so (stub or CANN)
 */
import { parseRounds } from './rounds-option';
import chalk from 'chalk';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { collectDoctorReport, formatDoctorReport } from './doctor';
import { DEFAULT_AUDIT_HTML_DIR, auditCommand } from './audit';
import { parseMutantList } from '../mutants';
import { parseJitterUs, parseRepeatEach, parseRetries, parseShard } from '../jest/repeat';
import * as path from 'node:path';
import { DEFAULT_JUNIT, DEFAULT_SPECS, UsageError, noSpecsMatched, runCommand } from './run';
import { formatScenarioList, listScenarios } from './list';
import { ConfigError, applyConfig, type LoadedConfig } from '../config';
import { setupCommand } from './setup';
import { packageVersion } from '../acl/stub-build';
import { traceCommand } from './trace';
import { flagsCommand } from './flags';
import { DEFAULT_HTML_DIR } from '../report/html/reporter';
import { NoReportError, serveReport } from '../report/html/serve';
import { MODES, modeFromEnv, type Mode } from '../env';
import { parseExploreDepth, parseExploreSeed } from '../env/explore';
import { conformanceCommand, parseJobs } from './conformance';

const DEFAULT_JITTER_US = 200;

function modeOption(): Option {
  return new Option('--mode <mode>', 'which libascendcl to use: auto (real if found, else stub), stub or real (default: CANN_HARNESS_MODE, else auto)')
    .choices([...MODES]);
}

/** --mode if given (commander checked it), else CANN_HARNESS_MODE, which commander does not check. */
function chosenMode(option: Mode | undefined): Mode {
  if (option) return option;
  try {
    return modeFromEnv();
  } catch (e) {
    throw new UsageError(`${(e as Error).message}, or pass --mode`);
  }
}

function deviceCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`expected a whole number of devices, e.g. 8 (got "${value}")`);
  return Number(value);
}

/** A commander parser from one of our validators (their messages name the fix). */
function validated<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (e) {
      throw new InvalidArgumentError((e as Error).message);
    }
  };
}

/** --explore's optional seed: a pattern right after it is taken as its value (as with --jitter). */
function parseExploreSeedOption(text: string): number | 'fresh' {
  try {
    return parseExploreSeed(text, '--explore');
  } catch (e) {
    throw new Error(`${(e as Error).message}${/^\d+$/.test(text.trim()) ? '' : ' (a spec pattern right after --explore is taken as its seed: put patterns first, or write --explore fresh)'}`);
  }
}

function checkPatterns(patterns: string[]): void {
  for (const p of patterns) {
    try {
      new RegExp(p);
    } catch (e) {
      throw new UsageError(`pattern ${JSON.stringify(p)} is not a valid regular expression: ${(e as Error).message}`);
    }
  }
}

/** The project's config file, its settings exported to the environment (bad config: exit 2). */
function projectConfig(file?: string): LoadedConfig {
  try {
    return applyConfig(process.cwd(), file);
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
}

export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command('cann-harness')
    .description('Multi-process, multi-device IPC event scenarios for Ascend CANN (real runtime or CPU stub)')
    .version(packageVersion(), '-V, --version', 'print the version of cann-ipc-harness')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  program
    .command('run')
    .description('run the scenario specs (the bundled suite by default) and print a summary')
    .argument('[patterns...]', 'only spec files whose path matches one of these regular expressions')
    .addOption(modeOption())
    .option('--specs <dir>', 'folder of *.spec.ts files to run (default: the config file\'s specs, else ./specs; the bundled suite in a source checkout)')
    .option('--config <file>', 'config file (default: cann-harness.config.ts or .js in the current directory)')
    .option('--require-devices <n>', 'fail (instead of skip) scenarios needing up to n devices when fewer exist', deviceCount)
    .option('--keep', 'keep every scenario directory (failed ones are always kept)')
    .option('--results-dir <dir>', 'where kept scenario directories go (default test-results/cann-harness; also CANN_HARNESS_RESULTS_DIR)')
    .option('--trace', 'keep every scenario directory with its timeline trace.json, passing ones too (also CANN_HARNESS_TRACE=1)')
    .option('--echo', "echo every role's output live")
    .option('--junit <file>', 'where to write JUnit XML (default: the config file\'s reporters.junit, else reports/junit.xml)')
    .option('-i, --run-in-band', 'run spec files one at a time in this process')
    .option('-t, --test-name-pattern <regex>', 'only scenarios whose name matches this regular expression')
    .option('--grep <regex>', 'the same as -t')
    .option('--retries <n>', 'run a failed scenario again up to n times; one that then passes is reported FLAKY (exit 0)', validated((t) => parseRetries(t)))
    .option('--shard <i/n>', 'run only shard i of n: scenarios are split by a hash of file and name (the others are reported skipped)', validated((t) => parseShard(t)))
    .option('--list', 'list the selected scenarios with the devices and roles each needs, without running them')
    .option('--repeat-each <n>', 'run every scenario n times (soak); each repetition is its own test', validated((t) => parseRepeatEach(t)))
    .option('--rounds <n>', 'soak rounds: every role process starts once and runs its body n times, each round checked (docs/guide/soak-rounds.md)', validated((t) => parseRounds(t)))
    .option('--jitter [max_us]', 'seeded stub jitter: delay each stream task by up to max_us (default 200) microseconds, a fresh seed per repetition', validated((t) => parseJitterUs(t)))
    .option('--explore [seed]', 'schedule explorer (stub mode): the stub and the harness choose the order of every synchronization point, one PCT schedule per round from this seed (default: a fresh seed per scenario); a failure prints its replay command (docs/guide/soak-rounds.md)', validated((t) => parseExploreSeedOption(t)))
    .option('--explore-depth <d>', 'PCT depth of --explore, 1..8 (default 2): how many ordering constraints a bug may need', validated((t) => parseExploreDepth(t, '--explore-depth')))
    .option('--explore-replay <token>', 'force the one schedule a --explore failure recorded (its ex1.<...> token, or @<file>): one round, in the same order')
    .option('--html [dir]', `write the HTML report (index.html, opens from the file system) to dir (default ${DEFAULT_HTML_DIR})`)
    .action(async (patterns: string[], opts) => {
      checkPatterns(patterns);
      if (opts.explore === true) opts.explore = 'fresh';
      if (opts.html === true) opts.html = DEFAULT_HTML_DIR;
      if (opts.jitter === true) opts.jitter = DEFAULT_JITTER_US;
      if (opts.grep !== undefined && opts.testNamePattern !== undefined) throw new UsageError('give -t or --grep, not both (they are the same option)');
      const config = projectConfig(opts.config); // before the mode: the config may set it
      if (opts.list) {
        const specs = path.resolve(opts.specs ?? config.specs ?? DEFAULT_SPECS);
        const listed = listScenarios(specs, patterns, opts.testNamePattern ?? opts.grep, opts.shard);
        process.stdout.write(`${formatScenarioList(listed, null)}\n`);
        if (listed.length === 0) throw new UsageError(noSpecsMatched(patterns, specs).replace('spec files', 'scenarios'));
        return;
      }
      setExitCode(
        await runCommand(patterns, {
          ...opts,
          testNamePattern: opts.testNamePattern ?? opts.grep,
          specs: opts.specs ?? config.specs ?? DEFAULT_SPECS,
          junit: opts.junit ?? config.reporters?.junit ?? DEFAULT_JUNIT,
          mode: chosenMode(opts.mode),
        }),
      );
    });

  program
    .command('audit')
    .description('run each scenario once per stub mutant and print which mutants it kills; a scenario that survives wait-noop does not test its waits')
    .argument('[patterns...]', 'only spec files whose path matches one of these regular expressions')
    .option('--specs <dir>', 'folder of *.spec.ts files to audit (default: as for run)')
    .option('--config <file>', 'config file (default: cann-harness.config.ts or .js in the current directory)')
    .option('--mutants <list>', 'comma-separated mutants to apply (default: all)', validated((t) => parseMutantList(t, '--mutants')))
    .option('-t, --test-name-pattern <regex>', 'only scenarios whose name matches this regular expression')
    .option('--strict', 'exit 1 when a scenario survives wait-noop without declaring it (audit: { expectSurvive, reason })')
    .option('--json', 'print the table as JSON on stdout (progress goes to stderr)')
    .option('--html [dir]', `also write the matrix as an HTML page to dir (default ${DEFAULT_AUDIT_HTML_DIR})`)
    .action(async (patterns: string[], opts) => {
      if (opts.html === true) opts.html = DEFAULT_AUDIT_HTML_DIR;
      checkPatterns(patterns);
      const config = projectConfig(opts.config);
      setExitCode(await auditCommand(patterns, { ...opts, specs: opts.specs ?? config.specs ?? DEFAULT_SPECS }));
    });

  program
    .command('setup')
    .description('build the CPU stub (needs gcc and make) into the per-user cache; a source checkout uses `npm run build:stub`')
    .option('--force', 'rebuild even if this version is built already')
    .action((opts: { force?: boolean }) => {
      setExitCode(setupCommand(opts));
    });

  program
    .command('trace')
    .description('build trace.json (a timeline for ui.perfetto.dev) from a kept scenario directory')
    .argument('<dir>', 'the scenario directory (printed as "scenario directory kept at ...")')
    .action((dir: string) => {
      process.stdout.write(`${traceCommand(dir)}\n`);
    });

  program
    .command('show-report')
    .description(`serve an HTML report on 127.0.0.1 and print its URL (Ctrl-C stops it)`)
    .argument('[dir]', `the report's folder (default ${DEFAULT_HTML_DIR})`, DEFAULT_HTML_DIR)
    .option('--port <n>', 'port to listen on (default: any free port)', validated((t) => parsePort(t)))
    .action(async (dir: string, opts: { port?: number }) => {
      await showReport(dir, opts.port);
    });

  program
    .command('flags')
    .description("compiler and linker flags for a native role's program, pkg-config style, for the active mode (the stub's or CANN's headers and libascendcl.so)")
    .addOption(modeOption())
    .option('--cflags', 'only the compiler flags (-I...)')
    .option('--libs', 'only the linker flags (-L... -lascendcl)')
    .option('--harness', "the harness's C API for native roles (cannharness.h, -lcannharness): included by default, this option is kept for older Makefiles")
    .option('--no-harness', "leave out the harness's C API (cannharness.h, -lcannharness)")
    .action((opts: { mode?: Mode; cflags?: boolean; libs?: boolean; harness?: boolean }) => {
      process.stdout.write(`${flagsCommand({ ...opts, mode: chosenMode(opts.mode) })}\n`);
    });

  program
    .command('conformance')
    .description("run the C conformance cases against a libascendcl.so (the active mode's, or --library): PASS/FAIL per case with the call, expected, actual and CANN source line; exit 1 on any difference")
    .argument('[filter]', 'only the cases whose name contains this (or one of these comma-separated parts)')
    .addOption(modeOption())
    .option('--library <path>', "the libascendcl.so to check (default: the active mode's; real CANN: $ASCEND_HOME_PATH/lib64/libascendcl.so)")
    .option('--jobs <n>', 'cases run side by side (default: the number of CPUs)', validated((t) => parseJobs(t)))
    .option('--json <file>', 'also write the results as JSON to this file')
    .action(async (filter: string | undefined, opts: { mode?: Mode; library?: string; jobs?: number; json?: string }) => {
      const report = await conformanceCommand({ ...opts, filter, modeGiven: opts.mode !== undefined, mode: opts.library ? 'auto' : chosenMode(opts.mode) });
      setExitCode(report.exitCode);
    });

  program
    .command('doctor')
    .description('print the mode, library (and why), device count, IPC support and versions')
    .addOption(modeOption())
    .option('--json', 'print the report as JSON')
    .action(async (opts: { mode?: Mode; json?: boolean }) => {
      const report = await collectDoctorReport(chosenMode(opts.mode));
      process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatDoctorReport(report)}\n`);
      setExitCode(report.probe.ok && report.ipcSupported ? 0 : 1);
    });

  return program;
}

export async function main(argv: string[] = process.argv): Promise<number> {
  let exitCode = 0;
  const program = buildProgram((c) => (exitCode = c));
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      // commander already printed the message (and help, when asked for); keep its code.
      return e.exitCode === 0 ? 0 : 2;
    }
    if (e instanceof UsageError) {
      process.stderr.write(`${chalk.red('error:')} ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`${chalk.red('cann-harness failed:')} ${(e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}

function parsePort(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65535) throw new Error(`--port ${text}: give a port number, 0..65535`);
  return n;
}

/** Serves the report until SIGINT or SIGTERM, then closes the server (and its open connections). */
async function showReport(dir: string, port: number | undefined): Promise<void> {
  let served: Awaited<ReturnType<typeof serveReport>>;
  try {
    served = await serveReport(dir, port);
  } catch (e) {
    if (e instanceof NoReportError) throw new UsageError(e.message);
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError(`--port ${port}: already in use; give another, or none for any free port`);
    throw e;
  }
  process.stdout.write(`serving ${path.resolve(dir)} at ${served.url} (Ctrl-C stops it)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      served.server.closeAllConnections();
      served.server.close(() => resolve());
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
