/**
 * The schedule explorer's replay token (src/wire/explore-file.ts): the stub's schedule text,
 * deflated and base64url'd behind `ex1.`; a bad token names its problem and the fix.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  EXPLORE_BYTES,
  ExploreTokenError,
  createExploreFiles,
  decodeToken,
  encodeToken,
  parseSchedule,
  readReplayArgument,
  readFailedSchedule,
  writeFailedSchedule,
} from '../../src/wire/explore-file';
import { exploreFailureText, inlineReplayFile } from '../../src/scenario/explore';

const SCHEDULE = [
  'cann-explore 1',
  'seed 42 depth 2 round 17 steps 9',
  'party 0 producer/main',
  'party 1 producer/stream1',
  'party 2 consumer/main',
  'party 3 consumer/stream0',
  'decisions 0 0 2 3 2 1 0 2 0',
  'degraded consumer/main left the explored points after step 7 (running 50 ms)',
  '',
].join('\n');

test('a schedule goes through its token unchanged, and parses', () => {
  const token = encodeToken(SCHEDULE);
  expect(token).toMatch(/^ex1\.[A-Za-z0-9_-]+$/);
  expect(decodeToken(token)).toBe(SCHEDULE);
  expect(parseSchedule(decodeToken(token))).toEqual({
    seed: '42',
    depth: 2,
    round: 17,
    steps: 9,
    parties: ['producer/main', 'producer/stream1', 'consumer/main', 'consumer/stream0'],
    decisions: [0, 0, 2, 3, 2, 1, 0, 2, 0],
    degraded: ['consumer/main left the explored points after step 7 (running 50 ms)'],
    diverged: [],
  });
});

test('a bad token names the problem and the fix', () => {
  const token = encodeToken(SCHEDULE);
  const cases: [string, RegExp][] = [
    ['ex2.abc', /does not start with "ex1\."/],
    ['ex1.ab+/', /not base64url/],
    [token.slice(0, token.length - 6), /does not inflate|does not start with "cann-explore 1"|is not "seed/],
    [encodeToken('cann-explore 1\nseed 1 depth 2 round 3 steps 1\nparty 0 a/main\ndecisions 0 1\n'), /decision "1" names no party/],
    [encodeToken('hello'), /does not start with "cann-explore 1"/],
  ];
  for (const [bad, problem] of cases) {
    let error: unknown;
    try {
      decodeToken(bad);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExploreTokenError);
    expect((error as Error).message).toMatch(problem);
    expect((error as Error).message).toContain('Copy the whole token');
  }
});

test('@file: the token read from a file; a missing file is named', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cann-explore-token-'));
  try {
    const file = path.join(dir, 'token');
    writeFileSync(file, `${encodeToken(SCHEDULE)}\n`);
    expect(readReplayArgument(`@${file}`)).toBe(SCHEDULE);
    expect(() => readReplayArgument(`@${file}.missing`)).toThrow(/cannot read .*token\.missing \(ENOENT\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the explore file is made exclusively, 0600, zero-filled to the stub size; a failed schedule is written once', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cann-explore-file-'));
  try {
    expect(createExploreFiles(dir, { seed: 7, depth: 3 })).toBe(`${path.join(dir, 'explore')}:7:3`);
    const st = statSync(path.join(dir, 'explore'));
    expect(st.size).toBe(EXPLORE_BYTES);
    expect(st.mode & 0o777).toBe(0o600);
    expect(() => createExploreFiles(dir, { seed: 7, depth: 3 })).toThrow(/EEXIST/);
    rmSync(path.join(dir, 'explore'));
    expect(createExploreFiles(dir, { replay: SCHEDULE })).toBe(`${path.join(dir, 'explore')}:replay:${path.join(dir, 'explore-replay')}`);
    expect(readFailedSchedule(dir, 'consumer')).toBeNull();
    writeFailedSchedule(dir, 'consumer', SCHEDULE);
    writeFailedSchedule(dir, 'consumer', 'second'); // the first stays
    expect(readFailedSchedule(dir, 'consumer')).toBe(SCHEDULE);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the failure text: seed, depth, round, notes and the replay command; a long token goes to a file', () => {
  const { text, replay } = exploreFailureText(SCHEDULE, 'npx cann-harness run x', null);
  expect(text).toContain('explore seed 42 depth 2, round 17 (9 decisions among 4 parties)');
  expect(text).toContain('degraded: consumer/main left the explored points');
  expect(replay).toBe(`npx cann-harness run x --explore-replay ${encodeToken(SCHEDULE)}`);
  expect(text).toContain(`replay with:\n  ${replay}`);

  const dir = mkdtempSync(path.join(os.tmpdir(), 'cann-explore-long-'));
  try {
    // Decisions that do not compress away: a token over 2,000 characters.
    let x = 12345;
    const many = Array.from({ length: 6000 }, () => ((x = (x * 1103515245 + 12345) % 2 ** 31) >> 16) % 4).join(' ');
    const long = SCHEDULE.replace(/decisions .*/, `decisions ${many}`);
    const r = exploreFailureText(long, 'cmd', dir);
    expect(r.replay).toMatch(/^cmd --explore-replay @.*explore-replay\.token$/);
    expect(readReplayArgument(r.replay.split(' ').pop()!)).toBe(long);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a replay given as @file is read at once into the environment (the results folder holding it is emptied next)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cann-explore-inline-'));
  try {
    const file = path.join(dir, 'explore-replay.token');
    writeFileSync(file, encodeToken(SCHEDULE));
    const env: NodeJS.ProcessEnv = { CANN_HARNESS_EXPLORE_REPLAY: `@${file}` };
    inlineReplayFile(env);
    rmSync(dir, { recursive: true, force: true });
    expect(env.CANN_HARNESS_EXPLORE_REPLAY).toBe(encodeToken(SCHEDULE));
    const token: NodeJS.ProcessEnv = { CANN_HARNESS_EXPLORE_REPLAY: 'ex1.abc' };
    inlineReplayFile(token); // a token as such is left for its own checks
    expect(token.CANN_HARNESS_EXPLORE_REPLAY).toBe('ex1.abc');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
