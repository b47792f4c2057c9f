/**
 * For bench/race-demo.bench.ts (issue #35, item 3): an ordering bug that natural timing shows
 * only rarely. Every round the producer queues a fill of the shared buffer on its stream and
 * tells the consumer "filled" at once (a signal), instead of recording an event
 * for the consumer to wait on (or synchronizing first). The consumer then copies the buffer and
 * checks the round's byte. The copy races the fill still queued on the producer's stream: the
 * stub's executor thread usually runs the fill within microseconds, before the consumer's copy,
 * so the bug hides; a fill delayed past the copy (a busy machine, or --jitter's delay before a
 * task) shows it as the previous round's byte.
 * Run: npx cann-harness run --specs bench/race-demo-specs --rounds 2000 [--jitter]
 */
import { scenario } from '../../src';

/** The byte of round r: never 0 (fresh memory) and never the previous round's. */
const roundByte = (round: number): number => 1 + (round % 251);
const BYTES = 4096;

scenario('race demo: a read races a queued write it should have waited for', {
  devices: 2,
  rounds: 1,
  timeoutMs: 600_000,
  roles: {
    producer: {
      device: 0,
      setup: async (ctx) => {
        const buf = ctx.alloc(BYTES);
        buf.fill(0, ctx.stream); // the stream's executor is started once, here, not in round 1
        ctx.stream.synchronize();
        await ctx.shareMemory('buffer', buf, { importers: ['consumer'] });
        return { buf };
      },
      run: async (ctx) => {
        const { buf } = ctx.setup as { buf: ReturnType<typeof ctx.alloc> };
        buf.fill(roundByte(ctx.round), ctx.stream); // queued: runs on the stream's executor, later
        await ctx.signal('filled'); // BUG: "filled" before the fill ran (record an event and let the consumer wait on it)
        ctx.barrier(); // the consumer has read
      },
    },
    consumer: {
      device: 1,
      setup: async (ctx) => ({ mem: await ctx.openSharedMemory('buffer', { from: 'producer' }), local: ctx.alloc(BYTES) }),
      run: async (ctx) => {
        const { mem, local } = ctx.setup as { mem: ReturnType<typeof ctx.alloc>; local: ReturnType<typeof ctx.alloc> };
        await ctx.awaitSignal('filled', { from: 'producer' });
        local.copyFrom(mem, ctx.stream);
        ctx.stream.synchronize();
        ctx.barrier();
        const data = local.read();
        const want = roundByte(ctx.round);
        const bad = data.findIndex((b) => b !== want);
        if (bad >= 0) {
          const got = `byte ${bad} is 0x${data[bad].toString(16)}, expected 0x${want.toString(16)}`;
          throw new Error(`round ${ctx.round}: ${got}: the copy ran before the producer's queued fill`);
        }
      },
    },
  },
});
