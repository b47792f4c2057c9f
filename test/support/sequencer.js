/**
 * The order Jest starts the repository's test files in (jest.config.ts, testSequencer): Jest's own
 * order (slowest first, from the timings of earlier runs), except that the C conformance suite (it
 * holds the stub gate exclusively, see ./stub-gate.ts) starts first, next to the static
 * checks that never touch the stub (STUB_FREE): the other worker has work while it runs, instead
 * of waiting for it. Plain JavaScript: Jest loads a sequencer without its transform.
 */
'use strict';
const TestSequencer = require('@jest/test-sequencer').default;

/** Test files that never start a stub process (static checks): they do not take the gate. */
const STUB_FREE = /\/test\/architecture\/[^/]+\.test\.ts$/;
/** The file that holds the gate exclusively and starts first (the longest of them, beside the static checks). */
const FIRST = /\/test\/native\/conformance\.test\.ts$/;
/**
 * The files that hold the gate exclusively: the conformance suite, and those whose checks say "this
 * run left nothing in /dev/shm" (leakedShmOf): another file's aclInit would reclaim such a leak
 * before the check looks, and the check would pass with the leak.
 */
const EXCLUSIVE =
  /\/test\/(native\/conformance|orchestrator\/(acl-roles|run-roles|wait-graph)|jest\/interrupt|trace\/happens-before)\.test\.ts$/;

class RepositorySequencer extends TestSequencer {
  sort(tests) {
    const rank = (t) => (FIRST.test(t.path) ? 0 : STUB_FREE.test(t.path) ? 1 : 2);
    const byRank = (list) => list.map((t, i) => ({ t, i })).sort((a, b) => rank(a.t) - rank(b.t) || a.i - b.i).map((x) => x.t);
    const sorted = super.sort(tests);
    return Array.isArray(sorted) ? byRank(sorted) : sorted.then(byRank);
  }
}

module.exports = RepositorySequencer;
module.exports.STUB_FREE = STUB_FREE;
module.exports.EXCLUSIVE = EXCLUSIVE;
