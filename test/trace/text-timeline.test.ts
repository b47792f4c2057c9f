import { formatTextTimeline } from '../../src/trace/text-timeline';

const line = (o: Record<string, unknown>) =>
  JSON.stringify({ pid: 10, tid: 11, device: 0, stream: 1, event: 0, slot: null, ipc: null, gen: null, ...o });

describe('formatTextTimeline', () => {
  const producer = { pid: 10, role: 'producer', jsonl: [
    line({ t: 1_000_000, op: 'submit', kind: 'host_func', task: 1 }),
    line({ t: 1_000_000, op: 'start', kind: 'host_func', task: 1 }),
    line({ t: 1_500_000, op: 'submit', kind: 'ipc_record', task: 2, slot: 0, ipc: 'abcdef0123456789', gen: 1 }),
  ].join('\n') };
  const consumer = { pid: 20, role: 'consumer', jsonl: [
    line({ pid: 20, t: 2_000_000, op: 'submit', kind: 'ipc_wait', device: 1, stream: 2, task: 1, slot: 0, ipc: 'abcdef0123456789', gen: 1 }),
    line({ pid: 20, t: 2_100_000, op: 'start', kind: 'ipc_wait', device: 1, stream: 2, task: 1, slot: 0, ipc: 'abcdef0123456789', gen: 1 }),
    line({ pid: 20, t: 3_000_000, op: 'end', kind: 'ipc_wait', device: 1, stream: 2, task: 1, slot: 0, ipc: 'abcdef0123456789', gen: 1 }),
    line({ pid: 20, t: 3_100_000, op: 'submit', kind: 'record', device: 1, stream: 2, task: 2, event: 4, gen: 1 }),
    line({ pid: 20, t: 3_200_000, op: 'cancel', kind: 'record', device: 1, stream: 2, task: 2, event: 4, gen: 1 }),
  ].join('\n') };

  test('per role and stream: what ran, when, and what never finished', () => {
    expect(formatTextTimeline([producer, consumer], { endNs: 11_000_000n })).toEqual([
      'timeline (ms from the first trace line; per role and stream, the last tasks; the deadline was at +10.0):',
      '  producer (pid 10)',
      '    stream 1 (device 0): host func +0.0..+10.0 UNFINISHED; ipc_record abcdef01 slot 0 queued +0.5, never ran',
      '  consumer (pid 20)',
      '    stream 2 (device 1): ipc_wait abcdef01 slot 0 +1.1..+2.0; record ev4 cancelled +2.2',
    ]);
  });

  test('after a failure: what the stop ended is UNFINISHED at the failure line; what it let run started after it', () => {
    const held = { pid: 10, role: 'holder', jsonl: [
      line({ t: 1_000_000, op: 'submit', kind: 'host_func', task: 1 }),
      line({ t: 1_000_000, op: 'start', kind: 'host_func', task: 1 }),
      line({ t: 1_100_000, op: 'submit', kind: 'record', task: 2, event: 3, gen: 1 }),
      line({ t: 9_000_000, op: 'end', kind: 'host_func', task: 1 }), // the latch its exit released
      line({ t: 9_000_000, op: 'start', kind: 'record', task: 2, event: 3, gen: 1 }),
      line({ t: 9_100_000, op: 'end', kind: 'record', task: 2, event: 3, gen: 1 }),
      line({ t: 1_200_000, op: 'submit', kind: 'host_func', task: 3 }),
      line({ t: 9_200_000, op: 'start', kind: 'host_func', task: 3 }), // then SIGKILL: no end
    ].join('\n') };
    expect(formatTextTimeline([held], { endNs: 4_000_000n, endLabel: 'the first failure', stoppedAt: (pid) => (pid === 10 ? 8_000_000 : undefined) })).toEqual([
      'timeline (ms from the first trace line; per role and stream, the last tasks; the first failure was at +3.0):',
      '  holder (pid 10)',
      '    stream 1 (device 0): host func +0.0..+3.0 UNFINISHED (stopped by the harness at +8.0); ' +
        'record ev3 +8.0 (started after the first failure, as the harness stopped the run); ' +
        'host func +8.2 (started after the first failure, as the harness stopped the run)',
    ]);
    // Another process (not stopped): its ends are its own.
    expect(formatTextTimeline([held], { endNs: 4_000_000n, stoppedAt: () => undefined })[2]).toBe(
      '    stream 1 (device 0): host func +0.0..+8.0; record ev3 +8.0..+8.1; host func +8.2 (started after the deadline, never ended)',
    );
  });

  test('no traces (real mode): no timeline', () => {
    expect(formatTextTimeline([{ pid: 1, role: 'x', jsonl: '' }])).toEqual([]);
  });
});
