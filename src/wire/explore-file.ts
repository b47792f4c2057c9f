/**
 * The schedule explorer's files (docs/guide/soak-rounds.md "Schedule explorer"; the contract with
 * the stub: native-stub/include/cannstub/explore.h):
 *  - `<scenario dir>/explore`: the shared scheduler state, created zero-filled, exclusively (O_EXCL,
 *    0600, never through a link) by the orchestrator before any role starts; every role's stub maps it
 *    (ACL_STUB_EXPLORE=<file>:<seed>:<depth>); it goes away with the directory.
 *  - `<scenario dir>/explore-replay`: a recorded schedule to force (ACL_STUB_EXPLORE=<file>:replay:<it>).
 *  - `<scenario dir>/explore-failed.<role>`: the schedule of the round a role failed in, written by
 *    that role (harness/scenario/rounds.ts) and read back by the orchestrator.
 * And the replay token: `ex1.` + base64url of the deflated schedule text (what `--explore-replay` takes).
 * Written with plain fs: the orchestrator never loads koffi.
 */
import { closeSync, constants, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { MAX_EXPLORE_DEPTH } from '../env/explore';

export const EXPLORE_FILE = 'explore';
export const EXPLORE_REPLAY_FILE = 'explore-replay';
const FAILED_PREFIX = 'explore-failed.';
/** explore.h's CANNSTUB_EXPLORE_BYTES (test/architecture/c-ts-shared.test.ts). */
export const EXPLORE_BYTES = 1 << 20;
/** The token's version prefix. */
export const TOKEN_PREFIX = 'ex1.';
/** Longer tokens are written to a file in the kept scenario directory and given as `@<file>`. */
export const MAX_INLINE_TOKEN = 2000;

/** What the roles of one run explore: a seeded PCT search, or one recorded schedule forced. */
export type ExploreArgs = { seed: number; depth: number } | { replay: string };

function createExclusive(file: string, data?: Buffer, size?: number): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    if (data) writeSync(fd, data, 0, data.length, 0);
    if (size !== undefined) ftruncateSync(fd, size); // zero-filled
  } finally {
    closeSync(fd);
  }
}

/** Creates the run's explore file (and the replay schedule) and returns ACL_STUB_EXPLORE's value for every role. */
export function createExploreFiles(dir: string, args: ExploreArgs): string {
  const file = path.join(dir, EXPLORE_FILE);
  createExclusive(file, undefined, EXPLORE_BYTES);
  if ('replay' in args) {
    const schedule = path.join(dir, EXPLORE_REPLAY_FILE);
    createExclusive(schedule, Buffer.from(args.replay));
    return `${file}:replay:${schedule}`;
  }
  return `${file}:${args.seed}:${args.depth}`;
}

/** Where a failing role leaves its round's schedule. */
export function failedSchedulePath(dir: string, role: string): string {
  return path.join(dir, `${FAILED_PREFIX}${role}`);
}

/** Written once by the failing role (a second failure of the same role keeps the first). */
export function writeFailedSchedule(dir: string, role: string, text: string): void {
  try {
    createExclusive(failedSchedulePath(dir, role), Buffer.from(text));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

/** The schedule a role left when it failed, or null. */
export function readFailedSchedule(dir: string, role: string): string | null {
  try {
    const fd = openSync(failedSchedulePath(dir, role), constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      return readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** One round's schedule, as the stub writes it (cannstub_explore_schedule). */
export interface Schedule {
  seed: string;
  depth: number;
  round: number;
  steps: number;
  parties: string[];
  decisions: number[];
  degraded: string[];
  diverged: string[];
}

export class ExploreTokenError extends Error {
  constructor(what: string, problem: string) {
    super(
      `${what}: ${problem}. Copy the whole token (ex1.<...>) or @<file> from the failure text of a --explore run, as printed; ` +
        'a token from another version of the harness, or cut short by the terminal, cannot be replayed',
    );
    this.name = 'ExploreTokenError';
  }
}

/** Parses the stub's schedule text; throws with the line that is wrong. */
export function parseSchedule(text: string, what = 'explore schedule'): Schedule {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const got = (line: string | undefined, n: number) => JSON.stringify((line ?? '').slice(0, n));
  if (lines[0]?.trim() !== 'cann-explore 1') {
    throw new ExploreTokenError(what, `it does not start with "cann-explore 1" (got ${got(lines[0], 40)})`);
  }
  const head = /^seed (\S+) depth (\d+) round (\d+) steps (\d+)$/.exec(lines[1]?.trim() ?? '');
  if (!head) {
    throw new ExploreTokenError(what, `its second line is not "seed <s> depth <d> round <r> steps <k>" (got ${got(lines[1], 60)})`);
  }
  const [seed, depth, round, steps] = [head[1], Number(head[2]), Number(head[3]), Number(head[4])];
  const s: Schedule = { seed, depth, round, steps, parties: [], decisions: [], degraded: [], diverged: [] };
  for (const line of lines.slice(2)) {
    const [key, ...rest] = line.trim().split(' ');
    if (key === 'party') {
      const [index, id] = rest;
      if (Number(index) !== s.parties.length || !id) {
        throw new ExploreTokenError(what, `party line ${JSON.stringify(line)} is out of order or has no name`);
      }
      s.parties.push(id);
    } else if (key === 'decisions') {
      for (const d of rest.filter(Boolean)) {
        const named = /^\d+$/.test(d) && Number(d) < s.parties.length;
        if (!named) throw new ExploreTokenError(what, `decision ${JSON.stringify(d)} names no party`);
        s.decisions.push(Number(d));
      }
    } else if (key === 'degraded') s.degraded.push(rest.join(' '));
    else if (key === 'diverged') s.diverged.push(rest.join(' '));
    else throw new ExploreTokenError(what, `unknown line ${JSON.stringify(line.slice(0, 60))}`);
  }
  if (s.depth < 1 || s.depth > MAX_EXPLORE_DEPTH) throw new ExploreTokenError(what, `depth ${s.depth} is not 1..${MAX_EXPLORE_DEPTH}`);
  if (s.round < 1) throw new ExploreTokenError(what, `round ${s.round} is not a round (1 or more)`);
  return s;
}

/** `ex1.` + base64url(deflateRaw(schedule text)). */
export function encodeToken(schedule: string): string {
  return TOKEN_PREFIX + deflateRawSync(Buffer.from(schedule), { level: 9 }).toString('base64url');
}

/** The schedule text of a token (checked), or ExploreTokenError naming the problem. */
export function decodeToken(token: string, what = '--explore-replay'): string {
  const t = token.trim();
  if (!t.startsWith(TOKEN_PREFIX)) {
    throw new ExploreTokenError(what, `${JSON.stringify(t.slice(0, 12))} does not start with "${TOKEN_PREFIX}"`);
  }
  const body = t.slice(TOKEN_PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) {
    throw new ExploreTokenError(what, 'the text after "ex1." is not base64url (letters, digits, - and _ only)');
  }
  let text: string;
  try {
    text = inflateRawSync(Buffer.from(body, 'base64url')).toString('utf8');
  } catch {
    throw new ExploreTokenError(what, 'the token does not inflate (it is cut short or altered)');
  }
  parseSchedule(text, what);
  return text;
}

/** A token given as `ex1.<...>` or `@<file>` (whose content is the token): the schedule text. */
export function readReplayArgument(arg: string, what = '--explore-replay'): string {
  if (!arg.startsWith('@')) return decodeToken(arg, what);
  const file = arg.slice(1);
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ExploreTokenError(`${what} ${arg}`, `cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return decodeToken(content, `${what} ${arg}`);
}

/** The failure text's lines: seed, depth, round and the schedule's notes. */
export function describeSchedule(s: Schedule): string {
  const head = s.seed === 'replay' ? `explore replay, round ${s.round}` : `explore seed ${s.seed} depth ${s.depth}, round ${s.round}`;
  const notes = [...s.degraded.map((d) => `\n  degraded: ${d}`), ...s.diverged.map((d) => `\n  diverged: ${d}`)].join('');
  return `${head} (${s.decisions.length} decisions among ${s.parties.length} parties)${notes}`;
}
