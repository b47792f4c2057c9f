/** buildWaitGraph on hand-written role states and traces: the chain ends it must name. */
import { buildWaitGraph, type RoleState } from '../../src/orchestrator/wait-graph';

const ctx = { nowNs: 5_000_000_000n };
const texts = (roles: RoleState[], traces: { pid: number; role: string | null; jsonl: string }[] = []) =>
  buildWaitGraph(roles, traces, ctx).chains.map((c) => c.text);
const line = (o: Record<string, unknown>) => JSON.stringify({ tid: 1, device: 0, stream: 1, event: 1, slot: null, ipc: null, gen: 1, ...o });

test('a wait on a role that has ended names how it ended; ended roles start no chain', () => {
  expect(texts([
    { name: 'waiter', pid: 1, waitingFor: { what: 'signal "s"', from: 'gone' } },
    { name: 'gone', pid: 2, ended: 'crashed' },
  ])).toEqual(['chain: waiter awaits signal "s" from gone ← gone has ended (crashed)']);
});

test('a free event loop is idle; a sleeping main thread outside ACL is named with its kernel wait', () => {
  expect(texts([
    { name: 'idle', pid: 1, call: null, loopFree: true, main: { tid: 1, comm: 'node', state: 'S', wchan: 'do_epoll_wait' } },
    { name: 'stuck', pid: 2, call: null, main: { tid: 2, comm: 'node', state: 'S', wchan: 'futex_wait_queue' } },
  ])).toEqual([
    'chain: idle is idle: its event loop is free but its body has not returned (awaiting something the harness does not see)',
    'chain: stuck is blocked outside ACL calls: main thread sleeping in futex_wait_queue',
  ]);
});

test('a role that gave no answer at all: its watchdog is not running, and the fix is named', () => {
  expect(texts([{ name: 'mute', pid: 3 }])).toEqual([
    'chain: mute did not answer: its native watchdog thread is not running (the warning in its log says why; fix: npm run build:stub)',
  ]);
});

test('real mode (no live view, no stub trace): the chain ends at the ACL call, with how long it has lasted', () => {
  expect(texts([{ name: 'r', pid: 7, call: { name: 'aclrtSynchronizeEvent', args: 'event=0x1', sinceNs: '2000000000' } }])).toEqual([
    'chain: r (aclrtSynchronizeEvent event=0x1, for 3.0 s): no stub state to follow (no live view, no trace: real mode?)',
  ]);
});

test('the synchronize\'s own stream (from the stub handle) is followed: a local wait behind a host function that is not a latch', () => {
  const jsonl = [
    line({ pid: 3, t: 1, op: 'submit', kind: 'host_func', event: 0, task: 1 }),
    line({ pid: 3, t: 2, op: 'start', kind: 'host_func', event: 0, task: 1 }),
    line({ pid: 3, t: 3, op: 'submit', kind: 'record', task: 2 }),
    line({ pid: 3, t: 4, op: 'submit', kind: 'wait', stream: 2, task: 1 }),
  ].join('\n');
  expect(texts([{ name: 'p', pid: 3, call: { name: 'aclrtSynchronizeStream', args: 'stream=0x5a1000000002', sinceNs: '4000000000' }, openLatches: 0 }], [{ pid: 3, role: 'p', jsonl }])).toEqual([
    'chain: p (aclrtSynchronizeStream stream=0x5a1000000002, for 1.0 s) ← waits event 1 use 1 on stream 2, recorded by p stream 1 ← queued behind a host function running on p stream 1 (user code, not a latch: it runs until it returns, and the harness does not see what it waits for)',
  ]);
});

test('two roles awaiting each other: one deadlock, printed once', () => {
  const g = buildWaitGraph([
    { name: 'a', pid: 1, waitingFor: { what: 'signal "x"', from: 'b' } },
    { name: 'b', pid: 2, waitingFor: { what: 'signal "y"', from: 'a' } },
  ], [], ctx);
  expect(g.deadlock).toBe(true);
  expect(g.chains.map((c) => c.text)).toEqual(['deadlock: a awaits signal "x" from b ← b awaits signal "y" from a ← (back to a)']);
});

test('a device synchronize stuck behind a value wait (aclrtValueWait) names it', () => {
  const jsonl = [
    line({ pid: 4, t: 1, op: 'submit', kind: 'value_wait', event: 0, task: 1 }),
    line({ pid: 4, t: 2, op: 'start', kind: 'value_wait', event: 0, task: 1 }),
    line({ pid: 4, t: 3, op: 'submit', kind: 'memset', event: 0, stream: 2, task: 1 }),
  ].join('\n');
  expect(texts([{ name: 'w', pid: 4, call: { name: 'aclrtSynchronizeDevice', args: '', sinceNs: '4000000000' }, openLatches: 0 }], [{ pid: 4, role: 'w', jsonl }])).toEqual([
    'chain: w (aclrtSynchronizeDevice, for 1.0 s) ← queued behind a value wait (aclrtValueWait) on w stream 1: it waits for a write to device memory, which is not traced',
  ]);
});
