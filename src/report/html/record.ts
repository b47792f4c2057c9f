/**
 * What a Jest worker keeps of one scenario run for the HTML report: one JSON file per run in the
 * folder named by CANN_HARNESS_HTML_DATA (set by the HTML reporter in Jest's main process, which
 * the workers inherit). The reporter pairs each file with its Jest test by spec file and title.
 * Light on purpose: `fs` and the output bounds, loaded in every worker; the page writer is loaded by
 * the reporter. Role output and messages are bounded here (head and tail), so no record, page or
 * reporter holds more than a few MiB whatever the roles print.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RoleError, RunResult } from '../../orchestrator';
import { headAndTail, restOfLog } from '../../orchestrator/output-capture';
import { ENV, envOn } from '../../env';

/** A soak-rounds run's rounds (the scenario layer's RoundsSummary, which src/report may not import). */
export interface RecordedRounds {
  total: number;
  done: number;
  failedRound: number | null;
}

export const HTML_RECORD_SCHEMA = 'cann-harness/html-record@1';

/** One run of one scenario (one Jest test invocation: retries add more). */
export interface ScenarioRecord {
  schema: typeof HTML_RECORD_SCHEMA;
  specFile: string;
  /** The Jest test's title (the scenario name, with repetition and seed labels). */
  title: string;
  scenario: string;
  mode: string;
  /** ACL_STUB_JITTER of this run (`seed:max_us`), or null. */
  jitter: string | null;
  /** The schedule explorer's line for this run (`explore seed S depth D, round R ...` and its notes), or null. */
  explore?: string | null;
  /** The command that runs this scenario again (with its seed when it had one). */
  replay: string;
  /** Set when verify() (or a declared interval) failed after every role passed. */
  verifyError?: string;
  /** A soak-rounds run: its rounds (the timeline shows the failing round, else the last). */
  rounds?: RecordedRounds;
  /** It passed with every wait a no-op (the terminal's "all waits were no-ops"): a pass that proves nothing. */
  noopWaits?: number;
  /** The run without role values (user data, maybe large) and, for a passing run without --trace, without traces. */
  run: Omit<RunResult, 'summary'>;
  /** When this record was written (ms since the epoch): orders retries. */
  writtenAt: number;
}

/** The folder of this run's records, or null when no HTML report is being written. */
export function htmlDataDir(env: NodeJS.ProcessEnv = process.env): string | null {
  return env[ENV.htmlData] || null;
}

/** Traces are worth collecting for the report: HTML asked for (stub mode writes them; real mode none). */
export function htmlWantsTraces(env: NodeJS.ProcessEnv = process.env): boolean {
  return htmlDataDir(env) !== null;
}

/**
 * What the report keeps of each stream of each role: its first and last characters (an HTML page of
 * 8 roles then holds at most 8 x 2 x 64 KiB of output, escaped at most 6 times: ~6 MiB). The whole
 * stream is in the kept scenario directory (logs/<role>.<stream>.log, written while the role ran).
 */
export const REPORT_LOG_HEAD_CHARS = 16 * 1024;
export const REPORT_LOG_TAIL_CHARS = 48 * 1024;
/** An error message or stack, or verify()'s message, keeps this many characters at each end. */
const REPORT_MESSAGE_END_CHARS = 8 * 1024;

type RunWhere = Pick<RunResult, 'dir' | 'kept' | 'postMortemProblems'>;

function boundedLog(text: string, run: RunWhere, role: string, stream: 'stdout' | 'stderr'): string {
  return headAndTail(text, REPORT_LOG_HEAD_CHARS, REPORT_LOG_TAIL_CHARS, restOfLog(run, role, stream));
}

function boundedMessage(text: string, where: string): string {
  return headAndTail(text, REPORT_MESSAGE_END_CHARS, REPORT_MESSAGE_END_CHARS, where);
}

function boundedError(e: RoleError, run: Pick<RunResult, 'dir' | 'kept'>): RoleError {
  const where = run.kept
    ? `the whole text is in ${path.join(run.dir, 'result.json')}`
    : 'the scenario directory was removed (--keep keeps it)';
  return { ...e, message: boundedMessage(e.message, where), stack: e.stack === undefined ? undefined : boundedMessage(e.stack, where) };
}

export function recordScenarioRun(
  entry: Omit<ScenarioRecord, 'schema' | 'run' | 'writtenAt'> & { run: RunResult & { rounds?: RecordedRounds } },
  env: NodeJS.ProcessEnv = process.env,
): void {
  const dir = htmlDataDir(env);
  if (!dir) return;
  const { summary: _summary, rounds: _rounds, ...run } = entry.run;
  const keepTraces = !run.ok || entry.verifyError !== undefined || envOn(ENV.trace, env);
  const record: ScenarioRecord = {
    ...entry,
    verifyError:
      entry.verifyError === undefined
        ? undefined
        : boundedMessage(entry.verifyError, "the whole message is the test's failure message (terminal, JUnit XML)"),
    schema: HTML_RECORD_SCHEMA,
    run: {
      ...run,
      roles: run.roles.map(({ value: _value, ...r }) => ({
        ...r,
        stdout: boundedLog(r.stdout, run, r.name, 'stdout'),
        stderr: boundedLog(r.stderr, run, r.name, 'stderr'),
        error: r.error && boundedError(r.error, run),
        errorWhileStopping: r.errorWhileStopping && boundedError(r.errorWhileStopping, run),
      })),
      traces: keepTraces ? run.traces : undefined,
    },
    writtenAt: Date.now(),
  };
  // A fresh name per run, created exclusively: parallel workers never write the same file.
  writeFileSync(path.join(dir, `${process.pid}-${randomBytes(6).toString('hex')}.json`), JSON.stringify(record), { flag: 'wx' });
}
