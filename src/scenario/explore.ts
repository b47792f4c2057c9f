/**
 * The schedule explorer for one scenario test (docs/guide/soak-rounds.md "Schedule explorer"):
 * what the environment asks (src/env/explore.ts), whether this scenario can be explored, and the
 * failure text with the replay command. The files and the token: src/wire/explore-file.ts.
 */
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ENV } from '../env';
import { DEFAULT_EXPLORE_DEPTH, exploreFromEnv, type ExploreRequest } from '../env/explore';
import { MAX_INLINE_TOKEN, describeSchedule, encodeToken, parseSchedule, readReplayArgument, type ExploreArgs } from '../wire/explore-file';
import { nextRoundSeed } from './round-seed';
import type { ExploreDegradedRounds, ScenarioPlan } from './types';

export { ExploreTokenError, decodeToken, encodeToken, parseSchedule, readReplayArgument } from '../wire/explore-file';
export type { ExploreArgs, Schedule } from '../wire/explore-file';

/** This test's explorer: off, on (with its label for the test title), or refused with the reason. */
export type ExploreChoice =
  | { on: false; note?: string }
  | { on: true; args: ExploreArgs; label: string | null }
  | { on: 'refused'; reason: string };

const STUB_ONLY =
  "the schedule explorer is a stub feature (it pauses the stub's threads at its points; " +
  "the real runtime's threads and the device cannot be paused)";
const NOT_WITH_JITTER =
  'the schedule explorer and --jitter exclude each other (the explorer decides the order that jitter would only disturb)';

/** Tokens up to this long travel in the environment (an exec refuses one string over 128 KiB). */
const MAX_ENV_TOKEN = 100_000;

/**
 * A replay given as `@<file>` is read now, before the run empties the results folder (where a long
 * token's file is, in the failed run's kept directory): the environment then carries the token
 * itself, or, when too long for it, names a private copy (removed when this process exits).
 * Throws ExploreTokenError when the file is unreadable or not a token.
 */
export function inlineReplayFile(env: NodeJS.ProcessEnv = process.env): void {
  const arg = env[ENV.exploreReplay];
  if (!arg?.startsWith('@')) return;
  const token = encodeToken(readReplayArgument(arg, ENV.exploreReplay));
  if (token.length <= MAX_ENV_TOKEN) {
    env[ENV.exploreReplay] = token;
    return;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cann-harness-replay-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'token');
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, token);
  } finally {
    closeSync(fd);
  }
  env[ENV.exploreReplay] = `@${file}`;
}

/**
 * `repetition` (1-based) draws its own seed from the run's (`fresh`: a new one each time).
 * `freshSeed` makes a new seed (the same as the jitter's).
 */
export function exploreChoice(
  plan: Pick<ScenarioPlan<any>, 'name' | 'roles'>,
  opts: { mode: string; jitter: boolean; repetition: number; freshSeed: () => number },
  env: NodeJS.ProcessEnv = process.env,
): ExploreChoice {
  let request: ExploreRequest | null;
  try {
    request = exploreFromEnv(env);
  } catch (e) {
    return { on: 'refused', reason: (e as Error).message };
  }
  if (!request) return { on: false };
  if (opts.mode === 'real') {
    return { on: 'refused', reason: `${STUB_ONLY}: run with --mode stub, or without --explore / ${ENV.explore}` };
  }
  if (opts.jitter) {
    return { on: 'refused', reason: `${NOT_WITH_JITTER}: give one of them` };
  }
  const native = plan.roles.find((r) => r.exec);
  if (native) return { on: false, note: `explore off: role ${native.name} is a native program (it runs once: no round to order)` };
  if (request.kind === 'replay') {
    try {
      return { on: true, args: { replay: readReplayArgument(request.token, ENV.exploreReplay) }, label: null };
    } catch (e) {
      return { on: 'refused', reason: (e as Error).message };
    }
  }
  let seed = request.seed === 'fresh' ? opts.freshSeed() : request.seed;
  if (request.seed !== 'fresh') for (let i = 1; i < opts.repetition; i++) seed = nextRoundSeed(seed);
  return { on: true, args: { seed, depth: request.depth }, label: `explore seed ${seed}` };
}

/**
 * The failure text of an explored run: the round's seed, depth and notes, and the command that
 * replays its schedule. A long token goes to a file in the kept scenario directory (`@<file>`).
 * `command` is the scenario's replay command without options.
 */
export function exploreFailureText(schedule: string, command: string, keptDir: string | null): { text: string; replay: string } {
  let s;
  try {
    s = parseSchedule(schedule, 'the failed round\'s schedule');
  } catch (e) {
    const why = (e as Error).message.split('.')[0];
    return { text: `\n\nexplore: the failed round's schedule could not be read (${why}); no replay command`, replay: command };
  }
  const token = encodeToken(schedule);
  let arg = token;
  if (token.length > MAX_INLINE_TOKEN && keptDir) {
    const file = path.join(keptDir, 'explore-replay.token');
    try {
      const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        writeSync(fd, token);
      } finally {
        closeSync(fd);
      }
      arg = `@${path.relative(process.cwd(), file) || file}`;
    } catch {
      /* the token itself, however long */
    }
  }
  const replay = `${command} --explore-replay ${arg}`;
  return { text: `\n\n${describeSchedule(s)}: replay with:\n  ${replay}`, replay };
}

/** The `run` options that explore with the same seed and depth again. */
export function exploreOptions(args: { seed: number; depth: number }): string {
  return ` --explore ${args.seed}${args.depth !== DEFAULT_EXPLORE_DEPTH ? ` --explore-depth ${args.depth}` : ''}`;
}

/**
 * A passing explored run with rounds the explorer did not fully order (a party left its points:
 * a sleep, a busy loop, a blocking call it cannot see): what the run's warning says.
 */
export function exploreDegradedText(d: ExploreDegradedRounds, totalRounds: number): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return (
    (totalRounds === 1
      ? `the schedule explorer did not fully order its run (${d.first}): it ran partly in the OS's order `
      : `the schedule explorer did not fully order ${n(d.rounds)} of its ${n(totalRounds)} rounds ` +
        `(first round ${n(d.firstRound)}: ${d.first}): they ran partly in the OS's order `) +
    '(docs/guide/soak-rounds.md, "What it cannot order"; host code that runs longer between two points is waited for ' +
    'with a larger ACL_STUB_EXPLORE_STALL_MS, default 50)'
  );
}
