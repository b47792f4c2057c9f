/**
 * For bench/rounds.bench.ts and bench/rounds-sharing.bench.ts: a 1-producer, 3-consumer IPC
 * handoff (record, wait, synchronize, byte check, happens-before), run with `--rounds N` (one set
 * of processes) or with `--repeat-each N --rounds 1` (fresh processes each time). Each role logs
 * its memory at round ROUNDS_RSS_AT (default 10,000) and at its last round (bench/rounds-memory.ts;
 * the bench reads the lines through CANN_HARNESS_ECHO).
 */
import { handoff, scenario } from '../../src';
import { logRoundMemory } from '../rounds-memory';

// Memory is measured only when a rounds bench asks (it sets ROUNDS_RSS_AT and --expose-gc).
const rssAt = process.env.ROUNDS_RSS_AT === undefined ? undefined : Number(process.env.ROUNDS_RSS_AT);
const decl = handoff({ consumers: 3, rounds: 1, timeoutMs: 600_000 });

type Body = (ctx: any) => unknown;
const withMemory = (run: Body): Body => async (ctx) => {
  const value = await run(ctx);
  logRoundMemory(ctx, rssAt);
  return value;
};
const roles = decl.roles as Record<string, any>;
roles.producer = { ...roles.producer, run: withMemory(roles.producer.run) };
const consumers = roles.consumer;
roles.consumer = { ...consumers, make: (i: number) => ({ ...consumers.make(i), run: withMemory(consumers.make(i).run) }) };

scenario('rounds handoff: 1 producer, 3 consumers', decl);
