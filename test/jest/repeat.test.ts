/** --repeat-each / --jitter values, the repetitions handed to Jest workers, flaky reports and replay commands. */
import { parseJitterUs, parseRepeatEach, repetitionsFromEnv, replayCommand } from '../../src/jest/repeat';
import { formatRepetitionReport, repetitionReport } from '../../src/cli/repetitions';

test('bad repetition counts and jitter bounds are refused with the fix', () => {
  expect(() => parseRepeatEach('0')).toThrow('--repeat-each "0" is invalid: give how many times to run each scenario, a whole number from 1 (e.g. --repeat-each 20)');
  for (const bad of ['-1', '1.5', 'x', '']) expect(() => parseRepeatEach(bad)).toThrow(/is invalid/);
  expect(parseRepeatEach('100')).toBe(100);
  expect(() => parseJitterUs('0')).toThrow('--jitter "0" is invalid: give the largest delay in microseconds, a whole number from 1 to 1000000');
  expect(() => parseJitterUs('specs/x')).toThrow(/put patterns first/);
  expect(() => parseJitterUs('1000001')).toThrow(/is invalid/);
  expect(parseJitterUs('200')).toBe(200);
});

test('repetitions come from the environment the CLI sets for its workers', () => {
  expect(repetitionsFromEnv({})).toEqual([{ index: 1, total: 1, jitterMaxUs: 0 }]);
  expect(repetitionsFromEnv({ CANN_HARNESS_REPEAT_EACH: '3', CANN_HARNESS_JITTER_US: '50' }).map((r) => [r.index, r.total, r.jitterMaxUs])).toEqual([
    [1, 3, 50],
    [2, 3, 50],
    [3, 3, 50],
  ]);
  expect(() => repetitionsFromEnv({ CANN_HARNESS_REPEAT_EACH: '0' })).toThrow(/CANN_HARNESS_REPEAT_EACH "0" is invalid/);
});

test('the replay command names the spec file, the exact scenario and the jitter', () => {
  expect(replayCommand('/repo/specs/a.spec.ts', "it's (1..3) done", '42:200', '/repo')).toBe(
    `ACL_STUB_JITTER=42:200 npx cann-harness run --specs specs 'a\\.spec\\.ts$' -t '^it'\\''s \\(1\\.\\.3\\) done$'`,
  );
});

test('scenarios failing under some seeds only are reported flaky, with those seeds and a replay command', () => {
  const tc = (title: string, status: 'passed' | 'failed') => ({ title, status });
  const results = {
    testResults: [
      {
        testFilePath: `${process.cwd()}/specs/a.spec.ts`,
        testResults: [
          tc('steady [repeat 1/3, jitter seed 11]', 'passed'),
          tc('steady [repeat 2/3, jitter seed 12]', 'passed'),
          tc('steady [repeat 3/3, jitter seed 13]', 'passed'),
          tc('racy [repeat 1/3, jitter seed 21]', 'passed'),
          tc('racy [repeat 2/3, jitter seed 22]', 'failed'),
          tc('racy [repeat 3/3, jitter seed 23]', 'passed'),
          tc('broken [repeat 1/3, jitter seed 31]', 'failed'),
          tc('broken [repeat 2/3, jitter seed 32]', 'failed'),
          tc('broken [repeat 3/3, jitter seed 33]', 'failed'),
        ],
      },
    ],
  };
  const rows = repetitionReport(results as never);
  expect(rows.map((r) => [r.scenario, r.runs, r.failed, r.failedSeeds])).toEqual([
    ['steady', 3, 0, []],
    ['racy', 3, 1, [22]],
    ['broken', 3, 3, [31, 32, 33]],
  ]);
  const text = formatRepetitionReport(rows, 200);
  expect(text).toContain('FLAKY: failed 1 of 3: specs/a.spec.ts › racy');
  expect(text).toContain('failing seeds: 22');
  expect(text).toContain("replay the first: ACL_STUB_JITTER=22:200 npx cann-harness run --specs specs 'a\\.spec\\.ts$' -t '^racy$'");
  expect(text).toContain('FAILED in every repetition: specs/a.spec.ts › broken');
});
