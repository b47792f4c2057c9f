/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  roots: ['<rootDir>/test', '<rootDir>/specs'],
  testMatch: ['**/*.test.ts', '**/*.spec.ts'],
  // Fixture specs are run by test/jest/*.test.ts in a nested Jest, never directly.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/jest/fixtures/'],
  // Probe the devices once (in a throwaway child) before any spec file is collected.
  globalSetup: '<rootDir>/src/jest/global-setup.ts',
  globalTeardown: '<rootDir>/src/jest/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/src/jest/setup.ts'],
  testTimeout: 60_000,
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
