// `jest --config bench/kill-specs/jest.config.js` (bench/runner-kill.bench.ts): this folder only, with
// the harness's global setup (the start step under measure), setup and TypeScript transform, as the
// preset gives them, from the sources.
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');

module.exports = {
  rootDir: root,
  roots: ['<rootDir>/bench/kill-specs'],
  testMatch: ['**/*.spec.ts'],
  testEnvironment: 'node',
  transform: { '^.+\\.tsx?$': '<rootDir>/src/ts-hook/typescript-transform.js' },
  globalSetup: '<rootDir>/src/jest/global-setup.ts',
  globalTeardown: '<rootDir>/src/jest/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/src/jest/setup.ts'],
};
