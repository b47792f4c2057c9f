/** The summary reporter's lines: counts in words, durations on passed and failed lines. */
import SummaryReporter, { count, formatCase } from '../../src/report/summary-reporter';

// eslint-disable-next-line no-control-regex -- ANSI colour codes start with ESC
const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

test('counts say "1 scenario" and "2 scenarios"', () => {
  expect(count(1, 'scenario')).toBe('1 scenario');
  expect(count(0, 'spec file')).toBe('0 spec files');
  expect(count(2, 'scenario')).toBe('2 scenarios');
});

test('failed lines show their duration, like passed ones', () => {
  expect(plain(formatCase({ status: 'failed', title: 'racy', duration: 1234 }, 'a.spec.ts'))).toBe('✗ a.spec.ts › racy 1.2 s');
  expect(plain(formatCase({ status: 'passed', title: 'ok', duration: 500 }, 'a.spec.ts'))).toBe('✓ a.spec.ts › ok 0.5 s');
});

test('the summary of a one-scenario run is singular', () => {
  let out = '';
  const reporter = new SummaryReporter({ rootDir: '/' }, { write: (t) => (out += t) });
  reporter.onRunComplete(undefined, {
    numPassedTests: 1,
    numPendingTests: 0,
    numFailedTests: 0,
    numRuntimeErrorTestSuites: 0,
    numTotalTests: 1,
    numTotalTestSuites: 1,
    startTime: Date.now(),
  } as Parameters<SummaryReporter['onRunComplete']>[1]);
  expect(plain(out)).toMatch(/PASS {2}1 passed \(1 scenario in 1 spec file, \d+\.\d s\)/);
});
