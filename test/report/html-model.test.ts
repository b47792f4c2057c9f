/** The HTML report's page data and markup, without a browser (test/report/html-browser.test.ts opens the pages). */
import type { RunResult } from '../../src/orchestrator';
import { runCut } from '../../src/orchestrator/run-cut';
import { buildModels, type CaseResult, type RunInfo } from '../../src/report/html/model';
import { HTML_RECORD_SCHEMA, type ScenarioRecord } from '../../src/report/html/record';
import { renderIndex, renderScenario } from '../../src/report/html/write';
import { formatTextTimeline } from '../../src/trace/text-timeline';

const info: RunInfo = { mode: 'stub', library: '/lib/libascendcl.so', devices: 8, durationMs: 1200, startedAt: 0, rerun: 'npx cann-harness run --html', loadErrors: [] };

function tc(title: string, status: CaseResult['status'], extra: Partial<CaseResult> = {}): CaseResult {
  return { specFile: '/p/a.spec.ts', file: 'a.spec.ts', title, status, durationMs: 10, attempts: 1, failureMessages: [], ...extra };
}

function role(name: string, pid: number, over: Partial<RunResult['roles'][number]> = {}): RunResult['roles'][number] {
  return { name, device: 0, index: 0, pid, status: 'passed', exitCode: 0, signal: null, durationMs: 5, stdout: '', stderr: '', marks: [], ...over };
}

function record(title: string, run: Partial<ScenarioRecord['run']>): ScenarioRecord {
  return {
    schema: HTML_RECORD_SCHEMA, specFile: '/p/a.spec.ts', title, scenario: title, mode: 'stub', jitter: null, replay: 'npx cann-harness run', writtenAt: 1,
    run: { ok: true, dir: '/tmp/x', kept: false, timedOut: false, durationMs: 5, roles: [], ...run },
  };
}

const line = (o: Record<string, unknown>) => JSON.stringify({ tid: 1, device: 0, stream: 1, event: 1, slot: 0, gen: 1, ipc: 'ab', task: 1, ...o });

test('rows: failed first, then flaky, passed, skipped (with its reason and no page); totals count each', () => {
  const { index, scenarios } = buildModels(
    [tc('p', 'passed'), tc('s [skip: needs 9 devices, 8 available]', 'skipped', { skipReason: 'needs 9 devices, 8 available' }), tc('f', 'failed'), tc('r [repeat 2/3]', 'flaky', { attempts: 2 })],
    [],
    info,
  );
  expect(index.rows.map((r) => r.status)).toEqual(['failed', 'flaky', 'passed', 'skipped']);
  expect(index.rows[1].repetition).toBe('2/3');
  expect(index.rows[3]).toMatchObject({ title: 's', page: null, reason: 'needs 9 devices, 8 available' });
  expect(index.totals).toEqual({ passed: 1, failed: 1, skipped: 1, flaky: 1, loadErrors: 0 });
  expect(scenarios.map((s) => s.row.title)).toEqual(['f', 'r [repeat 2/3]', 'p']);
  expect(renderIndex(index)).toContain('needs 9 devices, 8 available');
});

test('the timeline: one lane per role in role order, a bar per task with its queue time, one arrow per record → wait it released', () => {
  const traces = [
    { pid: 20, role: 'consumer', jsonl: [line({ t: 1000, pid: 20, op: 'submit', kind: 'ipc_wait' }), line({ t: 2000, pid: 20, op: 'start', kind: 'ipc_wait' }), line({ t: 9000, pid: 20, op: 'end', kind: 'ipc_wait' })].join('\n') },
    { pid: 10, role: 'producer', jsonl: [line({ t: 3000, pid: 10, op: 'submit', kind: 'ipc_record' }), line({ t: 3000, pid: 10, op: 'start', kind: 'ipc_record' }), line({ t: 8000, pid: 10, op: 'end', kind: 'ipc_record' })].join('\n') },
  ];
  const { scenarios } = buildModels([tc('t', 'passed')], [record('t', { roles: [role('producer', 10), role('consumer', 20)], traces })], info);
  const tl = scenarios[0].timeline!;
  expect(tl.lanes.map((l) => l.label)).toEqual(['producer@dev0 (pid 10)', 'consumer@dev0 (pid 20)']);
  expect(tl.bars.find((b) => b[6] === 'ipc_wait')).toEqual([1, 0, 1, 7, 1, 'ipc_wait ev1 slot 0', 'ipc_wait', 0]);
  expect(tl.arrows).toHaveLength(1);
  expect(tl.arrows[0][0]).toBe(0); // from the producer's lane
  expect(tl.arrows[0][3]).toBe(1); // to the consumer's
});

test('a wait that ended without its record (timeout) gets no arrow', () => {
  const traces = [
    { pid: 20, role: 'consumer', jsonl: [line({ t: 2000, pid: 20, op: 'start', kind: 'ipc_wait' }), line({ t: 9000, pid: 20, op: 'end', kind: 'ipc_wait', note: 'timeout' })].join('\n') },
    { pid: 10, role: 'producer', jsonl: [line({ t: 3000, pid: 10, op: 'start', kind: 'ipc_record' }), line({ t: 8000, pid: 10, op: 'end', kind: 'ipc_record' })].join('\n') },
  ];
  const { scenarios } = buildModels([tc('t', 'failed')], [record('t', { ok: false, roles: [role('producer', 10), role('consumer', 20)], traces })], info);
  expect(scenarios[0].timeline!.arrows).toEqual([]);
});

test('the wait-for graph: a deadlock of two roles is two edges, both in the cycle', () => {
  const waitGraph = { chains: [{ roles: ['a', 'b'], deadlock: true, text: 'deadlock: a awaits x from b ← b ... ← (back to a)' }], deadlock: true, lines: ['wait-for graph'], calls: {}, sources: {} };
  const { scenarios } = buildModels([tc('t', 'failed')], [record('t', { ok: false, timedOut: true, roles: [role('a', 1), role('b', 2)], waitGraph })], info);
  expect(scenarios[0].waitGraph!.edges).toEqual([
    { from: 'a', to: 'b', inCycle: true },
    { from: 'b', to: 'a', inCycle: true },
  ]);
  expect(scenarios[0].waitGraph!.nodes.every((n) => n.inCycle)).toBe(true);
});

test("a role's output is text on the page, never markup, also inside the page's data", () => {
  const evil = '</script><script>alert(1)</script><b>x</b>';
  const { scenarios } = buildModels([tc(evil, 'failed')], [record(evil, { ok: false, roles: [role('a', 1, { status: 'failed', stdout: evil, error: { message: evil } })] })], info);
  const html = renderScenario(scenarios[0]);
  expect(html).not.toContain('<script>alert(1)');
  expect(html).not.toContain('<b>x</b>');
  expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)');
});

describe('issue 33 item 7: work the harness stopped is drawn unfinished, up to the deadline or the failure line', () => {
  const S = 1_000_000_000; // 1 s in ns
  const hostFunc = (pid: number, t: number, op: string) => line({ t, pid, op, kind: 'host_func', event: 0, slot: null, gen: null, ipc: null });

  test('a host function running at the deadline, its role killed 1 s later (its latch released at exit): unfinished at the deadline', () => {
    // The deadline at 5 s; the stop after the hang report released the latch at 6 s: an "end" line with no note.
    const traces = [{ pid: 10, role: 'producer', jsonl: [hostFunc(10, 1 * S, 'submit'), hostFunc(10, 1 * S, 'start'), hostFunc(10, 6 * S, 'end')].join('\n') }];
    const run = {
      ok: false, timedOut: true, deadlineNs: String(5 * S), startNs: String(1 * S), durationMs: 5100,
      firstFailure: { role: 'producer', status: 'timeout' as const, atNs: String(6 * S) },
      roles: [role('producer', 10, { status: 'timeout', signal: 'SIGTERM', exitCode: null, failedAtNs: String(6 * S), stoppedAtNs: String(6 * S) })],
      traces,
    };
    const tl = buildModels([tc('t', 'failed')], [record('t', run)], info).scenarios[0].timeline!;
    expect(tl.deadlineT).toBe(4 * 1e6);
    expect(tl.bars).toEqual([[0, 0, 0, 4 * 1e6, 0, 'host func (unfinished at the deadline: stopped by the harness)', 'host_func', 2]]);
    expect(tl.endT).toBe(4 * 1e6); // nothing drawn past the deadline
    // The text timeline of the terminal's failure report says the same.
    const cut = runCut(run)!;
    expect(formatTextTimeline(traces, { endNs: BigInt(cut.endNs), endLabel: cut.label, stoppedAt: cut.stoppedAt })[2]).toBe(
      '    stream 1 (device 0): host func +0.0..+4000.0 UNFINISHED (stopped by the harness at +5000.0)',
    );
  });

  test('after a failure: a stopped role\'s wait abandoned at its stop ends at the failure line, no release arrow; ends before the stop stay', () => {
    const wait = (t: number, op: string, o: Record<string, unknown> = {}) => line({ t, pid: 20, op, kind: 'ipc_wait', ...o });
    const traces = [
      { pid: 10, role: 'producer', jsonl: [line({ t: 1 * S, pid: 10, op: 'start', kind: 'ipc_record' }), line({ t: 1 * S, pid: 10, op: 'end', kind: 'ipc_record' })].join('\n') },
      {
        pid: 20, role: 'consumer',
        jsonl: [
          // a record that ran after the failure line but before the stop: it finished by itself
          line({ t: 2.1 * S, pid: 20, op: 'start', kind: 'record', stream: 2, event: 3, slot: null, ipc: null }),
          line({ t: 2.2 * S, pid: 20, op: 'end', kind: 'record', stream: 2, event: 3, slot: null, ipc: null }),
          // released by the stop at 3 s (the stub writes its end, even when its record is there)
          wait(1.5 * S, 'start'), wait(3 * S, 'end', { note: 'abandoned' }),
        ].join('\n'),
      },
    ];
    const run = {
      ok: false, startNs: String(1 * S), durationMs: 2500,
      firstFailure: { role: 'producer', status: 'failed' as const, atNs: String(2 * S) },
      roles: [
        role('producer', 10, { status: 'failed', exitCode: 1, failedAtNs: String(2 * S) }),
        role('consumer', 20, { status: 'stopped', signal: 'SIGTERM', exitCode: null, stoppedAtNs: String(3 * S), consequenceOf: 'producer' }),
      ],
      traces,
    };
    const tl = buildModels([tc('t', 'failed')], [record('t', run)], info).scenarios[0].timeline!;
    expect(tl.unfinishedUntil).toBe('the first failure');
    expect(tl.bars.find((b) => b[6] === 'ipc_wait')).toEqual([1, 0, 0.5e6, 0.5e6, 0, 'ipc_wait ev1 slot 0 (unfinished at the first failure: stopped by the harness)', 'ipc_wait', 2]);
    expect(tl.bars.find((b) => b[6] === 'record')).toMatchObject([1, 1, 1.1e6, 0.1e6, 0, 'record ev3', 'record', 0]);
    expect(tl.arrows).toEqual([]);
  });
});

test('the happens-before verdict: a skipped check is drawn as skipped (with its reason), never as passed', () => {
  const stats = { tasks: 0, waits: 0, blockedWaits: 0, noopWaits: 0, syncs: 0 };
  const hb = (ok: boolean, skipped?: string) => ({ ok, ...(skipped ? { skipped } : {}), stats, violations: [] });
  const verdictOf = (run: Partial<ScenarioRecord['run']>) => {
    const html = renderScenario(buildModels([tc('t', 'passed')], [record('t', run)], info).scenarios[0]);
    return /<h2>Happens-before check<\/h2><div class="([^"]+)"><b>([^<]*)<\/b>/.exec(html)?.slice(1);
  };
  expect(verdictOf({ happensBefore: hb(true, 'no trace lines') })).toEqual(['t-skipped', 'skipped: no trace lines']);
  expect(verdictOf({ happensBefore: hb(true) })).toEqual(['t-passed', 'no violation']);
});

test("an explored run's page shows the schedule explorer's line (seed, depth, round, notes) and its replay command", () => {
  const explore = 'explore seed 42 depth 2, round 81 (12 decisions among 5 parties) degraded: a/main left the explored points after step 3';
  const replay = "npx cann-harness run --specs s 'x\\.spec\\.ts$' -t '^t$' --explore-replay ex1.AbC_-";
  const { scenarios } = buildModels([tc('t [explore seed 42]', 'failed')], [{ ...record('t [explore seed 42]', { ok: false }), explore, replay }], info);
  expect(scenarios[0].explore).toBe(explore);
  const html = renderScenario(scenarios[0]);
  expect(html).toContain('schedule explorer: <b class="mono">explore seed 42 depth 2, round 81 (12 decisions among 5 parties) degraded: a/main left');
  expect(html).toContain('--explore-replay ex1.AbC_-');
  const plain = buildModels([tc('t', 'failed')], [record('t', { ok: false })], info).scenarios[0];
  expect(plain.explore).toBeNull();
  expect(renderScenario(plain)).not.toContain('schedule explorer');
});
