/**
 * For bench/race-demo.bench.ts (issue #35, item 3): an ordering bug that natural timing almost
 * never shows. Every round the producer queues the round's payload on a second stream (its copy
 * stream) and the round's header on its main stream, synchronizes the main stream, prepares the
 * round's host-side metadata (a 5 ms stand-in) and tells the consumer "filled". The bug: it
 * synchronized the wrong stream; the payload's stream is never synchronized. Natural timing hides
 * it: the copy stream's executor was woken when the payload was queued, before everything else
 * the producer does, and has milliseconds to run a fill of microseconds. The consumer's copy reads
 * the previous round's payload only when that executor stays off the CPU through the header, the
 * synchronize, the host work, the signal, the consumer's wake-up and its copy. The schedule
 * explorer (`--explore`) finds it by choosing that order: host time does not count for it (the
 * producer is between points), only the order of the points.
 * Run: npx cann-harness run --specs bench/race-demo-specs --rounds 2000 [--jitter | --explore]
 */
import { scenario } from '../../src';

/** The byte of round r: never 0 (fresh memory) and never the previous round's. */
const roundByte = (round: number): number => 1 + (round % 251);
const BYTES = 4096;
/** The producer's host work before it signals (in a real program: building the round's metadata). */
const HOST_WORK_MS = 5;

type Buf = ReturnType<import('../../src').ScenarioContext['alloc']>;
type Stream = import('../../src').ScenarioContext['stream'];

scenario('race demo: a read races a write queued on a stream the writer did not synchronize', {
  devices: 2,
  rounds: 1,
  timeoutMs: 600_000,
  roles: {
    producer: {
      device: 0,
      setup: async (ctx) => {
        const payload = ctx.alloc(BYTES);
        const header = ctx.alloc(64);
        const copyStream = ctx.acl.createStream();
        // Both executors are started once, here, not in round 1.
        payload.fill(0, copyStream);
        header.fill(0, ctx.stream);
        copyStream.synchronize();
        ctx.stream.synchronize();
        await ctx.shareMemory('payload', payload, { importers: ['consumer'] });
        return { payload, header, copyStream };
      },
      run: async (ctx) => {
        const { payload, header, copyStream } = ctx.setup as { payload: Buf; header: Buf; copyStream: Stream };
        payload.fill(roundByte(ctx.round), copyStream); // queued on the copy stream
        header.fill(roundByte(ctx.round), ctx.stream); // queued on the main stream
        ctx.stream.synchronize(); // BUG: the payload went to copyStream: synchronize that one too
        await ctx.sleep(HOST_WORK_MS);
        await ctx.signal('filled');
        ctx.barrier(); // the consumer has read
      },
    },
    consumer: {
      device: 1,
      setup: async (ctx) => ({ mem: await ctx.openSharedMemory('payload', { from: 'producer' }), local: ctx.alloc(BYTES) }),
      run: async (ctx) => {
        const { mem, local } = ctx.setup as { mem: Buf; local: Buf };
        await ctx.awaitSignal('filled', { from: 'producer' });
        local.copyFrom(mem, ctx.stream);
        ctx.stream.synchronize();
        ctx.barrier();
        const data = local.read();
        const want = roundByte(ctx.round);
        const bad = data.findIndex((b) => b !== want);
        if (bad >= 0) {
          const got = `byte ${bad} is 0x${data[bad].toString(16)}, expected 0x${want.toString(16)}`;
          const why = "the copy ran before the producer's payload fill (queued on a stream the producer did not synchronize)";
          throw new Error(`round ${ctx.round}: ${got}: ${why}`);
        }
      },
    },
  },
});
