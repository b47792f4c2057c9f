/**
 * The order Jest starts the repository's test files in (jest.config.ts, testSequencer): the longest
 * files first, so that no long file starts last and runs on alone while the other workers are idle.
 * Jest's own order (slowest first) needs the timings of an earlier run, which a fresh clone (CI)
 * does not have; LONGEST names the files that took longest in the measurements of
 * docs/dev/testing.md (a scheduling hint only: a wrong or stale entry costs time, never a result).
 * The other files follow in Jest's order. Plain JavaScript: Jest loads a sequencer without its
 * transform.
 */
'use strict';
const TestSequencer = require('@jest/test-sequencer').default;

const LONGEST = [
  'test/architecture/lint.test.ts',
  'test/package/pack-install.test.ts',
  'test/jest/cli-config.test.ts',
  'test/report/html-browser.test.ts',
  'test/jest/nested-jest.test.ts',
  'test/native/conformance.test.ts',
  'test/jest/cli.test.ts',
  'test/package/device-bundle.test.ts',
  'specs/templates.spec.ts',
  'test/orchestrator/run-roles.test.ts',
];

const rankOf = (t) => {
  const i = LONGEST.findIndex((f) => t.path.endsWith(`/${f}`));
  return i < 0 ? LONGEST.length : i;
};

class RepositorySequencer extends TestSequencer {
  sort(tests) {
    const longestFirst = (list) => list.map((t, i) => ({ t, i })).sort((a, b) => rankOf(a.t) - rankOf(b.t) || a.i - b.i).map((x) => x.t);
    const sorted = super.sort(tests);
    return Array.isArray(sorted) ? longestFirst(sorted) : sorted.then(longestFirst);
  }
}

module.exports = RepositorySequencer;
