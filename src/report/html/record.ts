/**
 * What a Jest worker keeps of one scenario run for the HTML report: one JSON file per run in the
 * folder named by CANN_HARNESS_HTML_DATA (set by the HTML reporter in Jest's main process, which
 * the workers inherit). The reporter pairs each file with its Jest test by spec file and title.
 * Light on purpose: only `fs`, loaded in every worker; the page writer is loaded by the reporter.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunResult } from '../../orchestrator';

/** A soak-rounds run's rounds (the scenario layer's RoundsSummary, which src/report may not import). */
export interface RecordedRounds {
  total: number;
  done: number;
  failedRound: number | null;
}
import { ENV, envOn } from '../../env';

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
    schema: HTML_RECORD_SCHEMA,
    run: {
      ...run,
      roles: run.roles.map(({ value: _value, ...r }) => r),
      traces: keepTraces ? run.traces : undefined,
    },
    writtenAt: Date.now(),
  };
  // A fresh name per run, created exclusively: parallel workers never write the same file.
  writeFileSync(path.join(dir, `${process.pid}-${randomBytes(6).toString('hex')}.json`), JSON.stringify(record), { flag: 'wx' });
}
