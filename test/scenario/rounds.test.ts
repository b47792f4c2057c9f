/**
 * Soak rounds (issue #22): one set of processes runs every role's body N times, each round
 * checked, and a failing round stops the run naming the round, its seed and how to replay it.
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { collectScenarios, runScenario } from '../../src/scenario';
import type { RoundsArgs, ScenarioResult } from '../../src/scenario/types';
import type { RunEvent } from '../../src/orchestrator';
import { roundsProgress } from '../../src/orchestrator/progress-file';
import { formatBlock } from '../../src/report/progress';
import { failedRound, roundsReplay } from '../../src/jest/rounds';
import { roundSeed } from '../../src/scenario/round-seed';
import { repoRoot } from '../support/run-child';
import { leakedShm, shmEntries, survivors, waitUntil } from '../support/leftovers';
import { testWithStub as withStub, STUB_LIBRARY as STUB } from '../support/with-stub';

const FIXTURES = path.join(__dirname, 'fixtures', 'rounds-scenarios.ts');
const PIPELINE = path.join(repoRoot, 'specs', 'reused-event-pipeline.spec.ts');
const BUGGY = path.join(repoRoot, 'test', 'jest', 'fixtures', 'rounds', 'buggy-pipeline.spec.ts');

const plans = new Map<string, ReturnType<typeof collectScenarios> extends Map<string, infer P> ? P[] : never>();
async function run(file: string, name: string, rounds: RoundsArgs, env?: Record<string, string>, keepDir?: boolean): Promise<{ r: ScenarioResult; dirs: string[]; progress: { role: string; done: number; total: number }[] }> {
  if (!plans.has(file)) plans.set(file, [...collectScenarios(file).values()]); // a spec file is collected once per process
  const plan = plans.get(file)!.find((p) => p.name.startsWith(name))!;
  const dirs: string[] = [];
  const progress: { role: string; done: number; total: number }[] = [];
  const onEvent = (e: RunEvent) => {
    if (e.type === 'started') dirs.push(e.dir);
    if (e.type === 'rounds') progress.push({ role: e.role, done: e.done, total: e.total });
  };
  const r = await runScenario(plan, { specFile: file, mode: 'stub', rounds, env, keepDir, onEvent });
  return { r, dirs: [...new Set(dirs)], progress };
}

const errorOf = (r: ScenarioResult, role: string) => r.role(role).error?.message ?? '';

withStub('each round gets ctx.round and the setup state; per-round names do not pile up in the scenario directory', async () => {
  const { r, dirs } = await run(FIXTURES, 'per-round names', { total: 40 }, undefined, true);
  try {
    expect(r.summary).toContain('passed');
    expect(r.ok).toBe(true);
    expect(r.role('producer').value).toEqual({ round: 40, rounds: 40, setup: { token: 'setup of producer', setupRound: 0 } });
    expect(r.role('consumer').value).toEqual({ round: 40, setup: { whole: true } });
    // Names of round 40 were removed after its end barrier; names shared in setup stay.
    const handles = readdirSync(path.join(r.dir, 'handles')).filter((n) => !n.startsWith('rounds-pid.') && !n.startsWith('pid'));
    expect(handles.filter((n) => /@r\d+$/.test(n))).toEqual([]);
    expect(handles).toContain('whole-run');
    expect(readdirSync(path.join(r.dir, 'signals')).filter((n) => /@r\d+$/.test(n))).toEqual([]);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}, 60_000);

withStub('a scenario with setup run without rounds runs it once, then its body once (setup is never skipped)', async () => {
  const { r, dirs } = await run(FIXTURES, 'per-round names', undefined as unknown as RoundsArgs);
  try {
    expect(r.summary).toContain('passed');
    expect(r.ok).toBe(true);
    expect(r.role('producer').value).toEqual({ round: 1, rounds: 1, setup: { token: 'setup of producer', setupRound: 0 } });
    expect(r.role('consumer').value).toEqual({ round: 1, setup: { whole: true } });
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}, 60_000);

/**
 * One 300-round run of the fixed pipeline, its directory kept, for the two tests that read it (its
 * result and progress; its trace files): the same run, so it runs once. Removed after the file.
 */
let pipeline300: ReturnType<typeof run> | undefined;
const runPipeline300 = () => (pipeline300 ??= run(PIPELINE, 'pipeline on a reused IPC event', { total: 300 }, undefined, true));
afterAll(async () => {
  const dirs = await pipeline300?.then((x) => x.dirs, () => []);
  for (const d of dirs ?? []) rmSync(d, { recursive: true, force: true });
});

withStub('the fixed pipeline passes its rounds, every round byte-checked and happens-before-checked', async () => {
  const { r, progress } = await runPipeline300();
  expect(r.summary).toContain('passed');
  expect(r.ok).toBe(true);
  expect(r.happensBefore?.ok).toBe(true);
  // Live progress: the first role reports now and then, and always after the last round.
  expect(progress.at(-1)).toEqual({ role: 'producer', done: 300, total: 300 });
  expect(new Set(progress.map((p) => p.role))).toEqual(new Set(['producer']));
}, 60_000);

withStub('the happens-before check runs every round: a stub whose records take effect at once fails that round', async () => {
  const clean = await run(FIXTURES, 'a fill then a record', { total: 300 });
  expect(clean.r.ok).toBe(true); // the same scenario on the faithful stub passes every round
  // A scenario without a byte check: only the trace can tell.
  const { r, dirs } = await run(FIXTURES, 'a fill then a record', { total: 300 }, { ACL_STUB_MUTANT: 'record-instant' });
  try {
    expect(r.ok).toBe(false);
    expect(r.firstFailure?.role).toBe('solo'); // the first role checks the trace between rounds
    expect(errorOf(r, 'solo')).toMatch(/^[\d,]+ of 300 rounds passed, round [\d,]+ failed \(happens-before check of the stub trace\): happens-before violation/);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}, 60_000);

withStub('the trace is read as a stream: after 300 rounds the trace files hold about one round, not 300', async () => {
  const { r } = await runPipeline300();
  expect(r.ok).toBe(true);
  const traceDir = path.join(r.dir, 'trace');
  const files = readdirSync(traceDir).filter((n) => n.endsWith('.jsonl'));
  expect(files.length).toBe(3);
  const lines = files.map((f) => readFileSync(path.join(traceDir, f), 'utf8').split('\n').filter(Boolean).length);
  // One round is a handful of lines per process (fill, record, wait, copy, syncs); 300 rounds would be thousands.
  for (const n of lines) expect(n).toBeLessThan(40);
}, 60_000);

withStub('with jitter, rounds catch the buggy pipeline: the report names the round, its seed and how many passed', async () => {
  const total = 10_000;
  const { r, dirs } = await run(BUGGY, 'buggy pipeline', { total, jitter: { seed: 4242, maxUs: 200 } }, { ACL_STUB_JITTER: '4242:200' });
  try {
    expect(r.ok).toBe(false);
    expect(r.firstFailure?.role).toBe('consumer-0');
    const round = failedRound(r)!;
    expect(round).toBeGreaterThanOrEqual(1);
    expect(round).toBeLessThan(total);
    const message = errorOf(r, 'consumer-0');
    expect(message).toContain(`${(round - 1).toLocaleString('en-US')} of 10,000 rounds passed, round ${round.toLocaleString('en-US')} failed, jitter seed ${roundSeed(4242, round)}`);
    // Its wait captured the previous step's record (in round 1: none at all) and read stale bytes.
    expect(message).toMatch(/step \d+ read byte \d+ at offset \d+, expected \d+/);
    // The producer stopped at the broken barrier, blamed after the consumer.
    expect(errorOf(r, 'producer')).toMatch(/another role failed \(party 2 broke the round barrier\)/);
    const replay = roundsReplay(BUGGY, 'buggy pipeline: the consumer waits before the step is recorded', { total, jitter: { seed: 4242, maxUs: 200 } }, round);
    expect(replay).toContain(`ACL_STUB_JITTER=${roundSeed(4242, round)}:200 npx cann-harness run`);
    expect(replay).toContain(`--rounds ${total - round + 1}`);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}, 120_000);

withStub('a round that throws stops every role at once, and only that role is blamed', async () => {
  const { r, dirs } = await run(FIXTURES, 'a role that throws', { total: 1000 }, { ROUNDS_FAIL_AT: '7' });
  try {
    expect(r.ok).toBe(false);
    expect(r.timedOut).toBe(false);
    expect(r.firstFailure?.role).toBe('faulty');
    expect(errorOf(r, 'faulty')).toBe('6 of 1,000 rounds passed, round 7 failed (the role body): faulty gives up in round 7');
    expect(errorOf(r, 'steady')).toMatch(/^6 of 1,000 rounds passed, round 7 failed .*another role failed \(party 2 broke the round barrier\)/);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}, 60_000);

withStub('a role stopped within 50 ms of starting a wait (rounds hold wait reports back that long) is reported as waiting for it', async () => {
  const { r, dirs } = await run(FIXTURES, 'stopped while waiting', { total: 10 });
  try {
    expect(r.ok).toBe(false);
    expect(r.firstFailure?.role).toBe('quitter');
    expect(r.role('waiter').status).toBe('stopped');
    expect(r.role('waiter').waitingFor).toEqual({ what: 'signal "never@r3"', from: 'quitter' });
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}, 60_000);

withStub('a role killed mid-rounds: no hang at the barrier, the killed role is blamed, nothing left behind', async () => {
  const before = shmEntries();
  const started = Date.now();
  const { r, dirs } = await run(FIXTURES, 'a role killed', { total: 1000 }, { ROUNDS_FAIL_AT: '5' });
  try {
    expect(r.ok).toBe(false);
    expect(r.timedOut).toBe(false); // fail-fast stopped the role waiting at the barrier, long before the 60 s deadline
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.firstFailure?.role).toBe('doomed');
    expect(r.role('doomed').signal).toBe('SIGKILL');
    const pids = r.roles.map((x) => x.pid);
    await waitUntil(() => survivors(pids).length === 0, 10_000);
    expect(survivors(pids)).toEqual([]);
    // The barrier's only file is in the scenario directory: it goes with it, however the run ends.
    expect(readdirSync(r.dir)).toContain('round-barrier');
    expect(leakedShm(before)).toEqual([]);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}, 90_000);

test('failedRound reads the round from the first failure; the replay without jitter reruns up to it', () => {
  const r = { firstFailure: { role: 'b' }, roles: [{ name: 'b', error: { message: '1,233 of 10,000 rounds passed, round 1,234 failed (the role body): x' } }] } as unknown as ScenarioResult;
  expect(failedRound(r)).toBe(1234);
  const spec = path.join(process.cwd(), 'specs', 'a.spec.ts');
  expect(roundsReplay(spec, 'a', { total: 10_000 }, 1234)).toContain("--specs specs 'a\\.spec\\.ts$' -t '^a$' --rounds 1234");
  expect(roundsReplay(spec, 'a', { total: 10_000 }, null)).toBe('');
});

test('live progress shows the round and the rounds per second since the last report', () => {
  let now = 1_000;
  const p = roundsProgress(() => now);
  expect(p.line(100, 10_000)).toBe('round 100 of 10,000');
  now += 500;
  expect(p.line(650, 10_000)).toBe('round 650 of 10,000, 1,100 rounds/s');
  const block = formatBlock([{ label: 'scenario "s"', startedAt: 0, roles: { a: 'running' }, rounds: 'round 650 of 10,000, 1,100 rounds/s' }], 5_000, 0);
  expect(block[0]).toBe('[running 5 s] scenario "s" (round 650 of 10,000, 1,100 rounds/s)');
});

// Issue 33 item 9 / issue 36 item 10: unequal ctx.barrier() calls desynchronized the rounds (one
// role "passed" every round, the other hung to the deadline and was blamed). Every crossing is now
// tagged with what each role meets: the verdict names the role that called it fewer times, and the round.
withStub('a role that calls ctx.barrier() once less in round 3 is blamed, with the round, at once', async () => {
  const { r } = await run(FIXTURES, 'unequal barrier calls: one less', { total: 10 });
  expect(r.ok).toBe(false);
  expect(r.timedOut).toBe(false);
  expect(r.firstFailure?.role).toBe('skipper');
  expect(errorOf(r, 'skipper')).toContain('2 of 10 rounds passed, round 3 failed');
  expect(errorOf(r, 'skipper')).toContain('this role called ctx.barrier() fewer times than role "steady" in round 3: this role went on to the end of round 3 while "steady" was at its ctx.barrier() call 1 of round 3');
  expect(r.role('steady').consequenceOf).toBe('skipper');
  // The other role either saw the mismatch itself or was stopped first because of skipper: both say so.
  expect(errorOf(r, 'steady')).toMatch(
    /role "skipper" called ctx\.barrier\(\) fewer times than this role in round 3|stopped because role "skipper" failed first/,
  );
}, 60_000);

withStub('a role that calls ctx.barrier() once more in round 3: the other role, which called it fewer times, is named', async () => {
  const { r } = await run(FIXTURES, 'unequal barrier calls: one more', { total: 10 });
  expect(r.ok).toBe(false);
  expect(r.timedOut).toBe(false);
  expect(r.firstFailure?.role).toBe('steady');
  expect(errorOf(r, 'steady')).toContain('round 3 failed');
  expect(errorOf(r, 'steady')).toContain('this role called ctx.barrier() fewer times than role "extra" in round 3: this role went on to the end of round 3 while "extra" was at its ctx.barrier() call 2 of round 3');
  // extra either saw the mismatch itself or was stopped first because of steady (under load): both say so.
  expect(errorOf(r, 'extra')).toMatch(
    /role "steady" called ctx\.barrier\(\) fewer times than this role in round 3|stopped because role "steady" failed first/,
  );
}, 60_000);
