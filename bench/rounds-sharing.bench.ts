/**
 * Rounds where users are (issue #35): wall time and CPU time per checked round of
 *  - "sharing": a round written the way the README shows per-round sharing
 *    (bench/round-sharing-specs/per-round-sharing.spec.ts: every round the producer creates an IPC
 *    event, records it behind a latch, shares it; 3 consumers on devices 1-3 open it, wait on it,
 *    signal back; the producer awaits the 3 signals and releases the latch), and
 *  - "template": `handoff({ consumers: 3, rounds })` (bench/rounds-specs/handoff.spec.ts),
 * each as `cann-harness run --rounds N` minus `--rounds W` and minus `--rounds 1`:
 *  - steady: (time(N) - time(W)) / (N - W), a round's cost once the processes are warm: V8 keeps
 *    compiling the round's code on background threads for the first few thousand rounds (about
 *    190 optimised functions a device process, a quarter of its CPU in the first seconds), a
 *    cost a run pays once, like its start-up, and that a 100,000-round soak spreads thin;
 *  - all-in: (time(N) - time(1)) / (N - 1), warm-up included, what an N-round run feels like.
 * W is a fifth of N. CPU time is every process of the run (the CLI, its Jest worker,
 * the 4 device processes): this process's children's user + system time (/proc/self/stat cutime,
 * cstime), which a loaded machine disturbs far less than the wall clock.
 *
 * ROUNDS_BASELINE=<another checkout> (e.g. `git worktree add --detach /tmp/base <commit>`, with
 * its stub built and a node_modules) measures that checkout too, alternately with this one, each
 * scenario ROUNDS_REPS times (default 3), and prints the ratios this/baseline of the medians: the
 * machine's load changes between runs, the alternation spreads it over both. The spec folders are
 * copied into temporary folders of the baseline's bench/ (removed after), so both run the same
 * rounds against their own harness and stub.
 * Memory: every device process logs its memory at round ROUNDS_RSS_AT (default a tenth of the
 * rounds) and at its last round (bench/rounds-memory.ts); flat means its live memory (V8's
 * heapUsed plus malloc'd bytes in use, after two full collections) grew by at most 10 % and it
 * maps no more /dev/shm objects, judged (exit 1 if not) only for runs of 50,000 rounds or more.
 * RSS is shown, not judged: this bench used to judge RSS after one full collection, and that read
 * +1 % to +31 % for the template, whose live memory was flat all along: RSS right after gc() swings
 * by up to 24 MiB with how many of the pages the collection freed V8's background threads have
 * yet to return (bench/rounds-memory.ts). Run with ROUNDS_SHARING=100000 ROUNDS_TEMPLATE=100000
 * for the 100,000-round check.
 * Run: npm run bench -- rounds-sharing (ROUNDS_SHARING, default 10000; ROUNDS_TEMPLATE, default
 * 30000; ROUNDS_REPS, default 3; ROUNDS_BASELINE). Goals (issue #35): sharing >= 1,000 rounds/s,
 * template >= 3,000, CPU per round half the baseline's, memory flat.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FLAT_WITHIN_PERCENT, judgeRoundMemory, parseRoundMemory, type MemoryVerdict } from './rounds-memory';

const TICK_S = 0.01; // USER_HZ
/** Memory growth fails the bench only in runs this long (from a tenth of them to the end). */
const MEMORY_JUDGED_FROM = 50_000;
const reps = Number(process.env.ROUNDS_REPS ?? 3);
const baseline = process.env.ROUNDS_BASELINE ? path.resolve(process.env.ROUNDS_BASELINE) : undefined;
const here = path.resolve(__dirname, '..');
const junit = path.join(os.tmpdir(), `cann-rounds-sharing-bench-${process.pid}.xml`);

interface Kind {
  name: string;
  specs: string; // folder under bench/
  rounds: number;
}
const kinds: Kind[] = [
  { name: 'sharing', specs: 'round-sharing-specs', rounds: Number(process.env.ROUNDS_SHARING ?? 10_000) },
  { name: 'template', specs: 'rounds-specs', rounds: Number(process.env.ROUNDS_TEMPLATE ?? 30_000) },
];
for (const k of kinds) {
  if (!Number.isInteger(k.rounds) || k.rounds < 10) {
    console.error(`ROUNDS_${k.name.toUpperCase()} must be an integer >= 10, got ${k.rounds}`);
    process.exit(2);
  }
}

function childrenCpuS(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) * TICK_S;
}

interface Checkout {
  label: string;
  root: string;
  specDir: (k: Kind) => string;
}
const checkouts: Checkout[] = [{ label: 'this', root: here, specDir: (k) => path.join(here, 'bench', k.specs) }];
const baselineCopies: string[] = [];
if (baseline) {
  if (!existsSync(path.join(baseline, 'bin', 'cann-harness.js')) || !existsSync(path.join(baseline, 'native-stub', 'build', 'lib64'))) {
    console.error(
      `ROUNDS_BASELINE=${baseline}: not a checkout with a built stub (bin/cann-harness.js, native-stub/build/lib64): ` +
        'run make -C native-stub there',
    );
    process.exit(2);
  }
  // One level under the baseline's bench/, so the specs' '../../src' is the baseline's own src.
  const copies = new Map<string, string>();
  for (const k of kinds) {
    const dir = mkdtempSync(path.join(baseline, 'bench', `.${k.specs}-`));
    baselineCopies.push(dir);
    cpSync(path.join(here, 'bench', k.specs), dir, { recursive: true });
    copies.set(k.name, dir);
  }
  checkouts.push({ label: 'baseline', root: baseline, specDir: (k) => copies.get(k.name)! });
  // The copied specs measure memory with this checkout's probe (their '../rounds-memory').
  const probe = path.join(baseline, 'bench', 'rounds-memory.ts');
  if (!existsSync(probe)) {
    cpSync(path.join(here, 'bench', 'rounds-memory.ts'), probe);
    baselineCopies.push(probe);
  }
}
const cleanup = () => {
  rmSync(junit, { force: true });
  for (const dir of baselineCopies) rmSync(dir, { recursive: true, force: true });
};

interface Run {
  wallS: number;
  cpuS: number;
  out: string;
}
function run(c: Checkout, k: Kind, rounds: number): Run {
  const rssAt = Number(process.env.ROUNDS_RSS_AT ?? Math.max(1, Math.floor(k.rounds / 10)));
  const cpu0 = childrenCpuS();
  const t0 = process.hrtime.bigint();
  const cli = path.join(c.root, 'bin', 'cann-harness.js');
  const r = spawnSync(
    process.execPath,
    [cli, 'run', '--mode', 'stub', '--specs', c.specDir(k), '--junit', junit, '--rounds', String(rounds)],
    {
      cwd: c.root,
      env: {
        ...process.env,
        FORCE_COLOR: '0',
        CANN_HARNESS_ECHO: '1',
        CANN_HARNESS_TIMEOUT_MS: '600000',
        ROUNDS_RSS_AT: String(rssAt),
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --expose-gc`.trim(),
      },
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    },
  );
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpuS = childrenCpuS() - cpu0;
  if (r.status !== 0) {
    const tail = (r.stdout + r.stderr).split('\n').slice(-40).join('\n');
    console.error(`${c.label} ${k.name} --rounds ${rounds} failed (exit ${r.status ?? r.signal}):\n${tail}`);
    cleanup();
    process.exit(1);
  }
  return { wallS, cpuS, out: r.stdout + r.stderr };
}

const signed = (p: number) => `${p >= 0 ? '+' : ''}${p.toFixed(1)} %`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** Rounds per second and CPU-ms per round, warm (past the first fifth of the rounds) and all-in. */
type Sample = { perS: number; cpuMs: number; allInPerS: number; allInCpuMs: number };
const warmRounds = (k: Kind) => Math.floor(k.rounds / 5);
const samples = new Map<string, Sample[]>();
const memoryVerdicts = new Map<string, MemoryVerdict[]>();

console.log(
  `rounds-sharing bench: sharing ${kinds[0].rounds} rounds, template ${kinds[1].rounds} rounds, ${reps} reps` +
    `${baseline ? `, alternately with ${baseline}` : ''}; ${os.cpus().length} cores; load ${os.loadavg()[0].toFixed(1)}`,
);
for (let rep = 0; rep < reps; rep++) {
  const order = rep % 2 === 0 ? checkouts : [...checkouts].reverse();
  for (const c of order) {
    for (const k of kinds) {
      const one = run(c, k, 1);
      const warm = run(c, k, warmRounds(k));
      const many = run(c, k, k.rounds);
      const rate = (from: Run, fromRounds: number) => ({
        perS: (k.rounds - fromRounds) / Math.max(1e-3, many.wallS - from.wallS),
        cpuMs: (Math.max(0, many.cpuS - from.cpuS) / (k.rounds - fromRounds)) * 1000,
      });
      const steady = rate(warm, warmRounds(k));
      const allIn = rate(one, 1);
      const s: Sample = { ...steady, allInPerS: allIn.perS, allInCpuMs: allIn.cpuMs };
      const key = `${c.label} ${k.name}`;
      samples.set(key, [...(samples.get(key) ?? []), s]);
      const memory = judgeRoundMemory(parseRoundMemory(many.out));
      memoryVerdicts.set(key, [...(memoryVerdicts.get(key) ?? []), ...memory]);
      const memText = memory.length
        ? `, live memory ${memory.map((v) => signed(v.livePercent)).join(' ')} (RSS ${memory.map((v) => signed(v.rssPercent)).join(' ')})`
        : '';
      console.log(
        `  ${key.padEnd(17)} rep ${rep + 1}: ${s.perS.toFixed(0).padStart(5)} rounds/s, ${s.cpuMs.toFixed(2)} CPU-ms/round ` +
          `(all-in ${s.allInPerS.toFixed(0)}, ${s.allInCpuMs.toFixed(2)})${memText} (load ${os.loadavg()[0].toFixed(1)})`,
      );
      for (const v of memory) console.log(`    ${v.text}`);
    }
  }
}
cleanup();

console.log(
  `medians (steady: rounds past the first fifth; all-in: from round 1, V8's warm-up included; ` +
    `sharing ${kinds[0].rounds} and template ${kinds[1].rounds} rounds):`,
);
let flat = true;
for (const k of kinds) {
  const mine = samples.get(`this ${k.name}`)!;
  const m = (xs: Sample[], f: keyof Sample) => median(xs.map((x) => x[f]));
  const line = (label: string, xs: Sample[]) =>
    `  ${`${label} ${k.name}`.padEnd(17)} steady ${m(xs, 'perS').toFixed(0).padStart(5)} rounds/s, ` +
    `${m(xs, 'cpuMs').toFixed(2)} CPU-ms/round; all-in ${m(xs, 'allInPerS').toFixed(0).padStart(5)} rounds/s, ` +
    `${m(xs, 'allInCpuMs').toFixed(2)} CPU-ms/round`;
  console.log(line('this', mine));
  const base = samples.get(`baseline ${k.name}`);
  if (base) {
    console.log(line('baseline', base));
    const ratio = (f: keyof Sample) => (m(mine, f) / m(base, f)).toFixed(2);
    console.log(
      `  ${`ratio ${k.name}`.padEnd(17)} steady ${ratio('perS')}x rounds/s, ${ratio('cpuMs')}x CPU per round; ` +
        `all-in ${ratio('allInPerS')}x rounds/s, ${ratio('allInCpuMs')}x CPU per round (this / baseline)`,
    );
  }
  const verdicts = memoryVerdicts.get(`this ${k.name}`) ?? [];
  const worst = verdicts.length ? Math.max(...verdicts.map((v) => v.livePercent)) : 0;
  const rss = verdicts.map((v) => v.rssPercent);
  const rssRange = rss.length ? `${signed(Math.min(...rss))} to ${signed(Math.max(...rss))}` : '-';
  const shmAdded = Math.max(0, ...verdicts.map((v) => v.shmMapsAdded));
  const grew = verdicts.length === 0 || verdicts.some((v) => !v.flat); // no memory lines: nothing shows it flat
  // Before ~10,000 rounds a process is still warming up (code caches, heap sizing): judge only long runs.
  const judged = k.rounds >= MEMORY_JUDGED_FROM;
  if (judged) flat &&= !grew;
  const notJudged = `not judged below ${MEMORY_JUDGED_FROM.toLocaleString('en-US')} rounds: warm-up`;
  const verdict = !judged ? notJudged : grew ? 'GREW' : `flat: within ${FLAT_WITHIN_PERCENT} %, no /dev/shm mapping added`;
  const from = Math.max(1, Math.floor(k.rounds / 10));
  console.log(
    `  ${`this ${k.name}`.padEnd(17)} device-process live memory (heapUsed + malloc) from round ${from} to ${k.rounds}: ` +
      `worst ${signed(worst)}, /dev/shm mappings added ${shmAdded} (${verdict}); RSS ${rssRange} (not judged)`,
  );
}
process.exit(flat ? 0 : 1);
