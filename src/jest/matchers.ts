/**
 * Jest matchers for scenario results (registered by src/jest/setup.ts):
 *
 *   expect(result).toHaveAllRolesSucceeded();
 *   expect(result).toHaveMarkOrder('producer:record-done', 'consumer:after-wait');
 *
 * A mark selector is `<role>:<mark>` where <role> is a role name, a replicated group's key
 * (`consumer` = consumer-0, consumer-1, ...) or `*`. Marks from worker threads count for their role.
 */
import { parseSelector, selectMarks, type FoundMark, type MarkedRole } from '../scenario/marks';

interface ResultLike {
  scenario?: string;
  roles: MarkedRole[];
}

function isResultLike(x: unknown): x is ResultLike {
  return typeof x === 'object' && x !== null && Array.isArray((x as ResultLike).roles);
}

export { parseSelector, selectMarks };

/**
 * The failure report, loaded only when a matcher fails: spec files import the matchers (through
 * the package's index) in every device process, which must not pay for the reporting code.
 */
function failureReport(...args: Parameters<typeof import('../report/failure').formatScenarioFailure>): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('../report/failure') as typeof import('../report/failure')).formatScenarioFailure(...args);
}

function label(m: FoundMark): string {
  return `${m.role}${m.thread !== undefined ? `.t${m.thread}` : ''}:${m.name}`;
}

function knownMarks(result: ResultLike): string {
  const names = new Set(result.roles.flatMap((r) => r.marks.map((m) => `${r.name}:${m.name}`)));
  return names.size ? [...names].join(', ') : '(no marks at all)';
}

export const scenarioMatchers = {
  toHaveAllRolesSucceeded(this: jest.MatcherContext, received: unknown) {
    if (!isResultLike(received)) {
      return { pass: false, message: () => 'toHaveAllRolesSucceeded expects a scenario result (with roles)' };
    }
    const bad = received.roles.filter((r) => r.status !== 'passed');
    const pass = bad.length === 0;
    return {
      pass,
      message: () =>
        pass
          ? `expected some role to fail, but all ${received.roles.length} roles passed`
          : failureReport(received.scenario ?? 'scenario', received as any),
    };
  },

  /** Every mark matching `after` is later than every mark matching `before`. */
  toHaveMarkOrder(this: jest.MatcherContext, received: unknown, before: string, after: string) {
    if (!isResultLike(received)) {
      return { pass: false, message: () => 'toHaveMarkOrder expects a scenario result (with roles)' };
    }
    const earlier = selectMarks(received, before);
    const later = selectMarks(received, after);
    if (earlier.length === 0 || later.length === 0) {
      const missing = earlier.length === 0 ? before : after;
      return { pass: false, message: () => `no mark matches ${JSON.stringify(missing)}; marks present: ${knownMarks(received)}` };
    }
    const latestBefore = earlier.reduce((a, b) => (b.t > a.t ? b : a));
    const origin = [...earlier, ...later].reduce((min, m) => (m.t < min ? m.t : min), latestBefore.t);
    const rel = (m: FoundMark) => `${(Number(m.t - origin) / 1e6).toFixed(3)} ms`;
    const violations = later.filter((m) => m.t <= latestBefore.t);
    const pass = violations.length === 0;
    return {
      pass,
      message: () =>
        pass
          ? `expected some ${after} mark not to come after ${before}, but all ${later.length} did`
          : `expected every ${after} mark after every ${before} mark, but:\n` +
            violations.map((v) => `  ${label(v)} at ${rel(v)} is not after ${label(latestBefore)} at ${rel(latestBefore)}`).join('\n'),
    };
  },
};

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    interface Matchers<R> {
      /** Every role of the scenario passed. */
      toHaveAllRolesSucceeded(): R;
      /** Every mark matching `after` ("role:mark") is later than every mark matching `before`. */
      toHaveMarkOrder(before: string, after: string): R;
    }
  }
}
