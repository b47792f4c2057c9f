/**
 * What the CANN samples never test: consumers waiting on a record that is still pending.
 * The producer's stream is held by a latch when it records, so the record cannot complete until
 * the producer releases it. Each consumer proves its stream is blocked (a synchronize with a
 * timeout fails with ACL_ERROR_RT_STREAM_SYNC_TIMEOUT), and the marks prove it resumed only after
 * the release. If the wait were a no-op, both checks would fail; the control scenario shows that.
 */
import * as assert from 'node:assert/strict';
import { AclErrorCode, EventRecordedStatus, attempt, replicate, scenario } from '../src';

for (const sameDevice of [false, true]) {
  const consumers = 3;
  scenario(`pending record blocks ${consumers} consumers on ${sameDevice ? 'the producer device' : 'other devices'}`, {
    devices: sameDevice ? 1 : consumers + 1,
    roles: {
      producer: {
        device: 0,
        run: async (ctx) => {
          const event = ctx.createIpcEvent();
          const latch = ctx.latch();
          event.record(ctx.stream); // queued behind the latch: pending
          await ctx.shareEvent('event', event);
          await ctx.awaitSignals(ctx.rolesIn('consumer').map((c) => `${c.name}.blocked`));
          assert.equal(event.queryStatus(), EventRecordedStatus.NOT_READY, 'the record must still be pending');
          ctx.mark('release');
          latch.release();
          ctx.stream.synchronize();
          ctx.mark('record-done');
          await ctx.awaitSignals(ctx.rolesIn('consumer').map((c) => `${c.name}.done`));
        },
      },
      consumer: replicate(consumers, (i) => ({
        device: sameDevice ? 0 : i + 1,
        run: async (ctx) => {
          const event = await ctx.openSharedEvent('event', { from: 'producer' });
          ctx.stream.waitEvent(event);
          const early = attempt(() => ctx.stream.synchronize(150));
          assert.equal(early.code, AclErrorCode.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, 'the wait must block while the record is pending');
          ctx.mark('blocked');
          await ctx.signal(`${ctx.role}.blocked`);
          ctx.stream.synchronize();
          ctx.mark('after-wait');
          await ctx.signal(`${ctx.role}.done`);
        },
      })),
    },
    verify: (result) => {
      expect(result).toHaveMarkOrder('consumer:blocked', 'producer:release');
      expect(result).toHaveMarkOrder('producer:release', 'consumer:after-wait');
    },
  });
}

scenario('control: a wait on an already completed record is a no-op, and the blocking check sees it', {
  devices: 2,
  audit: {
    expectSurvive: ['wait-noop', 'record-instant', 'wait-latest'],
    reason: 'control: its wait is a no-op on purpose, to show that assertBlocked notices',
  },
  roles: {
    producer: {
      device: 0,
      run: async (ctx) => {
        const event = ctx.createIpcEvent();
        event.record(ctx.stream);
        ctx.stream.synchronize(); // completed before export, as in the CANN samples
        ctx.mark('record-done');
        await ctx.shareEvent('event', event);
        await ctx.awaitSignal('consumer.done', { from: 'consumer' });
      },
    },
    consumer: {
      device: 1,
      run: async (ctx) => {
        const event = await ctx.openSharedEvent('event', { from: 'producer' });
        ctx.stream.waitEvent(event);
        const sync = attempt(() => ctx.stream.synchronize(150));
        let check: string;
        try {
          ctx.assertBlocked();
          check = 'passed';
        } catch (e) {
          check = (e as Error).message;
        }
        await ctx.signal('consumer.done');
        return { syncCode: sync.code, check };
      },
    },
  },
  verify: (result) => {
    const { syncCode, check } = result.role('consumer').value as { syncCode: number; check: string };
    expect(syncCode).toBe(0);
    expect(check).toMatch(/behaved as a no-op/);
  },
});
