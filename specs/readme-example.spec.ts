// The README's example, kept here so it is known to work.
import { replicate, scenario } from '../src';

scenario('producer wakes 2 consumers on other devices', {
  roles: {
    producer: { device: 0, run: async (ctx) => {
      const ev = ctx.createIpcEvent(); const latch = ctx.latch(); ev.record(ctx.stream); // record stays pending
      await ctx.shareEvent('ev', ev); await ctx.awaitSignals(['consumer-0.waiting', 'consumer-1.waiting']);
      ctx.mark('release'); latch.release(); ctx.stream.synchronize();
    } },
    consumer: replicate(2, (i) => ({ device: i + 1, run: async (ctx) => {
      ctx.stream.waitEvent(await ctx.openSharedEvent('ev', { from: 'producer' })); ctx.assertBlocked();
      await ctx.signal(`${ctx.role}.waiting`); ctx.stream.synchronize(); ctx.mark('after-wait');
    } })),
  },
  verify: (result) => expect(result).toHaveMarkOrder('producer:release', 'consumer:after-wait'),
});
