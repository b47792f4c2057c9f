/**
 * How often soak rounds find a narrow ordering bug (issue #35, items 2 and 3): the demo in
 * bench/race-demo-specs/torn-read-race.spec.ts (the producer's one-task fill of a record, on a
 * stream it never synchronizes, lands between the consumer's two copies of it: a torn read) under
 * plain rounds, `--jitter` and
 * `--explore` (a fresh seed per run), RACE_RUNS runs of each (default 20), alternately, each
 * `--rounds RACE_ROUNDS` (default 2000). Per way: in how many runs the bug was found, the round
 * of the first failure, and the wall time of the run to it (start-up included). Then every
 * `--explore` failure's replay command runs RACE_REPLAYS times (default 10): how many reproduce it.
 * Run: npm run bench -- race-demo (RACE_RUNS, RACE_ROUNDS, RACE_REPLAYS, RACE_WAYS=plain,jitter,explore;
 * RACE_JITTER_US, default the CLI's).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const runs = Number(process.env.RACE_RUNS ?? 20);
const replays = Number(process.env.RACE_REPLAYS ?? 10);
const wanted = (process.env.RACE_WAYS ?? 'plain,jitter,explore').split(',');
const rounds = Number(process.env.RACE_ROUNDS ?? 2000);
const bin = path.join(__dirname, '..', 'bin', 'cann-harness.js');
const specs = path.join(__dirname, 'race-demo-specs');
const junit = path.join(os.tmpdir(), `cann-race-demo-bench-${process.pid}.xml`);
const jitter = process.env.RACE_JITTER_US ? ['--jitter', process.env.RACE_JITTER_US] : ['--jitter'];

interface Outcome {
  found: boolean;
  round?: number;
  seconds: number;
  /** An --explore failure's replay argument (ex1.<token> or @<file>). */
  replay?: string;
}
function once(extra: string[], roundsArgs = ['--rounds', String(rounds)]): Outcome {
  const t0 = process.hrtime.bigint();
  const args = [bin, 'run', '--mode', 'stub', '--specs', specs, '--junit', junit, ...roundsArgs, ...extra];
  const r = spawnSync(process.execPath, args, {
    env: { ...process.env, FORCE_COLOR: '0', CANN_HARNESS_TIMEOUT_MS: '600000' },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const out = r.stdout + r.stderr;
  const m = /([\d,]+) of [\d,]+ rounds passed, round ([\d,]+) failed/.exec(out);
  if (r.status === 0) return { found: false, seconds };
  if (!m || !out.includes("a torn read: the producer's fill ran between the two copies")) {
    console.error(`a run failed for another reason (exit ${r.status ?? r.signal}):\n${out.split('\n').slice(-30).join('\n')}`);
    rmSync(junit, { force: true });
    process.exit(1);
  }
  // A long token is in a file of the kept directory, which the next run removes: keep the token itself.
  const arg = /--explore-replay (\S+)/.exec(out)?.[1];
  const replay = arg?.startsWith('@') ? readFileSync(arg.slice(1), 'utf8').trim() : arg;
  return { found: true, round: Number(m[2].replace(/,/g, '')), seconds, ...(replay ? { replay } : {}) };
}

const ways = ([
  ['plain', 'plain rounds', []],
  ['jitter', `--jitter${process.env.RACE_JITTER_US ? ` ${process.env.RACE_JITTER_US}` : ''}`, jitter],
  ['explore', '--explore', ['--explore']],
] as [string, string, string[]][]).filter(([key]) => wanted.includes(key)).map(([, way, extra]) => [way, extra] as [string, string[]]);
const results = new Map<string, Outcome[]>(ways.map(([w]) => [w, []]));
const load = () => os.loadavg()[0].toFixed(1);
console.log(`race-demo bench: ${runs} runs of --rounds ${rounds} per way, alternately; ${os.cpus().length} cores; load ${load()}`);
for (let i = 0; i < runs; i++) {
  for (const [way, extra] of i % 2 === 0 ? ways : [...ways].reverse()) {
    const o = once(extra);
    results.get(way)!.push(o);
    const what = o.found ? `found at round ${o.round}` : `not found in ${rounds} rounds`;
    console.log(`  ${way.padEnd(14)} run ${i + 1}: ${what}, ${o.seconds.toFixed(1)} s (load ${load()})`);
  }
}
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : NaN);
for (const [way] of ways) {
  const all = results.get(way)!;
  const found = all.filter((o) => o.found);
  const at = found.map((o) => o.round!);
  const detail = found.length
    ? `; first failure at round ${Math.min(...at)}-${Math.max(...at)} (median ${median(at)}), ` +
      `${median(found.map((o) => o.seconds)).toFixed(1)} s median to it (start-up included)`
    : '';
  console.log(`  ${way.padEnd(14)} found in ${found.length} of ${all.length} runs${detail}`);
}

// Every --explore failure's replay command, RACE_REPLAYS times each: the same failure each time?
const explored = results.get('--explore')?.filter((o) => o.replay) ?? [];
if (explored.length && replays > 0) {
  let reproduced = 0;
  let total = 0;
  for (const [i, o] of explored.entries()) {
    let same = 0;
    for (let k = 0; k < replays; k++) {
      // A replay runs the rounds up to the recorded one (--explore-replay sets them): no --rounds.
      const r = once(['--explore-replay', o.replay!], []);
      if (r.found) same++;
    }
    reproduced += same;
    total += replays;
    console.log(`  replay of explore failure ${i + 1} (round ${o.round}): reproduced ${same} of ${replays}`);
  }
  console.log(`  --explore replays: ${reproduced} of ${total} reproduced the failure (${explored.length} failures x ${replays})`);
}
rmSync(junit, { force: true });
