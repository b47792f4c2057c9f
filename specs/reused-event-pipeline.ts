/**
 * A pipeline as real multi-device code runs it, for soak rounds (docs/guide/soak-rounds.md): the
 * producer and each consumer create the IPC event and the shared buffer once (`setup`), then every
 * step (round) the producer computes (fills the buffer with the step's byte, waits for it) and
 * records the event, and each consumer waits on the event and reads the buffer.
 *
 * `bug: true` is a classic ordering bug of a reused event: the producer tells the consumers that
 * the step is ready (the barrier) before it has recorded it (it first waits for its compute). A
 * wait captures the latest record, so a consumer that gets there first captures the previous
 * step's record, does not wait at all, and reads the previous step's bytes whenever the
 * producer's compute is late. Without jitter that takes an unlucky schedule (in our runs: one
 * round in tens to hundreds, and a single run almost never); seeded jitter delays the compute
 * often enough that `--rounds 10000 --jitter` finds it within the first rounds.
 */
import { replicate, type DeviceBuffer, type Event } from '../src';

export interface PipelineOptions {
  consumers?: number;
  rounds?: number;
  bug?: boolean;
  bytes?: number;
  timeoutMs?: number;
}

interface ProducerState {
  ev: Event;
  buf: DeviceBuffer;
}
interface ConsumerState {
  ev: Event;
  data: DeviceBuffer;
  local: DeviceBuffer;
}

export function reusedEventPipeline({ consumers = 1, rounds, bug = false, bytes = 256, timeoutMs }: PipelineOptions = {}) {
  const stepByte = (round: number) => 1 + (round % 250);
  return {
    ...(rounds !== undefined ? { rounds } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    roles: {
      producer: {
        device: 0,
        setup: async (ctx: any): Promise<ProducerState> => {
          const ev = ctx.createIpcEvent();
          const buf = ctx.alloc(bytes);
          await ctx.shareEvent('step', ev);
          await ctx.shareMemory('data', buf);
          return { ev, buf };
        },
        run: async (ctx: any) => {
          const { ev, buf } = ctx.setup as ProducerState;
          buf.fill(stepByte(ctx.round), ctx.stream); // the step's "compute"
          if (bug) {
            ctx.barrier(); // BUG: tells the consumers the step is ready before it is recorded
            ctx.stream.synchronize();
            ev.record(ctx.stream);
          } else {
            ev.record(ctx.stream);
            ctx.barrier(); // this step is recorded: the consumers may wait on it
          }
        },
      },
      consumer: replicate(consumers, (i) => ({
        device: 1 + i,
        setup: async (ctx: any): Promise<ConsumerState> => ({
          ev: await ctx.openSharedEvent('step', { from: 'producer' }),
          data: await ctx.openSharedMemory('data', { from: 'producer' }),
          local: ctx.alloc(bytes),
        }),
        run: async (ctx: any) => {
          const { ev, data, local } = ctx.setup as ConsumerState;
          ctx.barrier(); // the producer says this step is recorded
          ctx.stream.waitEvent(ev); // captures the latest record: the previous step's, if it is not
          local.copyFrom(data, ctx.stream);
          ctx.stream.synchronize();
          const got = local.read(bytes);
          const want = stepByte(ctx.round);
          const wrong = got.findIndex((b) => b !== want);
          if (wrong >= 0) {
            const previous = got[wrong] === stepByte(ctx.round - 1) ? " (the previous step's bytes: the wait captured the previous record)" : '';
            throw new Error(`${ctx.role}: step ${ctx.round} read byte ${got[wrong]} at offset ${wrong}, expected ${want}${previous}`);
          }
        },
      })),
    },
  };
}
