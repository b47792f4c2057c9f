/**
 * Data proves the wait: a producer fills an IPC memory buffer behind a latch and records; each
 * consumer waits, then reads. The data-race pair: with the wait every consumer reads the fresh
 * bytes; the control without the wait reads the stale bytes while the producer is held, so the
 * "fresh bytes" check demonstrably fails when the wait is missing.
 */
import { handoff, scenario } from '../src';

scenario('handoff via an IPC event: 3 consumers on devices 1..3 read the fresh bytes', handoff({ consumers: 3 }));
scenario('handoff via IPC notifies (one per consumer, waited on its own device)', handoff({ consumers: 2, sync: 'notify' }));
scenario('handoff on one device, 1 MiB buffer', handoff({ consumers: 2, sameDevice: true, bytes: 1 << 20 }));
scenario('data-race control: consumers that skip the wait read the stale bytes', {
  ...handoff({ consumers: 2, wait: false }),
  audit: {
    expectSurvive: ['wait-noop', 'wait-latest'],
    reason: 'control: its consumers skip the wait on purpose, to show that the byte check sees a missing wait',
  },
});
