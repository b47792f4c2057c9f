/**
 * One IPC event recorded again and again without reset (the normal use): each round the producer
 * records behind a latch, both consumers' waits bind to that round's record, and nobody resumes
 * before that round's release. Exercises slot reuse across many rounds.
 */
import * as assert from 'node:assert/strict';
import { EventRecordedStatus, replicate, scenario } from '../src';

const rounds = 25;

scenario(`event reuse: ${rounds} rounds of record / wait on one IPC event`, {
  devices: 3,
  params: { rounds },
  roles: {
    producer: {
      device: 0,
      run: async (ctx) => {
        const event = ctx.createIpcEvent();
        await ctx.shareEvent('event', event);
        const consumers = ctx.rolesIn('consumer');
        for (let r = 0; r < ctx.params.rounds; r++) {
          const latch = ctx.latch();
          event.record(ctx.stream);
          await ctx.signal(`r${r}.recorded`);
          await ctx.awaitSignals(consumers.map((c) => `r${r}.${c.name}.blocked`));
          assert.equal(event.queryStatus(), EventRecordedStatus.NOT_READY, `round ${r}: record must be pending`);
          ctx.mark(`r${r}.release`);
          latch.release();
          ctx.stream.synchronize();
          assert.equal(event.queryStatus(), EventRecordedStatus.COMPLETE, `round ${r}: record must be complete`);
        }
        await ctx.awaitSignals(consumers.map((c) => `${c.name}.done`));
      },
    },
    consumer: replicate(2, (i) => ({
      device: i + 1,
      run: async (ctx) => {
        const event = await ctx.openSharedEvent('event', { from: 'producer' });
        for (let r = 0; r < ctx.params.rounds; r++) {
          await ctx.awaitSignal(`r${r}.recorded`, { from: 'producer' });
          ctx.stream.waitEvent(event);
          ctx.assertBlocked(ctx.stream, 40);
          await ctx.signal(`r${r}.${ctx.role}.blocked`);
          ctx.stream.synchronize();
          ctx.mark(`r${r}.after-wait`);
        }
        await ctx.signal(`${ctx.role}.done`);
      },
    })),
  },
  verify: (result) => {
    for (let r = 0; r < rounds; r++) {
      expect(result).toHaveMarkOrder(`producer:r${r}.release`, `consumer:r${r}.after-wait`);
      if (r > 0) expect(result).toHaveMarkOrder(`consumer:r${r - 1}.after-wait`, `producer:r${r}.release`);
    }
  },
});
