/**
 * For bench/rounds.bench.ts: a 1-producer, 3-consumer IPC handoff (record, wait, synchronize,
 * byte check, happens-before), run with `--rounds N` (one set of processes) or with
 * `--repeat-each N --rounds 1` (fresh processes each time). Each role logs its RSS at round
 * ROUNDS_RSS_AT (default 10,000) and at its last round, after a full GC (the bench reads them
 * through --echo).
 */
import { handoff, scenario } from '../../src';

const rssAt = Number(process.env.ROUNDS_RSS_AT ?? 10_000);
const decl = handoff({ consumers: 3, rounds: 1, timeoutMs: 600_000 });

type Body = (ctx: any) => unknown;
const withRss = (run: Body): Body => async (ctx) => {
  const value = await run(ctx);
  if (ctx.rounds > 1 && (ctx.round === rssAt || ctx.round === ctx.rounds)) {
    // After a full collection (the bench runs Node with --expose-gc): the heap's saw-tooth between
    // collections is not growth.
    (globalThis as { gc?: () => void }).gc?.();
    ctx.log(`rss ${ctx.role} round ${ctx.round} ${process.memoryUsage().rss}`);
  }
  return value;
};
const roles = decl.roles as Record<string, any>;
roles.producer = { ...roles.producer, run: withRss(roles.producer.run) };
const consumers = roles.consumer;
roles.consumer = { ...consumers, make: (i: number) => ({ ...consumers.make(i), run: withRss(consumers.make(i).run) }) };

scenario('rounds handoff: 1 producer, 3 consumers', decl);
