/**
 * The HTML reporter: `reporters: ['default', 'cann-ipc-harness/html']` in a Jest config (options:
 * `['cann-ipc-harness/html', { outputFolder: 'reports/html' }]`), and `cann-harness run --html`.
 *
 * Jest's main process builds its reporters before it starts any worker: the constructor makes a
 * private folder for this run's scenario records and names it in CANN_HARNESS_HTML_DATA, which the
 * workers inherit (record.ts writes one file per scenario run there). At the end the records are
 * paired with Jest's results and the pages written (the writer is loaded only then), the folder
 * removed, and the report's path printed.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { AggregatedResult, Test, TestResult } from '@jest/reporters';
import { ENV } from '../../env';
import { makeOwnedTempDir } from '../../orchestrator/owned-temp';
import { checkReportFolder } from './folder';
import type { CaseResult, CaseStatus } from './model';
import { HTML_RECORD_SCHEMA, type ScenarioRecord } from './record';

export const DEFAULT_HTML_DIR = 'reports/html';

export interface HtmlReporterOptions {
  /** Where to write the report (default reports/html, relative to the working directory). */
  outputFolder?: string;
  /** The command that reruns this run, shown on the index (default: this process's command line). */
  rerun?: string;
  /** Write the closing line somewhere else than stdout (tests). */
  write?: (text: string) => void;
}

const SKIP_REASON = /\s*\[skip: ([^\]]*)\]$/;

export default class HtmlReporter {
  private readonly dir: string;
  /** How the folder is named in errors. */
  private readonly option: string;
  private readonly dataDir: string;
  private readonly rootDir: string;
  private readonly cases: CaseResult[] = [];
  private readonly loadErrors: { file: string; message: string }[] = [];
  private readonly previousDataEnv: string | undefined;

  constructor(globalConfig: { rootDir: string }, private readonly options: HtmlReporterOptions = {}) {
    this.rootDir = globalConfig.rootDir;
    this.dir = path.resolve(options.outputFolder ?? DEFAULT_HTML_DIR);
    this.option = `the HTML report's folder ${path.relative(process.cwd(), this.dir) || '.'}`;
    // Before any test runs: a folder that is not ours (someone's files, a link, a file) is refused.
    checkReportFolder(this.dir, this.option);
    // Made exclusively, with a fresh name: nobody else's files end up in the report.
    // Named after this process: a SIGKILLed run's is removed by the next start (owned-temp.ts).
    this.dataDir = makeOwnedTempDir('html');
    this.previousDataEnv = process.env[ENV.htmlData];
    process.env[ENV.htmlData] = this.dataDir;
    // Jest may end without onRunComplete (a failed global setup): the folder goes anyway.
    process.once('exit', this.removeData);
  }

  private readonly removeData = (): void => {
    rmSync(this.dataDir, { recursive: true, force: true });
  };

  onTestResult(test: Test, result: TestResult): void {
    const file = path.relative(this.rootDir, test.path) || test.path;
    if (result.testExecError) {
      this.loadErrors.push({ file, message: result.testExecError.message || String(result.testExecError) });
      return;
    }
    for (const tc of result.testResults) {
      const invocations = tc.invocations ?? 1;
      const skipped = tc.status === 'pending' || tc.status === 'skipped' || tc.status === 'todo' || tc.status === 'disabled';
      const status: CaseStatus = skipped ? 'skipped' : tc.status === 'failed' ? 'failed' : invocations > 1 ? 'flaky' : 'passed';
      this.cases.push({
        specFile: test.path,
        file,
        title: tc.title,
        status,
        durationMs: tc.duration ?? 0,
        attempts: invocations,
        skipReason: skipped ? (SKIP_REASON.exec(tc.title)?.[1] ?? 'skipped in the spec') : undefined,
        failureMessages: tc.failureMessages,
      });
    }
  }

  onRunComplete(_contexts: unknown, results: AggregatedResult): void {
    try {
      const records = readRecords(this.dataDir);
      // Lazily: the writer and the trace readers are loaded only once, at the end.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { buildModels } = require('./model') as typeof import('./model');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { writeHtmlReport } = require('./write') as typeof import('./write');
      const probe = readProbe();
      const { index, scenarios } = buildModels(this.cases, records, {
        mode: probe?.mode ?? records[0]?.mode ?? 'unknown',
        library: probe?.library ?? 'unknown',
        devices: probe?.deviceCount ?? null,
        durationMs: Date.now() - results.startTime,
        startedAt: results.startTime,
        rerun: this.options.rerun ?? defaultRerun(),
        loadErrors: this.loadErrors,
      });
      const file = writeHtmlReport(this.dir, index, scenarios, this.option);
      const shown = path.relative(process.cwd(), file) || file;
      (this.options.write ?? ((t) => process.stdout.write(t)))(`HTML report: ${shown} (open it in a browser, or: npx cann-harness show-report ${path.relative(process.cwd(), this.dir) || '.'})\n`);
    } finally {
      this.removeData();
      process.off('exit', this.removeData);
      if (this.previousDataEnv === undefined) delete process.env[ENV.htmlData];
      else process.env[ENV.htmlData] = this.previousDataEnv;
    }
  }
}

function readRecords(dir: string): ScenarioRecord[] {
  const out: ScenarioRecord[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    const record = JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as ScenarioRecord;
    if (record.schema === HTML_RECORD_SCHEMA) out.push(record);
  }
  return out;
}

function readProbe(): { mode: string; library: string; deviceCount: number } | null {
  const raw = process.env[ENV.probe];
  if (!raw) return null;
  try {
    return JSON.parse(raw) as { mode: string; library: string; deviceCount: number };
  } catch {
    return null;
  }
}

/** This run's command line, as a person would type it again. */
function defaultRerun(): string {
  const [, script, ...args] = process.argv;
  const base = path.basename(script ?? '');
  const cmd = base === 'cann-harness.js' || base === 'cann-harness' ? 'npx cann-harness' : base === 'jest' || base === 'jest.js' ? 'npx jest' : `node ${script}`;
  return [cmd, ...args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`))].join(' ');
}
