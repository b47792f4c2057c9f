/**
 * JUnit XML for `cann-harness run` and the preset's `reporters.junit`: jest-junit's report, with
 *  - spec files that failed to load reported as errors (jest-junit's reportTestSuiteErrors), and
 *  - the reason of a skip as `<skipped message="needs 9 devices, 8 available"/>`, taken from the
 *    test title's `[skip: ...]` (jest-junit writes a bare `<skipped/>`).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { replaceFile } from './html/folder';

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

/**
 * jest-junit writes with writeFileSync, which writes through a link planted at the file's name (say
 * --junit /tmp/junit.xml). So it writes a draft under a fresh, unguessable name beside the file, and
 * the final file is renamed into place from a file created exclusively: a link at the name is
 * replaced, never written through.
 */
export default class JunitReporter {
  private readonly inner: InstanceType<typeof JestJUnit>;
  private readonly file: string;
  private readonly draft: string;

  constructor(globalConfig: { rootDir: string }, options: Record<string, string>) {
    this.file = path.resolve(options.outputDirectory ?? '.', options.outputName ?? 'junit.xml'); // as jest-junit does
    this.draft = path.join(path.dirname(this.file), `.${path.basename(this.file)}.${process.pid}.${randomBytes(6).toString('hex')}.draft`);
    this.inner = new JestJUnit(globalConfig, {
      ...options,
      outputDirectory: path.dirname(this.draft),
      outputName: path.basename(this.draft),
      reportTestSuiteErrors: 'true',
    });
  }

  onTestResult(...args: unknown[]): void {
    this.inner.onTestResult(...args);
  }

  async onRunComplete(contexts: unknown, results: unknown): Promise<void> {
    try {
      await this.inner.onRunComplete(contexts, results);
      replaceFile(path.dirname(this.file), path.basename(this.file), [addSkipMessages(readFileSync(this.draft, 'utf8'))]);
    } finally {
      rmSync(this.draft, { force: true });
    }
  }
}
