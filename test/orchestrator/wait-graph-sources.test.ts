/**
 * Which stub state the wait-for graph used (issue #11): the live view when a role gave one, else its
 * trace file, else nothing (real CANN has no cannstub_live_view). Pure: hand-written states.
 */
import { buildWaitGraph, type RoleState } from '../../src/orchestrator/wait-graph';
import type { LiveView } from '../../src/acl/live-view';

const call = { name: 'aclrtSynchronizeStream', args: 'stream=0x5a1000000001', sinceNs: '1000000000' };
const ctx = { nowNs: 4_000_000_000n };

const consumerView: LiveView = {
  pid: 11,
  nowNs: '4000000000',
  streams: [
    {
      stream: 1, device: 1, destroyed: false, syncWaiters: 1, queued: [], queuedTotal: 0,
      head: { task: 1, kind: 'ipc_wait', event: 1, ipc: '00000000000000aa', slot: 0, gen: 1, recorder: { pid: 10, stream: 2 }, state: 'running', sinceNs: '1000000000' },
    },
  ],
};
const producerView: LiveView = {
  pid: 10,
  nowNs: '4000000000',
  streams: [
    {
      stream: 2, device: 0, destroyed: false, syncWaiters: 0, queuedTotal: 1,
      head: { task: 1, kind: 'host_func', state: 'running', sinceNs: '900000000' },
      queued: [{ task: 2, kind: 'ipc_record', event: 1, ipc: '00000000000000aa', slot: 0, gen: 1 }],
    },
  ],
};

test('live views alone: the record is found queued behind the producer latch, a deadlock', () => {
  const roles: RoleState[] = [
    { name: 'producer', pid: 10, waitingFor: { what: 'signal "go"', from: 'consumer' }, live: { view: producerView }, openLatches: 1 },
    { name: 'consumer', pid: 11, call, live: { view: consumerView } },
  ];
  const g = buildWaitGraph(roles, [], ctx);
  expect(g.deadlock).toBe(true);
  expect(g.sources).toEqual({ consumer: 'live' });
  expect(g.chains[0].text).toBe(
    'deadlock: producer awaits signal "go" from consumer ← consumer (aclrtSynchronizeStream stream=0x5a1000000001, for 3.0 s) ← ' +
      'waits IPC event 00000000000000aa slot 0 use 1 on stream 1, recorded by producer stream 2 ← ' +
      'queued behind a latch (host function on stream 2) held by producer ← (back to producer)',
  );
});

test('a live view is preferred over a stale trace of the same process', () => {
  // The trace says stream 1 has nothing unfinished; the live view (now) says it waits.
  const trace = { pid: 11, role: 'consumer', jsonl: '' };
  const roles: RoleState[] = [{ name: 'consumer', pid: 11, call, live: { view: consumerView } }];
  const g = buildWaitGraph(roles, [trace], ctx);
  expect(g.sources).toEqual({ consumer: 'live' });
  expect(g.chains[0].text).toContain('recorded by pid 10 stream 2: that record will never execute, its process (pid 10) is not a running role of this run');
});

test('real CANN: no live view, no trace; the graph says what it had and why', () => {
  const unavailable = '/opt/libascendcl.so has no cannstub_live_view (a stub-only call; real CANN has none)';
  const roles: RoleState[] = [{ name: 'consumer', pid: 11, call, live: { unavailable } }];
  const g = buildWaitGraph(roles, [], ctx);
  expect(g.sources).toEqual({ consumer: 'none' });
  expect(g.chains[0].text).toBe(
    'chain: consumer (aclrtSynchronizeStream stream=0x5a1000000001, for 3.0 s): no stub state to follow (no live view, no trace: real mode?)',
  );
  expect(g.lines[g.lines.length - 1]).toBe(`  (stream state from: nothing (consumer: ${unavailable}))`);
});

test('no live view but a trace: the trace is used, and named', () => {
  const jsonl = [
    '{"t":1,"pid":11,"tid":1,"op":"submit","kind":"ipc_wait","device":1,"stream":1,"task":1,"event":1,"slot":0,"gen":1,"ipc":"00000000000000aa"}',
    '{"t":2,"pid":11,"tid":1,"op":"start","kind":"ipc_wait","device":1,"stream":1,"task":1,"event":1,"slot":0,"gen":1,"ipc":"00000000000000aa"}',
  ].join('\n');
  const roles: RoleState[] = [{ name: 'consumer', pid: 11, call, live: { unavailable: 'the watcher sent no live view' } }];
  const g = buildWaitGraph(roles, [{ pid: 11, role: 'consumer', jsonl }], ctx);
  expect(g.sources).toEqual({ consumer: 'trace' });
  expect(g.chains[0].text).toContain('waits IPC event 00000000000000aa slot 0 use 1 on stream 1: no trace of the record it captured');
  expect(g.lines[g.lines.length - 1]).toBe('  (stream state from: trace files (consumer: the watcher sent no live view))');
});
