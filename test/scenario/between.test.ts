/** result.between(): per-role intervals between marks, in ms. */
import { marksBetween } from '../../src/scenario/marks';
import { measuredIntervals, toScenarioResult } from '../../src/scenario/run';
import type { RunResult } from '../../src/orchestrator';

const ms = (n: number) => String(1_000_000_000n + BigInt(Math.round(n * 1e6)));
const roles = [
  { name: 'producer', group: 'producer', marks: [{ name: 'release', tNs: ms(10) }] },
  { name: 'consumer-0', group: 'consumer', marks: [{ name: 'after-wait', tNs: ms(10.25) }, { name: 'after-wait', tNs: ms(30) }] },
  { name: 'consumer-1', group: 'consumer', marks: [{ name: 'after-wait', tNs: ms(12.5) }] },
];

test('one interval per role of the group, from the one start mark to each role\'s first end mark', () => {
  expect(marksBetween({ roles }, 'producer:release', 'consumer:after-wait')).toEqual([
    { role: 'consumer-0', ms: 0.25 },
    { role: 'consumer-1', ms: 2.5 },
  ]);
});

test('an ambiguous start or a missing end mark is an error naming the selector', () => {
  expect(() => marksBetween({ roles }, 'consumer:after-wait', 'producer:release')).toThrow('"consumer:after-wait" must select exactly one mark, found 3');
  expect(() => marksBetween({ roles }, 'producer:release', 'consumer:nope')).toThrow('no role has the mark "consumer:nope"');
});

test('a scenario result offers it as result.between(), outside its JSON', () => {
  const run = { ok: true, dir: '/x', kept: false, timedOut: false, durationMs: 1, summary: '', roles: roles.map((r) => ({ ...r, group: undefined, status: 'passed' })) } as unknown as RunResult;
  const result = toScenarioResult({ name: 's', roles: roles.map((r) => ({ name: r.name, group: r.group })) as never }, run);
  expect(result.between('producer:release', 'consumer-1:after-wait')).toEqual([{ role: 'consumer-1', ms: 2.5 }]);
  expect(Object.keys(JSON.parse(JSON.stringify(result)))).not.toContain('between');
});

test('marks in a result carry tMs: ms since the run started (startNs), next to the exact tNs', () => {
  const run = { ok: true, dir: '/x', kept: false, timedOut: false, durationMs: 1, summary: '', startNs: ms(4), roles: roles.map((r) => ({ ...r, status: 'passed' })) } as unknown as RunResult;
  const result = toScenarioResult({ name: 's', roles: roles.map((r) => ({ name: r.name, group: r.group })) as never }, run);
  expect(result.role('producer').marks).toEqual([{ name: 'release', tNs: ms(10), tMs: 6 }]);
  expect(result.role('consumer-0').marks.map((m) => m.tMs)).toEqual([6.25, 26]);
  expect(JSON.parse(JSON.stringify(result)).roles[2].marks[0]).toEqual({ name: 'after-wait', tNs: ms(12.5), tMs: 8.5 });
});

test('every result.between() asked is remembered for the run\'s interval percentiles', () => {
  const run = { ok: true, dir: '/x', kept: false, timedOut: false, durationMs: 1, summary: '', startNs: ms(0), roles: roles.map((r) => ({ ...r, status: 'passed' })) } as unknown as RunResult;
  const result = toScenarioResult({ name: 's', roles: roles.map((r) => ({ name: r.name, group: r.group })) as never }, run);
  expect(measuredIntervals(result)).toEqual([]);
  result.between('producer:release', 'consumer:after-wait')[0].ms = 99; // the caller's copy
  expect(measuredIntervals(result)).toEqual([
    { from: 'producer:release', to: 'consumer:after-wait', intervals: [{ role: 'consumer-0', ms: 0.25 }, { role: 'consumer-1', ms: 2.5 }] },
  ]);
});
