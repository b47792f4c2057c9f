import { toChromeTrace } from '../../src/trace/chrome-trace';

const line = (o: Record<string, unknown>) =>
  JSON.stringify({ pid: 10, tid: 11, device: 0, stream: 1, event: 2, slot: null, ipc: null, ...o });

describe('toChromeTrace', () => {
  const producer = {
    pid: 10,
    role: 'producer',
    jsonl: [
      line({ t: 1_000_000, op: 'submit', kind: 'host_func', event: 0 }),
      line({ t: 1_100_000, op: 'start', kind: 'host_func', event: 0 }),
      line({ t: 1_200_000, op: 'submit', kind: 'ipc_record', slot: 0, ipc: 'ab' }),
      line({ t: 5_100_000, op: 'end', kind: 'host_func', event: 0 }),
      line({ t: 5_200_000, op: 'start', kind: 'ipc_record', slot: 0, ipc: 'ab' }),
      line({ t: 5_300_000, op: 'end', kind: 'ipc_record', slot: 0, ipc: 'ab' }),
      '{"t": 5400000, "op": "sta', // a process killed mid-write leaves no such line, but never trust it
    ].join('\n'),
  };
  const consumer = {
    pid: 20,
    role: 'consumer',
    jsonl: [
      line({ pid: 20, t: 2_000_000, op: 'submit', kind: 'ipc_wait', device: 1, slot: 0, ipc: 'ab' }),
      line({ pid: 20, t: 2_050_000, op: 'start', kind: 'ipc_wait', device: 1, slot: 0, ipc: 'ab' }),
      line({ pid: 20, t: 5_350_000, op: 'end', kind: 'ipc_wait', device: 1, slot: 0, ipc: 'ab' }),
      line({ pid: 20, t: 6_000_000, op: 'start', kind: 'host_func', device: 1, event: 0 }),
    ].join('\n'),
  };
  const marks = [{ role: 'consumer', pid: 20, marks: [{ name: 'after-wait', tNs: '5400000' }] }];
  const { traceEvents } = toChromeTrace([producer, consumer], marks);
  const bars = traceEvents.filter((e) => e.ph === 'X');

  test('each executed task is one bar on its stream, in microseconds from the earliest line', () => {
    expect(bars.map((b) => [b.pid, b.tid, b.name, b.ts, b.dur])).toEqual([
      [10, 1, 'host func', 100, 4000],
      [10, 1, 'ipc_record ev2 slot 0', 4200, 100],
      [20, 1, 'ipc_wait ev2 slot 0', 1050, 3300],
      [20, 1, 'host func (unfinished)', 5000, 0],
    ]);
    // The wait's bar ends after the record's bar starts: the timeline shows the cross-process blocking.
    const record = bars[1];
    const wait = bars[2];
    expect(wait.ts! + wait.dur!).toBeGreaterThan(record.ts!);
  });

  test('time spent queued behind earlier tasks is kept with each task', () => {
    expect(bars[1].args).toMatchObject({ queuedUs: 4000, ipc: 'ab', slot: 0 });
  });

  test('processes are named by role, streams by device, marks are instants', () => {
    const meta = traceEvents.filter((e) => e.ph === 'M').map((e) => [e.name, e.pid, e.tid, e.args?.name]);
    expect(meta).toEqual(
      expect.arrayContaining([
        ['process_name', 10, 0, 'producer (pid 10)'],
        ['process_name', 20, 0, 'consumer (pid 20)'],
        ['thread_name', 20, 1, 'device 1 stream 1'],
        ['thread_name', 20, 0, 'marks'],
      ]),
    );
    expect(traceEvents.filter((e) => e.ph === 'i')).toEqual([
      expect.objectContaining({ name: 'after-wait', pid: 20, tid: 0, ts: 4400, cat: 'mark' }),
    ]);
  });
  test('a flow arrow goes from each record to the wait it released, across processes', () => {
    const gen = (o: Record<string, unknown>) => ({ ...o, gen: 1 });
    const p = { pid: 10, role: 'producer', jsonl: [
      line(gen({ t: 1_000, op: 'submit', kind: 'ipc_record', slot: 0, ipc: 'ab', task: 1 })),
      line(gen({ t: 1_100, op: 'start', kind: 'ipc_record', slot: 0, ipc: 'ab', task: 1 })),
      line(gen({ t: 3_000, op: 'end', kind: 'ipc_record', slot: 0, ipc: 'ab', task: 1 })),
    ].join('\n') };
    const c = { pid: 20, role: 'consumer', jsonl: [
      line(gen({ pid: 20, t: 2_000, op: 'submit', kind: 'ipc_wait', stream: 3, slot: 0, ipc: 'ab', task: 1 })),
      line(gen({ pid: 20, t: 2_100, op: 'start', kind: 'ipc_wait', stream: 3, slot: 0, ipc: 'ab', task: 1 })),
      line(gen({ pid: 20, t: 3_500, op: 'end', kind: 'ipc_wait', stream: 3, slot: 0, ipc: 'ab', task: 1 })),
      // same slot, another use: released by no record in these traces, so no arrow
      line({ pid: 20, t: 4_000, op: 'end', kind: 'ipc_wait', stream: 3, slot: 0, ipc: 'ab', task: 2, gen: 2 }),
    ].join('\n') };
    const flows = toChromeTrace([p, c]).traceEvents.filter((e) => e.cat === 'flow');
    expect(flows.map((e) => [e.ph, e.pid, e.tid, e.id])).toEqual([['s', 10, 1, 1], ['f', 20, 3, 1]]);
    expect(flows[1].ts).toBe(2.5);
  });

  test('with the deadline known, an unfinished task lasts until it, and says so', () => {
    const { traceEvents: withDeadline } = toChromeTrace([producer, consumer], [], { endNs: 9_000_000 });
    const hung = withDeadline.find((e) => e.ph === 'X' && e.pid === 20 && e.name.startsWith('host func'));
    expect(hung).toMatchObject({ name: 'host func (unfinished at the deadline)', ts: 5000, dur: 3000 });
  });
});

test('after a timeout, what only the stop ended is unfinished at the deadline; what only the stop let run is an instant; no arrow', () => {
  // The producer holds a latch (host func) ahead of its record; the consumer waits for that record.
  // The deadline is at 4 ms; the stop at ~5 ms released the latch: the record ran, the wait ended.
  const g = (o: Record<string, unknown>) => line({ slot: 0, ipc: 'ab', gen: 1, ...o });
  const p = { pid: 10, role: 'producer', jsonl: [
    line({ t: 1_000_000, op: 'start', kind: 'host_func', event: 0 }), line({ t: 5_000_000, op: 'end', kind: 'host_func', event: 0 }),
    g({ t: 5_100_000, op: 'start', kind: 'ipc_record' }), g({ t: 5_200_000, op: 'end', kind: 'ipc_record' }),
    line({ t: 5_250_000, op: 'start', kind: 'host_func', event: 0 }), // then SIGKILL: no end
  ].join('\n') };
  const c = { pid: 20, role: 'consumer', jsonl: [
    g({ pid: 20, t: 2_000_000, op: 'start', kind: 'ipc_wait' }), g({ pid: 20, t: 5_300_000, op: 'end', kind: 'ipc_wait' }),
  ].join('\n') };
  const events = toChromeTrace([p, c], [], { endNs: 4_000_000, stoppedAt: () => 4_000_000 }).traceEvents;
  expect(events.filter((e) => e.ph === 'X').map((e) => [e.name, e.ts, e.dur])).toEqual([
    ['host func (unfinished at the deadline: stopped by the harness)', 0, 3000],
    ['ipc_wait ev2 slot 0 (unfinished at the deadline: stopped by the harness)', 1000, 2000],
  ]);
  expect(events.filter((e) => e.cat === 'stopped').map((e) => [e.ph, e.name, e.ts])).toEqual([
    ['i', 'ipc_record ev2 slot 0 (started after the deadline, as the harness stopped the run)', 4100],
    ['i', 'host func (started after the deadline, as the harness stopped the run)', 4250],
  ]);
  expect(events.filter((e) => e.cat === 'flow')).toEqual([]);
  // Without the cut (a passing run's view), the same traces draw finished bars and the release.
  const plain = toChromeTrace([p, c]).traceEvents;
  expect(plain.filter((e) => e.cat === 'flow')).toHaveLength(2);
});

test('memory and notify tasks (no event id) are named by their kind', () => {
  const jsonl = ['memcpy', 'notify_wait']
    .flatMap((kind, i) => [
      line({ t: 1_000_000 + i * 10_000, op: 'start', kind, event: 0 }),
      line({ t: 1_005_000 + i * 10_000, op: 'end', kind, event: 0 }),
    ])
    .join('\n');
  const bars = toChromeTrace([{ pid: 10, role: 'r', jsonl }]).traceEvents.filter((e) => e.ph === 'X');
  expect(bars.map((b) => b.name)).toEqual(['memcpy', 'notify wait']);
});
