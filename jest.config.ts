/** @jest-config-loader esbuild-register */
import { availableParallelism } from 'node:os';
import type { Config } from 'jest';
import { basePreset } from './src/jest/preset';

// No test goes to the network, yet Node 20 reads the NODE_EXTRA_CA_CERTS bundle at every start
// (40-70 ms of CPU each on machines that set it, as the CI machines here do), and the suite starts
// about a thousand Node processes (device processes, CLIs, nested Jest): its workers and their
// children run without it (measured: 365 -> 324 s of CPU for the whole suite).
delete process.env.NODE_EXTRA_CA_CERTS;

// The repository's own tests: the harness preset (the one `cann-harness run` and user projects get),
// plus what only this repository needs.
const config: Config = {
  // The preset's transform (esbuild, types stripped): type errors, in test files too, fail
  // test/architecture/lint.test.ts, one type check over the whole project (ts-jest type-checked
  // each file again in each worker: about 1 s of CPU per file).
  ...basePreset(),
  roots: ['<rootDir>/test', '<rootDir>/specs'],
  testMatch: ['**/*.test.ts', '**/*.spec.ts'],
  // Fixture specs are run by test/jest/*.test.ts in a nested Jest and by test/package/*.test.ts
  // through the compiled package, never directly.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/jest/fixtures/', '<rootDir>/test/package/fixtures/'],
  // Test files in parallel. Jest's default (cores - 1) runs them one at a time on a 2-core machine,
  // yet most of the suite's wall time is spent waiting for child processes (device processes,
  // nested Jest and npm sessions, the C cases), not on the CPU: with two files at once the quiet
  // 2-core machine used 0.93 cores on average (221 s CPU in 237 s), so three at once there.
  maxWorkers: Math.max(3, availableParallelism() - 1),
  // Each file's stub processes in a scope of their own (ACL_STUB_SCOPE): files that check /dev/shm
  // for leaks run beside the others (test/support/stub-scope-environment.ts).
  testEnvironment: '<rootDir>/test/support/stub-scope-environment.ts',
  setupFilesAfterEnv: ['<rootDir>/test/support/file-cpu.ts', '<rootDir>/test/support/child-reaper.ts', ...basePreset().setupFilesAfterEnv],
  testSequencer: '<rootDir>/test/support/sequencer.js',
  reporters: [
    'default',
    [
      'jest-junit',
      // One <testsuite> per spec file; a test's name is its title (skip reasons included).
      { outputDirectory: 'reports', outputName: 'junit.xml', suiteNameTemplate: '{filepath}', classNameTemplate: '{filepath}', titleTemplate: '{title}' },
    ],
  ],
};

export default config;
