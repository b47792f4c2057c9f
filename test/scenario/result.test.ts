import { toScenarioResult } from '../../src/scenario';
import type { RoleResult, RunResult } from '../../src/orchestrator';

function role(name: string, extra: Partial<RoleResult> = {}): RoleResult {
  return { name, device: 0, index: 0, pid: 1, status: 'passed', exitCode: 0, signal: null, durationMs: 1, stdout: '', stderr: '', marks: [], ...extra };
}

function run(roles: RoleResult[]): RunResult {
  return { ok: true, dir: '/tmp/x', kept: false, timedOut: false, durationMs: 5, roles, summary: '' };
}

const plan = {
  name: 'demo',
  roles: [
    { name: 'producer', group: 'producer', device: 0, index: 0, threads: 0 },
    { name: 'consumer-0', group: 'consumer', device: 1, index: 0, threads: 2 },
  ],
};

test('unwraps role-entry envelopes and merges worker-thread marks in time order', () => {
  const result = toScenarioResult(
    plan,
    run([
      role('producer', { value: { __scenarioEnvelope: 1, value: { n: 1 }, threadMarks: [] }, marks: [{ name: 'release', tNs: '50' }] }),
      role('consumer-0', {
        value: {
          __scenarioEnvelope: 1,
          threadValues: ['a', 'b'],
          threadMarks: [
            { name: 'after-wait', tNs: '90', thread: 1 },
            { name: 'after-wait', tNs: '70', thread: 0 },
          ],
        },
        marks: [{ name: 'opened', tNs: '80' }],
      }),
    ]),
  );
  expect(result.role('producer').value).toEqual({ n: 1 });
  const consumer = result.role('consumer-0');
  expect(consumer.value).toBeUndefined();
  expect(consumer.threadValues).toEqual(['a', 'b']);
  expect(consumer.group).toBe('consumer');
  expect(consumer.marks.map((m) => `${m.name}@${m.tNs}`)).toEqual(['after-wait@70', 'opened@80', 'after-wait@90']);
  expect(result.group('consumer').map((r) => r.name)).toEqual(['consumer-0']);
});

test('role() names the known roles when asked for a missing one; helpers stay out of JSON', () => {
  const result = toScenarioResult(plan, run([role('producer'), role('consumer-0')]));
  expect(() => result.role('consumer')).toThrow('scenario "demo" has no role "consumer" (roles: producer, consumer-0)');
  expect(Object.keys(JSON.parse(JSON.stringify(result)))).not.toContain('role');
});
