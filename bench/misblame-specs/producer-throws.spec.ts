// Misblame (bench/misblame.bench.ts): a producer that throws right after sharing its IPC event,
// 15 consumers opening it. The producer's error is the cause; every consumer failure is a consequence.
import { replicate, scenario } from '../../src';

scenario('producer throws right after sharing its IPC event', {
  roles: {
    producer: {
      device: 0,
      run: async (ctx) => {
        await ctx.shareEvent('ev', ctx.createIpcEvent());
        throw new Error('producer broke after sharing');
      },
    },
    consumer: replicate(15, (i) => ({
      device: (i + 1) % 8,
      run: async (ctx) => {
        ctx.stream.waitEvent(await ctx.openSharedEvent('ev', { from: 'producer' }));
        ctx.stream.synchronize();
      },
    })),
  },
});
