import { parseSelector, scenarioMatchers, selectMarks } from '../../src/jest/matchers';

const result = {
  scenario: 'demo',
  roles: [
    { name: 'producer', group: 'producer', status: 'passed', marks: [{ name: 'release', tNs: '1000000' }] },
    { name: 'consumer-0', group: 'consumer', status: 'passed', marks: [{ name: 'after-wait', tNs: '3000000' }] },
    {
      name: 'consumer-1',
      group: 'consumer',
      status: 'passed',
      marks: [
        { name: 'after-wait', tNs: '2000000', thread: 0 },
        { name: 'after-wait', tNs: '4000000', thread: 1 },
      ],
    },
  ],
};

test('toHaveMarkOrder passes when every "after" mark is later than every "before" mark', () => {
  expect(result).toHaveMarkOrder('producer:release', 'consumer:after-wait');
  expect(result).toHaveMarkOrder('producer:release', '*:after-wait');
});

test('toHaveMarkOrder names the offending mark and the times when the order is wrong', () => {
  const r = scenarioMatchers.toHaveMarkOrder.call({} as jest.MatcherContext, result, 'consumer-0:after-wait', 'consumer-1:after-wait');
  expect(r.pass).toBe(false);
  expect(r.message()).toBe(
    'expected every consumer-1:after-wait mark after every consumer-0:after-wait mark, but:\n' +
      '  consumer-1.t0:after-wait at 0.000 ms is not after consumer-0:after-wait at 1.000 ms',
  );
  expect(() => expect(result).toHaveMarkOrder('consumer:after-wait', 'producer:release')).toThrow(/producer:release at 0.000 ms is not after consumer-1.t1:after-wait at 3.000 ms/);
});

test('toHaveMarkOrder fails, listing the marks there are, when a selector matches nothing', () => {
  const r = scenarioMatchers.toHaveMarkOrder.call({} as jest.MatcherContext, result, 'producer:record-done', 'consumer:after-wait');
  expect(r.pass).toBe(false);
  expect(r.message()).toBe('no mark matches "producer:record-done"; marks present: producer:release, consumer-0:after-wait, consumer-1:after-wait');
});

test('selectors: a role name, a group key or *; malformed ones are explained', () => {
  expect(selectMarks(result, 'consumer-1:after-wait')).toHaveLength(2);
  expect(selectMarks(result, 'consumer:after-wait')).toHaveLength(3);
  expect(selectMarks(result, '*:release')).toHaveLength(1);
  expect(parseSelector('a:b:c')).toEqual({ role: 'a', mark: 'b:c' });
  expect(() => parseSelector('release')).toThrow('mark selector "release" must look like "<role>:<mark>"');
});

test('toHaveAllRolesSucceeded passes for all-passed and reports the failed role otherwise', () => {
  expect(result).toHaveAllRolesSucceeded();
  const failed = {
    ...result,
    ok: false,
    dir: '/tmp/d',
    kept: true,
    timedOut: false,
    durationMs: 10,
    roles: [
      { ...result.roles[0], device: 0, pid: 7, status: 'failed', exitCode: 1, signal: null, durationMs: 3, stdout: 'hello\n', stderr: '', error: { message: 'boom' } },
    ],
  };
  const r = scenarioMatchers.toHaveAllRolesSucceeded.call({} as jest.MatcherContext, failed);
  expect(r.pass).toBe(false);
  expect(r.message()).toContain('role producer (device 0, pid 7) failed: exit code 1');
  expect(r.message()).toContain('error: boom');
});
