import { ScenarioDeclarationError, planScenario, replicate } from '../../src/scenario';
import type { ScenarioDeclaration } from '../../src/scenario';

const body = async () => undefined;

function problemsOf(decl: unknown, name: unknown = 'bad'): string[] {
  try {
    planScenario(name, decl as ScenarioDeclaration);
  } catch (e) {
    expect(e).toBeInstanceOf(ScenarioDeclarationError);
    return (e as ScenarioDeclarationError).problems;
  }
  throw new Error('expected planScenario to reject the declaration');
}

describe('planScenario: valid declarations', () => {
  test('expands replicated roles into <key>-<i> with group, index and device', () => {
    const plan = planScenario('fan-out', {
      roles: { producer: { device: 0, run: body }, consumer: replicate(3, (i) => ({ device: i + 1, run: body })) },
    });
    expect(plan.roles.map(({ name, group, index, device }) => ({ name, group, index, device }))).toEqual([
      { name: 'producer', group: 'producer', index: 0, device: 0 },
      { name: 'consumer-0', group: 'consumer', index: 0, device: 1 },
      { name: 'consumer-1', group: 'consumer', index: 1, device: 2 },
      { name: 'consumer-2', group: 'consumer', index: 2, device: 3 },
    ]);
    expect(plan.devices).toBe(4); // highest device + 1 when not given
    expect(plan.timeoutMs).toBe(30_000);
    expect(plan.params).toEqual({});
  });

  test('keeps explicit devices, timeout, params and thread bodies', () => {
    const thread = async () => 1;
    const plan = planScenario('t', { devices: 8, timeoutMs: 5000, params: { k: 1 }, roles: { c: { device: 2, threads: 3, thread } } });
    expect(plan).toMatchObject({ devices: 8, timeoutMs: 5000, params: { k: 1 } });
    expect(plan.roles[0]).toMatchObject({ name: 'c', threads: 3, thread });
  });
});

describe('planScenario: each bad declaration is rejected with the problem and the fix', () => {
  test('an env value that is not a string names the key and the fix', () => {
    expect(problemsOf({ roles: { p: { device: 0, run: body, env: { X: 1, OK: 'y' } } } })).toEqual([
      "role p: env.X must be a string (got 1): env: { X: '1' }",
    ]);
  });

  test('a replicate factory that throws names the scenario, the role and the copy', () => {
    let err: unknown;
    try {
      planScenario('fan-out', {
        roles: { consumer: replicate(3, (i) => { if (i === 2) throw new Error('no device for 2'); return { device: i, run: body }; }) },
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScenarioDeclarationError);
    expect((err as Error).message).toMatch(/^invalid scenario "fan-out":\n {2}- role consumer-2: replicate\(3, make\) threw for i = 2: no device for 2; make\(i\) must return \{ device, run \} for every i from 0 to 2$/);
  });

  test('duplicate role names', () => {
    const p = problemsOf({ roles: { 'consumer-0': { device: 0, run: body }, consumer: replicate(2, () => ({ device: 0, run: body })) } });
    expect(p).toEqual([expect.stringMatching(/duplicate role name consumer-0.*rename one of the roles/)]);
  });

  test('device out of range', () => {
    const p = problemsOf({ devices: 2, roles: { a: { device: 0, run: body }, b: { device: 2, run: body } } });
    expect(p).toEqual([expect.stringMatching(/role b: device 2 is out of range for devices: 2 \(valid 0\.\.1\): raise devices to 3/)]);
  });

  test('a device no CANN machine has (a typo such as device: 99) is an error naming the role, not a skip', () => {
    expect(problemsOf({ roles: { producer: { device: 0, run: body }, consumer: { device: 99, run: body } } })).toEqual([
      'role consumer: device 99 does not exist on any CANN machine (device ids are 0..63, RT_MAX_DEV_NUM = 64): use a device from 0 to 63',
    ]);
    expect(problemsOf({ devices: 65, roles: { a: { device: 0, run: body } } })).toEqual([
      'devices: 65 is more than any CANN machine has (at most 64 per process, RT_MAX_DEV_NUM): use at most 64',
    ]);
    expect(planScenario('widest', { roles: { a: { device: 63, run: body } } }).devices).toBe(64);
  });

  test('without declared devices, the plan says which role sets the count (for the skip reason)', () => {
    const plan = planScenario('wide', { roles: { a: { device: 0, run: body }, far: { device: 15, run: body }, b: { device: 3, run: body } } });
    expect(plan).toMatchObject({ devices: 16, devicesSetBy: 'role far is on device 15' });
    expect(planScenario('declared', { devices: 16, roles: { a: { device: 15, run: body } } }).devicesSetBy).toBeUndefined();
  });

  test('negative or fractional device', () => {
    expect(problemsOf({ roles: { a: { device: -1, run: body } } })).toEqual([expect.stringMatching(/role a: device must be a whole number >= 0 \(got -1\)/)]);
    expect(problemsOf({ roles: { a: { device: 0.5, run: body } } })).toEqual([expect.stringMatching(/role a: device must be a whole number/)]);
  });

  test('zero consumers', () => {
    const p = problemsOf({ roles: { producer: { device: 0, run: body }, consumer: replicate(0, () => ({ device: 1, run: body })) } });
    expect(p).toEqual([expect.stringMatching(/role consumer: replicate\(0, \.\.\.\) must make at least one copy/)]);
  });

  test('missing body', () => {
    expect(problemsOf({ roles: { a: { device: 0 } } })).toEqual([expect.stringMatching(/role a: missing body: give it run: async \(ctx\)/)]);
  });

  test('a body that is not a function', () => {
    expect(problemsOf({ roles: { a: { device: 0, run: 'producer' } } })).toEqual([
      expect.stringMatching(/role a: run must be a function \(got "producer"\)/),
    ]);
    expect(problemsOf({ roles: { a: { device: 0, threads: 2, thread: {} } } })).toEqual([
      expect.stringMatching(/role a: thread must be a function \(got an object\)/),
    ]);
  });

  test('a device count of 0', () => {
    expect(problemsOf({ devices: 0, roles: { a: { device: 0, run: body } } })).toEqual([
      expect.stringMatching(/devices must be a whole number >= 1 \(got 0\)/),
    ]);
  });

  test('bad timeout', () => {
    for (const timeoutMs of [0, -5, 1.5, Infinity, '1000', 600_001]) {
      expect(problemsOf({ timeoutMs, roles: { a: { device: 0, run: body } } })).toEqual([expect.stringMatching(/^timeoutMs must be a whole number of milliseconds/)]);
    }
  });

  test('unknown keys, with a suggestion for typos', () => {
    const p = problemsOf({ devcies: 2, roles: { a: { device: 0, run: body, thraeds: 2 } } });
    expect(p).toEqual([
      expect.stringMatching(/^scenario: unknown key "devcies" \(did you mean "devices"\?\)/),
      expect.stringMatching(/^role a: unknown key "thraeds" \(did you mean "threads"\?\)/),
    ]);
  });

  test('threads without a thread body, and a thread body without a count', () => {
    expect(problemsOf({ roles: { a: { device: 0, run: body, threads: 2 } } })).toEqual([expect.stringMatching(/threads: 2 needs a thread body/)]);
    expect(problemsOf({ roles: { a: { device: 0, thread: body } } })).toEqual([expect.stringMatching(/a thread body needs a thread count/)]);
    expect(problemsOf({ roles: { a: { device: 0, threads: 0, thread: body } } })).toEqual([expect.stringMatching(/threads must be a whole number from 1 to 64/)]);
  });

  test('no roles, a non-object declaration, an empty name, a bad role name', () => {
    expect(problemsOf({ roles: {} })).toEqual([expect.stringMatching(/roles must be an object with at least one role/)]);
    expect(problemsOf(undefined)).toEqual([expect.stringMatching(/the declaration must be an object/)]);
    expect(problemsOf({ roles: { a: { device: 0, run: body } } }, '')).toEqual([expect.stringMatching(/scenario name must be a non-empty string/)]);
    expect(problemsOf({ roles: { 'my role': { device: 0, run: body } } })).toEqual([expect.stringMatching(/role name "my role" is not usable/)]);
  });

  test('lists every problem at once, in the error message too', () => {
    expect(() => planScenario('several', { devices: 0, roles: { a: { device: 0 } } } as ScenarioDeclaration)).toThrow(
      /invalid scenario "several":\n {2}- .*missing body.*\n {2}- devices must be/s,
    );
  });
});

describe('audit declarations', () => {
  const roles = { a: { device: 0, run: () => 1 } };
  test('a valid declaration is kept in the plan', () => {
    const plan = planScenario('s', { roles, audit: { expectSurvive: ['wait-noop'], reason: 'a faithful sample copy' } });
    expect(plan.audit).toEqual({ expectSurvive: ['wait-noop'], reason: 'a faithful sample copy' });
  });
  test('unknown mutants, an empty list and a missing reason are rejected with the fix', () => {
    const problems = (audit: unknown) => {
      try {
        planScenario('s', { roles, audit } as never);
      } catch (e) {
        return (e as { problems: string[] }).problems;
      }
      return [];
    };
    expect(problems({ expectSurvive: ['wait-nop'], reason: 'r' })).toEqual([
      'audit.expectSurvive: "wait-nop" is not a mutant; use wait-noop, record-instant, wait-latest, sync-noop',
    ]);
    expect(problems({ expectSurvive: [], reason: 'r' })).toEqual([expect.stringMatching(/^audit.expectSurvive must list at least one mutant/)]);
    expect(problems({ expectSurvive: ['wait-noop'] })).toEqual([expect.stringMatching(/^audit.reason must say why/)]);
    expect(problems({ expectSurvive: ['wait-noop'], reason: 'r', because: 1 })).toEqual([expect.stringMatching(/^audit: unknown key "because"/)]);
    expect(problems('wait-noop')).toEqual([expect.stringMatching(/^audit must be an object/)]);
  });
});

describe('declared intervals', () => {
  const roles = { producer: { device: 0, run: () => 1 }, consumer: replicate(2, () => ({ device: 0, run: () => 1 })) };
  const problems = (intervals: unknown) => problemsOf({ roles, intervals });
  test('pairs of selectors naming a role, a group or * are kept in the plan', () => {
    const intervals: [string, string][] = [['producer:release', 'consumer:after-wait'], ['*:start', 'consumer-1:end']];
    expect(planScenario('s', { roles, intervals }).intervals).toEqual(intervals);
    expect(planScenario('s', { roles }).intervals).toBeUndefined();
  });
  test('a bad list, pair or selector is rejected naming it and the fix', () => {
    expect(problems('producer:release')).toEqual([expect.stringMatching(/^intervals must be a list of \[from, to\] mark selectors \(got "producer:release"\)/)]);
    expect(problems([['producer:release']])).toEqual([expect.stringMatching(/^intervals\[0\] must be a \[from, to\] pair of mark selectors/)]);
    expect(problems([['producer:release', 'consumer']])).toEqual([expect.stringMatching(/^intervals\[0\]: mark selector "consumer" must look like "<role>:<mark>"/)]);
    expect(problems([['producer:release', 'consumer:woken'], ['produser:release', 'consumer:woken']])).toEqual([
      'intervals[1]: "produser:release" names no role or group (did you mean "producer"?); roles: producer, consumer, consumer-0, consumer-1',
    ]);
  });
});
