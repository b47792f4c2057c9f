/**
 * For bench/rounds-sharing.bench.ts: a round written the way the README shows per-round sharing (issue
 * #35). Every round the producer makes a new IPC event, records it behind a latch and shares it;
 * 3 consumers on devices 1-3 open it, queue a wait on it and signal back; the producer awaits
 * their 3 signals, releases the latch, and everyone synchronizes. Nothing is made in `setup`:
 * each round pays for event creation, export, 3 opens, 1 publish, 3 handle reads, 3 signals and
 * what the round's end releases.
 */
import { replicate, scenario } from '../../src';
import { logRoundMemory } from '../rounds-memory';

const consumers = 3;
// Memory is measured only when a rounds bench asks (it sets ROUNDS_RSS_AT and --expose-gc).
const rssAt = process.env.ROUNDS_RSS_AT === undefined ? undefined : Number(process.env.ROUNDS_RSS_AT);

scenario('rounds per-round sharing: 1 producer, 3 consumers', {
  devices: consumers + 1,
  rounds: 1,
  timeoutMs: 600_000,
  roles: {
    producer: {
      device: 0,
      run: async (ctx) => {
        const ev = ctx.createIpcEvent();
        const latch = ctx.latch();
        ev.record(ctx.stream); // stays pending behind the latch
        await ctx.shareEvent('ev', ev);
        await ctx.awaitSignals(Array.from({ length: consumers }, (_, i) => `consumer-${i}.waiting`));
        latch.release();
        ctx.stream.synchronize();
        logRoundMemory(ctx, rssAt);
      },
    },
    consumer: replicate(consumers, (i) => ({
      device: i + 1,
      run: async (ctx) => {
        ctx.stream.waitEvent(await ctx.openSharedEvent('ev', { from: 'producer' }));
        await ctx.signal(`${ctx.role}.waiting`);
        ctx.stream.synchronize();
        logRoundMemory(ctx, rssAt);
      },
    })),
  },
});
