/**
 * How often soak rounds find a narrow ordering bug (issue #35, item 3): the demo in
 * bench/race-demo-specs/queued-write-race.spec.ts (the consumer's copy races the producer's fill,
 * still queued on the producer's stream, because the producer says "filled" before it ran) under
 * plain rounds and under `--jitter`, RACE_RUNS runs of each (default 10), alternately, each
 * `--rounds RACE_ROUNDS` (default 2000). Per way: in how many runs the bug was found, the round
 * of the first failure, and the wall time of the run to it (start-up included).
 * Run: npm run bench -- race-demo (RACE_RUNS, RACE_ROUNDS; RACE_JITTER_US, default the CLI's).
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const runs = Number(process.env.RACE_RUNS ?? 10);
const rounds = Number(process.env.RACE_ROUNDS ?? 2000);
const bin = path.join(__dirname, '..', 'bin', 'cann-harness.js');
const specs = path.join(__dirname, 'race-demo-specs');
const junit = path.join(os.tmpdir(), `cann-race-demo-bench-${process.pid}.xml`);
const jitter = process.env.RACE_JITTER_US ? ['--jitter', process.env.RACE_JITTER_US] : ['--jitter'];

interface Outcome {
  found: boolean;
  round?: number;
  seconds: number;
}
function once(extra: string[]): Outcome {
  const t0 = process.hrtime.bigint();
  const args = [bin, 'run', '--mode', 'stub', '--specs', specs, '--junit', junit, '--rounds', String(rounds), ...extra];
  const r = spawnSync(process.execPath, args, {
    env: { ...process.env, FORCE_COLOR: '0', CANN_HARNESS_TIMEOUT_MS: '600000' },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const out = r.stdout + r.stderr;
  const m = /([\d,]+) of [\d,]+ rounds passed, round ([\d,]+) failed/.exec(out);
  if (r.status === 0) return { found: false, seconds };
  if (!m || !out.includes('the copy ran before the producer')) {
    console.error(`a run failed for another reason (exit ${r.status ?? r.signal}):\n${out.split('\n').slice(-30).join('\n')}`);
    rmSync(junit, { force: true });
    process.exit(1);
  }
  return { found: true, round: Number(m[2].replace(/,/g, '')), seconds };
}

const ways: [string, string[]][] = [
  ['plain rounds', []],
  [`--jitter${process.env.RACE_JITTER_US ? ` ${process.env.RACE_JITTER_US}` : ''}`, jitter],
];
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
rmSync(junit, { force: true });
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
