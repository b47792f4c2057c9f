/**
 * The Jest preset (`preset: 'cann-ipc-harness'`, via jest-preset.js at the package root) and the
 * base of `cann-harness run`'s Jest configuration and of the repository's own jest.config.ts: one place for all three.
 *
 * Paths are absolute and follow this file's own extension, so the same code serves the compiled
 * package (.js) and a source checkout (.ts). The transform is plain JavaScript
 * (src/ts-hook/typescript-transform.js) in both: the one the device processes use for spec files.
 */
import * as path from 'node:path';
import { applyConfig } from '../config';
import { DEFAULT_TIMEOUT_MS, jestTimeoutMs } from '../env/timeout';
import { TYPESCRIPT_TRANSFORM, srcModule as srcFile } from '../paths';

export { TYPESCRIPT_TRANSFORM };
export const SUMMARY_REPORTER = srcFile('report/summary-reporter');
/** jest-junit with skip reasons and load errors (src/report/junit-reporter.ts), by absolute path. */
export const JUNIT_REPORTER = srcFile('report/junit-reporter');
/** The HTML report (src/report/html/reporter.ts), by absolute path; users name it 'cann-ipc-harness/html'. */
export const HTML_REPORTER = srcFile('report/html/reporter');

/**
 * Jest's cache folder: ours, private and checked (src/ts-hook/typescript-transform.js, jestCacheDir),
 * never Jest's default $TMPDIR/jest_<uid>, which anyone on the machine can make first and fill with
 * transforms Jest would run. Throws, naming the folder and the fix, for one others could write to.
 */
export function jestCacheDirectory(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('../ts-hook/typescript-transform.js') as { jestCacheDir(): string }).jestCacheDir();
}

export interface HarnessPreset {
  roots?: string[];
  reporters?: unknown[];
  testEnvironment: string;
  cacheDirectory: string;
  testMatch: string[];
  transform: Record<string, string>;
  globalSetup: string;
  globalTeardown: string;
  setupFilesAfterEnv: string[];
  testTimeout: number;
}

/** The preset alone (`cann-harness run` adds its own roots and reporters). */
export function basePreset(timeoutMs?: number): HarnessPreset {
  return {
    testEnvironment: 'node',
    cacheDirectory: jestCacheDirectory(),
    testMatch: ['**/*.spec.ts'],
    transform: { '^.+\\.tsx?$': TYPESCRIPT_TRANSFORM },
    // Probe the devices once (in a throwaway child) before any spec file is collected.
    globalSetup: srcFile('jest/global-setup'),
    globalTeardown: srcFile('jest/global-teardown'),
    // Registers the matchers (toHaveAllRolesSucceeded, toHaveMarkOrder).
    setupFilesAfterEnv: [srcFile('jest/setup')],
    // Above the scenario deadline, so that the harness (not Jest) reports a hung scenario.
    testTimeout: jestTimeoutMs(timeoutMs ?? DEFAULT_TIMEOUT_MS),
  };
}

/** jest-preset.js: the preset with the project's cann-harness.config.ts applied (read from the cwd). */
export function harnessPreset(dir: string = process.cwd()): HarnessPreset {
  const config = applyConfig(dir);
  const preset = basePreset(config.timeoutMs);
  if (config.specs) preset.roots = [config.specs];
  const junit = config.reporters?.junit;
  if (junit) preset.reporters = ['default', [JUNIT_REPORTER, junitReporterOptions(junit)]];
  return preset;
}

/** jest-junit's options: one <testsuite> per spec file, a test's name is its title (skip reasons included). */
export function junitReporterOptions(file: string): Record<string, string> {
  return { outputDirectory: path.dirname(file), outputName: path.basename(file), suiteNameTemplate: '{filepath}', classNameTemplate: '{filepath}', titleTemplate: '{title}' };
}
