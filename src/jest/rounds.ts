/**
 * Soak rounds in the Jest integration: how many rounds a scenario test runs (CANN_HARNESS_ROUNDS,
 * from `run --rounds N` or the config's `rounds`, wins over the scenario's own `rounds`), the
 * jitter of its rounds, and the replay commands of a failed round.
 */
import { roundsFromEnv } from '../env/rounds';
import { ENV } from '../env';
import type { RoundsArgs, ScenarioPlan } from '../scenario/types';
import type { ScenarioResult } from '../scenario/types';
import { roundSeed } from '../scenario/round-seed';
import { replayCommand } from './repeat';

/** The rounds of this test, or undefined (no rounds: one body run per process, as always). */
export function roundsOf(plan: ScenarioPlan<any>, jitter: string | null, env: NodeJS.ProcessEnv = process.env): RoundsArgs | undefined {
  const total = roundsFromEnv(env) ?? plan.rounds;
  if (total === undefined) return undefined;
  const args: RoundsArgs = { total };
  // The run's jitter (--jitter), else ACL_STUB_JITTER set by hand (a replay): round 1 takes its seed.
  const text = jitter ?? env[ENV.stubJitter] ?? null;
  const m = text ? /^(\d+):(\d+)$/.exec(text) : null;
  if (m) args.jitter = { seed: Number(m[1]), maxUs: Number(m[2]) };
  return args;
}

/** The failed round (from the first failure's message, harness/scenario/rounds.ts), or null. */
export function failedRound(result: ScenarioResult): number | null {
  const message = result.roles.find((r) => r.name === result.firstFailure?.role)?.error?.message ?? '';
  const m = /rounds passed, round ([\d,]+) failed/.exec(message);
  return m ? Number(m[1].replace(/,/g, '')) : null;
}

/**
 * For a failed rounds run: the round, its seed and the commands that replay it, from that round's
 * seed (the rounds after it follow from it) and from the run's seed (every round before it too).
 */
export function roundsReplay(specFile: string, scenario: string, rounds: RoundsArgs, round: number | null): string {
  if (round === null) return '';
  const rest = rounds.total - round + 1;
  if (!rounds.jitter) {
    return `\n\nround ${round.toLocaleString('en-US')} of ${rounds.total.toLocaleString('en-US')} failed (no jitter); replay with:\n  ${replayCommand(specFile, scenario, null)} --rounds ${round}`;
  }
  const { seed, maxUs } = rounds.jitter;
  const own = roundSeed(seed, round);
  return (
    `\n\nround ${round.toLocaleString('en-US')} failed with jitter seed ${own} (run seed ${seed}); replay from that round's seed:\n` +
    `  ${replayCommand(specFile, scenario, `${own}:${maxUs}`)} --rounds ${rest}\n` +
    `or the whole run up to it:\n  ${replayCommand(specFile, scenario, `${seed}:${maxUs}`)} --rounds ${round}`
  );
}
