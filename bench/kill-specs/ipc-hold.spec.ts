// Target of bench/runner-kill.bench.ts: an IPC event shared and opened across two device processes,
// which then hold still until the runner is SIGKILLed under them.
import { scenario } from '../../src';

scenario('runner kill: an IPC event shared, both roles holding', {
  devices: 2,
  timeoutMs: 300_000,
  roles: {
    producer: {
      device: 0,
      run: async (ctx) => {
        const ev = ctx.createIpcEvent();
        ev.record(ctx.stream);
        await ctx.shareEvent('ev', ev);
        await ctx.awaitSignal('opened', { from: 'consumer' });
        await ctx.sleep(280_000);
      },
    },
    consumer: {
      device: 1,
      run: async (ctx) => {
        ctx.stream.waitEvent(await ctx.openSharedEvent('ev', { from: 'producer' }));
        await ctx.signal('opened');
        await ctx.sleep(280_000);
      },
    },
  },
});
