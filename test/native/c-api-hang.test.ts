/**
 * Hangs of C roles that use the C API (issue 33 items 2 and 3), run as the harness runs them:
 *  - the harness owns the deadline: a C role blocked in cannharness_await_signal at the scenario's
 *    deadline is a timeout with a wait-for graph naming the wait, every time (its own
 *    CANN_HARNESS_DEADLINE_NS lies after the harness's deadline, hang report and grace: before,
 *    the C wait and the harness raced, and 6 runs in 8 read "failed" with no graph);
 *  - two C roles each awaiting the other's signal are reported as a deadlock.
 */
import { rmSync } from 'node:fs';
import { runRoles, type RoleSpec, type RunEvent, type RunResult } from '../../src/orchestrator';
import * as path from 'node:path';
import { repoRoot, requireBuilt } from './native-role-program';
import { killGroups, survivors, waitUntil } from '../support/leftovers';

// The release build's program whatever CANN_STUB_FLAVOR says: runRoles preloads the release
// build's libraries, which an ASan-built program refuses (its runtime must come first).
const nativeRoleProgram = path.join(repoRoot, 'native-stub', 'build', 'test-programs', 'native_role');
const pids = new Set<number>();
const track = (e: RunEvent) => {
  if (e.type === 'started') pids.add(e.pid);
};
beforeAll(requireBuilt);
afterAll(() => killGroups(pids));

const role = (name: string, args: string[], device = 0): RoleSpec => ({
  name,
  device,
  native: { program: nativeRoleProgram, args },
  env: { ACL_STUB_DEVICE_COUNT: '2' },
});

async function run(roles: RoleSpec[], timeoutMs: number): Promise<RunResult> {
  const r = await runRoles({ roles, timeoutMs, mode: 'stub', onEvent: track, keepDir: false, graceMs: 500 });
  if (r.kept) rmSync(r.dir, { recursive: true, force: true });
  return r;
}

test('a C role awaiting a signal nobody sends: a timeout with its wait in the graph, in every one of 6 runs', async () => {
  const verdicts: string[] = [];
  // Short deadlines: the race was between the C wait's and the harness's expiry, whatever the length.
  for (let i = 0; i < 6; i++) {
    const r = await run([role('producer', ['await-signal', 'never'])], 400);
    const p = r.roles[0];
    verdicts.push(`${r.timedOut} ${p.status} ${r.waitGraph?.lines.find((l) => l.includes('awaits')) ?? '(no graph)'} | ${p.stdout.trim()}`);
  }
  // eslint-disable-next-line max-len -- one regex for the whole verdict line, kept unsplit
  for (const v of verdicts) expect(v).toMatch(/^true timeout {3}chain: producer \(cannharness_await_signal, for (\d+ ms|\d+\.\d s)\) awaits signal "never" \(no role named as its source\) \| $/);
  expect(await waitUntil(() => survivors([...pids]).length === 0, 10_000)).toBe(true);
});

test('two C roles each awaiting the other\'s signal: a deadlock, both waits named', async () => {
  const r = await run(
    [
      role('producer', ['await-signal', 'consumer.ready', 'signal', 'go']),
      role('consumer', ['await-signal', 'go', 'signal', 'consumer.ready'], 1),
    ],
    600,
  );
  expect(r.timedOut).toBe(true);
  expect(r.waitGraph?.deadlock).toBe(true);
  expect(r.summary).toContain('deadlock: producer (cannharness_await_signal, for ');
  // eslint-disable-next-line max-len -- one regex for the whole chain of two waits, kept unsplit
  expect(r.summary).toMatch(/awaits signal "consumer.ready" from consumer \(no source named: its name starts with "consumer"\) ← consumer \(cannharness_await_signal, for (\d+ ms|\d+\.\d s)\) awaits signal "go" from producer/);
  expect(r.summary).not.toContain('idle');
  expect(r.roles.map((x) => x.status)).toEqual(['timeout', 'timeout']);
});
