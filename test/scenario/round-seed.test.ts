/** Per-round jitter seeds: a chain, so any round's seed replays the rounds from it on. */
import { nextRoundSeed, roundSeed } from '../../src/scenario/round-seed';
import { roundsOf } from '../../src/jest/rounds';
import { planScenario } from '../../src/scenario/plan';

test('round 1 uses the run seed; later seeds are distinct, in range, and follow from any earlier one', () => {
  expect(roundSeed(42, 1)).toBe(42);
  const seeds = Array.from({ length: 1000 }, (_, i) => roundSeed(42, i + 1));
  expect(new Set(seeds).size).toBe(1000);
  for (const s of seeds) expect(s >= 1 && s < 2 ** 31).toBe(true);
  expect(roundSeed(roundSeed(42, 300), 5)).toBe(roundSeed(42, 304));
  expect(nextRoundSeed(42)).toBe(roundSeed(42, 2));
});

test('CANN_HARNESS_ROUNDS wins over the scenario; the jitter comes from --jitter, else ACL_STUB_JITTER', () => {
  const plan = planScenario('p', { rounds: 5, roles: { a: { device: 0, run: () => 0 } } });
  expect(roundsOf(plan, null, {})).toEqual({ total: 5 });
  expect(roundsOf(plan, null, { CANN_HARNESS_ROUNDS: '100' })).toEqual({ total: 100 });
  expect(roundsOf(plan, '7:200', {})).toEqual({ total: 5, jitter: { seed: 7, maxUs: 200 } });
  expect(roundsOf(plan, null, { ACL_STUB_JITTER: '9:50' })).toEqual({ total: 5, jitter: { seed: 9, maxUs: 50 } });
  const plain = planScenario('q', { roles: { a: { device: 0, run: () => 0 } } });
  expect(roundsOf(plain, '7:200', {})).toBeUndefined();
  expect(() => roundsOf(plan, null, { CANN_HARNESS_ROUNDS: '0' })).toThrow('CANN_HARNESS_ROUNDS must be a whole number of rounds from 1 to 10000000 (got 0)');
});

test('bad rounds and setup declarations are refused with the fix', () => {
  const bad = (decl: object) => () => planScenario('s', decl as never);
  expect(bad({ rounds: 0, roles: { a: { device: 0, run: () => 0 } } })).toThrow('rounds must be a whole number of rounds from 1 to 10000000 (got 0): e.g. rounds: 1000');
  expect(bad({ rounds: 2.5, roles: { a: { device: 0, run: () => 0 } } })).toThrow(/rounds must be a whole number/);
  expect(bad({ roles: { a: { device: 0, run: () => 0, setup: 3 } } })).toThrow('role a: setup must be a function (got number)');
  expect(bad({ roles: { a: { device: 0, thread: () => 0, threads: 2, setup: () => 0 } } })).toThrow('role a: setup needs a run body that uses it');
  expect(bad({ round: 3, roles: { a: { device: 0, run: () => 0 } } })).toThrow('unknown key "round" (did you mean "rounds"?)');
  expect(planScenario('ok', { rounds: 3, roles: { a: { device: 0, run: () => 0, setup: () => 1 } } }).rounds).toBe(3);
});

test('run --rounds: a bad count is refused with the fix', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parseRounds } = require('../../src/cli/rounds-option') as typeof import('../../src/cli/rounds-option');
  expect(parseRounds('10000')).toBe(10_000);
  expect(() => parseRounds('specs/x')).toThrow('--rounds must be a whole number of rounds from 1 to 10000000 (got "specs/x"): e.g. --rounds 10000 (a spec pattern right after --rounds is taken as its value: put patterns first)');
  expect(() => parseRounds('0')).toThrow(/--rounds must be a whole number/);
});
