/**
 * Soak rounds (issue #22): checked rounds per second of a 1-producer, 3-consumer IPC handoff
 * (bench/rounds-specs/handoff.spec.ts: record, wait, synchronize, byte check, happens-before)
 * run with `--rounds N` in one set of processes, against the same scenario run with
 * `--repeat-each M` (fresh processes every time), in the same run: the ratio is the result. Both
 * subtract a 1-round run (the CLI's and Jest's start-up). Also every device process's memory at
 * round ROUNDS_RSS_AT and at the last round (bench/rounds-memory.ts): flat means its live memory
 * (heapUsed + malloc'd bytes, after two full collections) grew by at most 10 % and no /dev/shm
 * mapping was added; RSS is shown, not judged (why: bench/rounds-memory.ts).
 * Run: npm run bench -- rounds (ROUNDS, default 100000; ROUNDS_REPEAT, default 20;
 * ROUNDS_RSS_AT, default 10000). Goal on a quiet 2-core machine: >= 1,000 rounds/s.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FLAT_WITHIN_PERCENT, judgeRoundMemory, parseRoundMemory } from './rounds-memory';

const rounds = Number(process.env.ROUNDS ?? 100_000);
const repeat = Number(process.env.ROUNDS_REPEAT ?? 20);
const rssAt = Number(process.env.ROUNDS_RSS_AT ?? Math.min(10_000, Math.floor(rounds / 10)));
const bin = path.join(__dirname, '..', 'bin', 'cann-harness.js');
const specs = path.join(__dirname, 'rounds-specs');
const junit = path.join(os.tmpdir(), `cann-rounds-bench-${process.pid}.xml`);

function cli(args: string[]): { seconds: number; out: string } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, 'run', '--mode', 'stub', '--specs', specs, '--junit', junit, ...args], {
    // --expose-gc reaches the device processes: they measure their memory after full collections.
    env: { ...process.env, FORCE_COLOR: '0', CANN_HARNESS_ECHO: '1', ROUNDS_RSS_AT: String(rssAt), NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --expose-gc`.trim() },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) {
    console.error(`${args.join(' ')} failed (exit ${r.status ?? r.signal}):\n${(r.stdout + r.stderr).split('\n').slice(-60).join('\n')}`);
    rmSync(junit, { force: true }); // a failed run leaves nothing in the shared temp dir either
    process.exit(1);
  }
  return { seconds, out: r.stdout + r.stderr };
}

console.log(`rounds bench: --rounds ${rounds} vs --repeat-each ${repeat}; ${os.cpus().length} cores; load ${os.loadavg()[0].toFixed(2)}`);
const base = cli(['--rounds', '1']);
const repeated = cli(['--rounds', '1', '--repeat-each', String(repeat)]);
const soaked = cli(['--rounds', String(rounds)]);
rmSync(junit, { force: true });

const repsPerS = (repeat - 1) / Math.max(1e-3, repeated.seconds - base.seconds);
const roundsPerS = (rounds - 1) / Math.max(1e-3, soaked.seconds - base.seconds);
console.log(`  start-up (1 round):           ${base.seconds.toFixed(1)} s`);
console.log(`  --repeat-each ${repeat}:${' '.repeat(Math.max(1, 15 - String(repeat).length))}${repeated.seconds.toFixed(1)} s = ${repsPerS.toFixed(1)} checked handoffs/s`);
console.log(`  --rounds ${rounds}:${' '.repeat(Math.max(1, 20 - String(rounds).length))}${soaked.seconds.toFixed(1)} s = ${roundsPerS.toFixed(0)} checked rounds/s (goal >= 1,000 on a quiet 2-core machine)`);
console.log(`  ratio rounds / repetitions:   ${(roundsPerS / repsPerS).toFixed(0)}x`);

const verdicts = judgeRoundMemory(parseRoundMemory(soaked.out));
for (const v of verdicts) console.log(`  ${v.text}`);
const flat = verdicts.length > 0 && verdicts.every((v) => v.flat);
if (verdicts.length === 0) console.log('  (no memory lines: run with ROUNDS >= 2)');
console.log(
  `  device-process memory ${flat ? `flat (live memory within ${FLAT_WITHIN_PERCENT} %, no /dev/shm mapping added)` : 'GREW (or was not measured)'}`,
);
process.exit(flat ? 0 : 1);
