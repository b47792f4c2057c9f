/**
 * The Jest preset (`preset: 'cann-ipc-harness'`, via jest-preset.js at the package root) and the
 * base of `cann-harness run`'s Jest configuration: one place for both.
 *
 * Paths are absolute and follow this file's own extension, so the same code serves the compiled
 * package (.js) and a source checkout (.ts). The transform is plain JavaScript
 * (harness/typescript-transform.js) in both: the one the device processes use for spec files.
 */
import * as path from 'node:path';

const OWN_EXTENSION = path.extname(__filename);
const SRC_DIR = path.resolve(__dirname, '..');
const HARNESS_DIR = path.resolve(SRC_DIR, '..', 'harness');

const srcFile = (relative: string): string => path.join(SRC_DIR, `${relative}${OWN_EXTENSION}`);

export const TYPESCRIPT_TRANSFORM = path.join(HARNESS_DIR, 'typescript-transform.js');
export const SUMMARY_REPORTER = srcFile('report/summary-reporter');

export interface HarnessPreset {
  testEnvironment: string;
  testMatch: string[];
  transform: Record<string, string>;
  globalSetup: string;
  globalTeardown: string;
  setupFilesAfterEnv: string[];
  testTimeout: number;
}

export function harnessPreset(): HarnessPreset {
  return {
    testEnvironment: 'node',
    testMatch: ['**/*.spec.ts'],
    transform: { '^.+\\.tsx?$': TYPESCRIPT_TRANSFORM },
    // Probe the devices once (in a throwaway child) before any spec file is collected.
    globalSetup: srcFile('jest/global-setup'),
    globalTeardown: srcFile('jest/global-teardown'),
    // Registers the matchers (toHaveAllRolesSucceeded, toHaveMarkOrder).
    setupFilesAfterEnv: [srcFile('jest/setup')],
    testTimeout: 60_000,
  };
}
