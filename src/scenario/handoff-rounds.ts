/**
 * The `handoff` template in soak rounds (`handoff({ consumers: 3, rounds: 10_000 })`): the IPC
 * event and the shared buffer are made once in `setup`, as a real pipeline does, and every round
 * is one checked handoff that takes milliseconds, not the 100 ms of assertBlocked:
 *   producer: latch its stream, fill the buffer with the round's byte (held), record, barrier;
 *   consumers: barrier, wait on the event, copy the buffer (queued behind the wait), barrier;
 *   producer: release the latch; everyone synchronizes; each consumer checks every byte.
 * The latch is released only after every consumer queued its wait and copy, so a consumer that
 * reads anything but this round's byte proves that its wait did not hold (the byte check), and
 * the first role checks the round's trace (happens-before) between rounds.
 */
import type { DeviceBuffer, Event } from '../acl';
import { replicate } from './plan';
import type { ScenarioContext, ScenarioDeclaration } from './types';

/** The byte of round r: never 0 (fresh memory) and never the previous round's. */
export const roundByte = (round: number): number => 1 + (round % 251);

interface ProducerState {
  ev: Event;
  buf: DeviceBuffer;
}
interface ConsumerState {
  ev: Event;
  mem: DeviceBuffer;
  local: DeviceBuffer;
}

export function handoffRounds(o: { consumers: number; bytes: number; rounds: number; sameDevice?: boolean; timeoutMs?: number }): ScenarioDeclaration {
  return {
    devices: o.sameDevice ? 1 : o.consumers + 1,
    timeoutMs: o.timeoutMs,
    rounds: o.rounds,
    roles: {
      producer: {
        device: 0,
        setup: async (ctx: ScenarioContext): Promise<ProducerState> => {
          const ev = ctx.createIpcEvent();
          const buf = ctx.alloc(o.bytes);
          await ctx.shareEvent('ready', ev);
          await ctx.shareMemory('buffer', buf, { importers: ['consumer'] });
          return { ev, buf };
        },
        run: async (ctx) => {
          const { ev, buf } = ctx.setup as ProducerState;
          const latch = ctx.latch();
          buf.fill(roundByte(ctx.round), ctx.stream); // held behind the latch
          ev.record(ctx.stream);
          ctx.barrier(); // recorded: the consumers may wait
          ctx.barrier(); // every consumer queued its wait and its copy
          latch.release();
          ctx.stream.synchronize();
        },
      },
      consumer: replicate(o.consumers, (i) => ({
        device: o.sameDevice ? 0 : i + 1,
        setup: async (ctx: ScenarioContext): Promise<ConsumerState> => ({
          ev: await ctx.openSharedEvent('ready', { from: 'producer' }),
          mem: await ctx.openSharedMemory('buffer', { from: 'producer' }),
          local: ctx.alloc(o.bytes),
        }),
        run: async (ctx) => {
          const { ev, mem, local } = ctx.setup as ConsumerState;
          ctx.barrier();
          ctx.stream.waitEvent(ev);
          local.copyFrom(mem, ctx.stream); // queued behind the wait
          ctx.barrier();
          ctx.stream.synchronize();
          const data = local.read();
          const want = roundByte(ctx.round);
          const bad = data.findIndex((b) => b !== want);
          if (bad >= 0) {
            throw new Error(
              `${ctx.role} read byte ${bad} = 0x${data[bad].toString(16)} in round ${ctx.round}, expected 0x${want.toString(16)}: ` +
                "the wait did not order this read after the producer's fill",
            );
          }
        },
      })),
    },
  };
}
