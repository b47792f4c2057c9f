/**
 * A queued wait keeps the record it captured when it was issued, even if the event is recorded
 * again before the wait runs. The consumer issues its wait behind its own latch (record A is
 * pending then); the producer records the event a second time (record B, held by a latch it keeps
 * until the consumer is through); only then does the consumer let its wait run. The wait must
 * block on A, and end when A is released, while B is still held. A stub whose waits bind to the
 * latest record when they run (the `wait-latest` mutant) would wait for B: the consumer never gets
 * through, and the producer says so instead of hanging until the scenario's deadline.
 */
import { scenario } from '../src';

/** How long the producer waits for the consumer before it calls the wait bound to the wrong record. */
const THROUGH_MS = 5_000;

scenario('a queued wait keeps the record it captured when the event is recorded again', {
  devices: 2,
  roles: {
    producer: {
      device: 0,
      run: async (ctx) => {
        const event = ctx.createIpcEvent();
        const first = ctx.latch();
        event.record(ctx.stream); // record A: pending behind `first`
        await ctx.shareEvent('event', event);
        await ctx.awaitSignal('wait-issued', { from: 'consumer' });
        const second = ctx.latch();
        event.record(ctx.stream); // record B: the event's latest, pending behind `second`
        await ctx.signal('recorded-again');
        await ctx.awaitSignal('blocked', { from: 'consumer' });
        ctx.mark('release-a');
        first.release();
        try {
          await ctx.awaitSignal('through', { from: 'consumer', timeoutMs: THROUGH_MS });
        } catch {
          throw new Error(
            `the consumer's wait did not end within ${THROUGH_MS} ms of releasing record A, while record B was ` +
              'still held: the wait is bound to the later record B, not to the record A it captured when issued',
          );
        } finally {
          second.release();
        }
        ctx.mark('release-b');
        ctx.stream.synchronize();
      },
    },
    consumer: {
      device: 1,
      run: async (ctx) => {
        const event = await ctx.openSharedEvent('event', { from: 'producer' });
        const own = ctx.latch();
        ctx.stream.waitEvent(event); // captures record A, queued behind `own`
        await ctx.signal('wait-issued');
        await ctx.awaitSignal('recorded-again', { from: 'producer' });
        own.release(); // the wait runs now, after record B was issued
        ctx.assertBlocked(ctx.stream, 40);
        await ctx.signal('blocked');
        ctx.stream.synchronize();
        ctx.mark('after-wait');
        await ctx.signal('through');
      },
    },
  },
  verify: (result) => {
    expect(result).toHaveMarkOrder('producer:release-a', 'consumer:after-wait');
    expect(result).toHaveMarkOrder('consumer:after-wait', 'producer:release-b');
  },
});
