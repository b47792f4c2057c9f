/**
 * The order Jest starts the repository's test files in (jest.config.ts, testSequencer): Jest's own
 * order (slowest first, from the timings of earlier runs), except that the C conformance suite, the
 * longest file, starts first even on a fresh clone, when Jest has no timings yet. Plain JavaScript:
 * Jest loads a sequencer without its transform.
 */
'use strict';
const TestSequencer = require('@jest/test-sequencer').default;

const FIRST = /\/test\/native\/conformance\.test\.ts$/;

class RepositorySequencer extends TestSequencer {
  sort(tests) {
    const first = (list) => [...list.filter((t) => FIRST.test(t.path)), ...list.filter((t) => !FIRST.test(t.path))];
    const sorted = super.sort(tests);
    return Array.isArray(sorted) ? first(sorted) : sorted.then(first);
  }
}

module.exports = RepositorySequencer;
