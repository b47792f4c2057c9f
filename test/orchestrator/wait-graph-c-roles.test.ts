/**
 * The wait-for graph of C roles (issue 33 items 1 and 2): a C API wait in progress (recorded by the
 * preload like an ACL call, `name="<name>"`) is a harness wait like a TypeScript role's; a wait with
 * no `from` (C, or `awaitSignals`) still leads to the role that must send it when the run tells who
 * (the role its name starts with, or the only other role still running), so that a cycle is a
 * deadlock; a record's owner is an edge of the drawing; a native role is never "idle".
 */
import { buildWaitGraph, type RoleState } from '../../src/orchestrator/wait-graph';
import { buildModels } from '../../src/report/html/model';

const ctx = { nowNs: 5_000_000_000n };
const cWait = (name: string, what = 'cannharness_await_signal') => ({ name: what, args: `name="${name}"`, sinceNs: '2000000000' });
const native = (name: string, pid: number, more: Partial<RoleState>): RoleState => ({
  name,
  pid,
  native: true,
  call: null,
  main: { tid: pid, comm: name, state: 'S', wchan: 'do_sys_poll' },
  ...more,
});

test('two C roles each blocked in cannharness_await_signal for the other one\'s signal: one deadlock, both named with their waits', () => {
  const g = buildWaitGraph(
    [native('producer', 1, { call: cWait('consumer.ready') }), native('consumer', 2, { call: cWait('go') })],
    [],
    ctx,
  );
  expect(g.deadlock).toBe(true);
  expect(g.chains.map((c) => c.text)).toEqual([
    'deadlock: producer (cannharness_await_signal, for 3.0 s) awaits signal "consumer.ready" from consumer ' +
      '(no source named: its name starts with "consumer") ← ' +
      'consumer (cannharness_await_signal, for 3.0 s) awaits signal "go" from producer ' +
      '(no source named: the only other role still running) ← (back to producer)',
  ]);
  expect(g.chains[0].edges).toEqual([{ from: 'producer', to: 'consumer' }, { from: 'consumer', to: 'producer' }]);
});

test('a C role blocked in cannharness_await for a value nobody sends (three roles, no hint): waiting for that name, never "idle"', () => {
  const g = buildWaitGraph(
    [native('p', 1, { call: cWait('never', 'cannharness_await') }), native('a', 2, {}), native('b', 3, {})],
    [],
    ctx,
  );
  const text = g.lines.join('\n');
  expect(text).toContain('chain: p (cannharness_await, for 3.0 s) awaits handle "never" (no role named as its source)');
  expect(text).toContain('chain: a is blocked outside ACL calls and C API waits (cannharness.h): main thread sleeping in do_sys_poll');
  expect(text).not.toContain('idle');
});

test('a C role whose worker thread is in a C API wait is named with that thread', () => {
  const g = buildWaitGraph(
    [native('p', 1, { threadCalls: [{ thread: 0, call: cWait('x.go') }] }), native('x', 2, { call: cWait('p.go') })],
    [],
    ctx,
  );
  expect(g.deadlock).toBe(true);
  expect(g.chains[0].text).toMatch(/^deadlock: p thread 0 \(cannharness_await_signal, for 3.0 s\) awaits signal "x.go" from x/);
});

test('awaitSignals without from (the README example\'s producer): the cycle with the consumers is a deadlock, drawn as one', () => {
  const roles: RoleState[] = [
    { name: 'producer', pid: 1, waitingFor: { what: 'signal "consumer-1.waiting"' } },
    { name: 'consumer-0', pid: 2, waitingFor: { what: 'handle "ev"', from: 'producer' } },
    { name: 'consumer-1', pid: 3, waitingFor: { what: 'handle "ev"', from: 'producer' } },
  ];
  const g = buildWaitGraph(roles, [], ctx);
  expect(g.deadlock).toBe(true);
  expect(g.chains.map((c) => c.text)).toEqual([
    'deadlock: producer awaits signal "consumer-1.waiting" from consumer-1 (no source named: its name starts with "consumer-1") ← ' +
      'consumer-1 awaits handle "ev" from producer ← (back to producer)',
    'chain: consumer-0 awaits handle "ev" from producer ← ' +
      'producer awaits signal "consumer-1.waiting" from consumer-1 (no source named: its name starts with "consumer-1") ← ' +
      'consumer-1 awaits handle "ev" from producer ← (into the deadlock of producer)',
  ]);
  const page = buildModels(
    [{ specFile: '/s.spec.ts', file: 's.spec.ts', title: 't', status: 'failed', durationMs: 1, attempts: 1, failureMessages: [] }],
    [
      {
        specFile: '/s.spec.ts',
        title: 't',
        writtenAt: 1,
        scenario: 't',
        mode: 'stub',
        run: { timedOut: true, roles: [], waitGraph: g },
      } as never,
    ],
    { mode: 'stub', library: 'x', devices: 3, durationMs: 1, startedAt: 0, rerun: '', loadErrors: [] },
  ).scenarios[0].waitGraph!;
  expect(
    page.edges
      .filter((e) => e.inCycle)
      .map((e) => `${e.from}->${e.to}`)
      .sort(),
  ).toEqual(['consumer-1->producer', 'producer->consumer-1']);
  expect(page.edges.map((e) => `${e.from}->${e.to}`)).toContain('consumer-0->producer');
});

const line = (o: Record<string, unknown>) => JSON.stringify({ tid: 1, device: 0, event: 1, slot: 0, gen: 1, ...o });

test(
  'a C consumer synchronizing on the producer\'s IPC record: the producer is an edge of the graph, ' +
    'and a host function is not said to end by itself',
  () => {
    // producer (pid 1): a host function holds stream 1, its IPC record queued behind it; consumer (pid 2) waits on that record.
    const producer = [
      line({ pid: 1, t: 1, op: 'submit', kind: 'host_func', stream: 1, event: 0, task: 1, ipc: null }),
      line({ pid: 1, t: 2, op: 'start', kind: 'host_func', stream: 1, event: 0, task: 1, ipc: null }),
      line({ pid: 1, t: 3, op: 'submit', kind: 'ipc_record', stream: 1, task: 2, ipc: 'abcd' }),
    ].join('\n');
    const consumer = line({ pid: 2, t: 4, op: 'submit', kind: 'ipc_wait', stream: 5, task: 1, ipc: 'abcd' });
    const sync = { name: 'aclrtSynchronizeStream', args: 'stream=0x5a1000000005', sinceNs: '4000000000' };
    const g = buildWaitGraph(
      [
        native('producer', 1, { call: { name: 'aclrtSynchronizeStream', args: 'stream=0x5a1000000001', sinceNs: '4000000000' } }),
        native('consumer', 2, { call: sync }),
      ],
      [{ pid: 1, role: 'producer', jsonl: producer }, { pid: 2, role: 'consumer', jsonl: consumer }],
      ctx,
    );
    const consumerChain = g.chains.find((c) => c.roles[0] === 'consumer')!;
    expect(consumerChain.edges).toEqual([{ from: 'consumer', to: 'producer' }]);
    expect(consumerChain.text).toContain('recorded by producer stream 1');
    expect(g.lines.join('\n')).not.toContain('ends by itself');
    expect(consumerChain.text).toContain(
      'queued behind a host function running on producer stream 1 ' +
        '(user code, not a latch: it runs until it returns, and the harness does not see what it waits for)',
    );
  },
);

test('a host function of a C role that awaits a signal through the C API leads to the role expected to send it', () => {
  const producer = [
    line({ pid: 1, t: 1, op: 'submit', kind: 'host_func', stream: 1, event: 0, task: 1, ipc: null }),
    line({ pid: 1, t: 2, op: 'start', kind: 'host_func', stream: 1, event: 0, task: 1, ipc: null }),
    line({ pid: 1, t: 3, op: 'submit', kind: 'ipc_record', stream: 1, task: 2, ipc: 'abcd' }),
  ].join('\n');
  const consumer = line({ pid: 2, t: 4, op: 'submit', kind: 'ipc_wait', stream: 5, task: 1, ipc: 'abcd' });
  const g = buildWaitGraph(
    [
      native('producer', 1, {
        call: { name: 'aclrtSynchronizeStream', args: 'stream=0x5a1000000001', sinceNs: '4000000000' },
        threadCalls: [{ thread: 0, call: cWait('consumer.blocked') }],
      }),
      native('consumer', 2, { call: { name: 'aclrtSynchronizeStream', args: 'stream=0x5a1000000005', sinceNs: '4000000000' } }),
    ],
    [{ pid: 1, role: 'producer', jsonl: producer }, { pid: 2, role: 'consumer', jsonl: consumer }],
    ctx,
  );
  expect(g.deadlock).toBe(true);
  expect(g.lines.join('\n')).toContain(
    'queued behind a host function running on producer stream 1, while producer thread 0 awaits signal "consumer.blocked" from consumer',
  );
});
