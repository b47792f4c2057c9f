/**
 * JUnit XML for `cann-harness run` and the preset's `reporters.junit`: jest-junit's report, with
 *  - spec files that failed to load reported as errors (jest-junit's reportTestSuiteErrors), and
 *  - the reason of a skip as `<skipped message="needs 9 devices, 8 available"/>`, taken from the
 *    test title's `[skip: ...]` (jest-junit writes a bare `<skipped/>`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const JestJUnit = require('jest-junit') as new (globalConfig: unknown, options: Record<string, string>) => {
  onTestResult(...args: unknown[]): void;
  onRunComplete(contexts: unknown, results: unknown): Promise<void>;
};

const SKIPPED_CASE = /(<testcase\b[^>]*?\bname="([^"]*?) \[skip: ([^\]"]*)\]"[^>]*>\s*)<skipped\/>/g;

/** Adds each skip's reason (from its title) as the message of its <skipped/> element. */
export function addSkipMessages(xml: string): string {
  return xml.replace(SKIPPED_CASE, (_all, head: string, _name: string, reason: string) => `${head}<skipped message="${reason}"/>`);
}

export default class JunitReporter {
  private readonly inner: InstanceType<typeof JestJUnit>;
  private readonly file: string;

  constructor(globalConfig: { rootDir: string }, options: Record<string, string>) {
    this.inner = new JestJUnit(globalConfig, { ...options, reportTestSuiteErrors: 'true' });
    this.file = path.resolve(options.outputDirectory ?? '.', options.outputName ?? 'junit.xml'); // as jest-junit does
  }

  onTestResult(...args: unknown[]): void {
    this.inner.onTestResult(...args);
  }

  async onRunComplete(contexts: unknown, results: unknown): Promise<void> {
    await this.inner.onRunComplete(contexts, results);
    writeFileSync(this.file, addSkipMessages(readFileSync(this.file, 'utf8')));
  }
}
