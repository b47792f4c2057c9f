/**
 * For bench/race-demo.bench.ts (issue #35, item 3): an ordering bug that natural timing almost
 * never shows, however slow the machine. A seqlock-style mailbox: the producer publishes one
 * record (a header and a payload in one buffer, written by ONE fill) per round; the consumer reads
 * the header, then the record, and may see the previous round's record or this round's, but
 * never a torn one (header of one round, payload of another): that is the contract it checks.
 * The bug: the producer queues the fill on its copy stream and signals without an event for the
 * consumer to wait on (it synchronized its main stream, the wrong one). The fill can then land
 * between the consumer's two copies. Timing almost never puts it there: the fill has 5 ms of the
 * producer's host work to run, and if its executor is starved longer it lands before or after
 * both copies, which are microseconds apart on one stream; either way the read is whole. The
 * schedule explorer (`--explore`) finds it by choosing that order: host time does not count for
 * it, only the order of the points (a change point right after the first copy).
 * Run: npx cann-harness run --specs bench/race-demo-specs --rounds 2000 [--jitter | --explore]
 */
import { scenario } from '../../src';

/** The byte of round r: never 0 (fresh memory) and never the previous round's. */
const roundByte = (round: number): number => 1 + (round % 251);
const HEADER = 64;
const RECORD = 4096;
/** The producer's host work before it signals (in a real program: building the round's metadata). */
const HOST_WORK_MS = 5;

type Buf = ReturnType<import('../../src').ScenarioContext['alloc']>;
type Stream = import('../../src').ScenarioContext['stream'];

scenario('race demo: a reader sees a record torn by a write the writer did not synchronize', {
  devices: 2,
  rounds: 1,
  timeoutMs: 600_000,
  roles: {
    producer: {
      device: 0,
      setup: async (ctx) => {
        const record = ctx.alloc(RECORD);
        const copyStream = ctx.acl.createStream();
        record.fill(0, copyStream); // starts the copy stream's executor once, here, not in round 1
        copyStream.synchronize();
        await ctx.shareMemory('record', record, { importers: ['consumer'] });
        return { record, copyStream };
      },
      run: async (ctx) => {
        const { record, copyStream } = ctx.setup as { record: Buf; copyStream: Stream };
        record.fill(roundByte(ctx.round), copyStream); // header and payload, one task
        ctx.stream.synchronize(); // BUG: the fill went to copyStream: synchronize that one
        await ctx.sleep(HOST_WORK_MS);
        await ctx.signal('filled');
        ctx.barrier(); // the consumer has read
      },
    },
    consumer: {
      device: 1,
      setup: async (ctx) => ({
        mem: await ctx.openSharedMemory('record', { from: 'producer' }),
        header: ctx.alloc(HEADER),
        copy: ctx.alloc(RECORD),
      }),
      run: async (ctx) => {
        const { mem, header, copy } = ctx.setup as { mem: Buf; header: Buf; copy: Buf };
        await ctx.awaitSignal('filled', { from: 'producer' });
        header.copyFrom(mem, ctx.stream, HEADER); // the header first (in a real reader: to learn the length)
        copy.copyFrom(mem, ctx.stream); // then the record
        ctx.stream.synchronize();
        ctx.barrier();
        const h = header.read()[0];
        const data = copy.read();
        const bad = data.findIndex((b) => b !== h);
        if (bad >= 0) {
          const got = `header 0x${h.toString(16)}, record byte ${bad} 0x${data[bad].toString(16)}`;
          const why = "a torn read: the producer's fill ran between the two copies (no event to wait on)";
          throw new Error(`round ${ctx.round}: ${got}: ${why}`);
        }
      },
    },
  },
});
