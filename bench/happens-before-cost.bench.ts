/**
 * Cost of the happens-before check on the bundled suite: `cann-harness run` of specs/ with the
 * check off (CANN_HARNESS_HB_CHECK=0) and on, alternating, in the same session; prints the
 * medians and their ratio. Run: npm run bench -- happens-before (BENCH_ROUNDS, default 3).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readTraces } from '../src/orchestrator/scenario-dir';
import { checkHappensBefore } from '../src/trace/happens-before';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const bin = path.join(__dirname, '..', 'bin', 'cann-harness.js');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function suiteSeconds(check: boolean, extraEnv: Record<string, string> = {}): number {
  const junit = path.join(os.tmpdir(), `cann-hb-bench-${process.pid}.xml`);
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, 'run', '--mode', 'stub', '--junit', junit], {
    env: { ...process.env, CANN_HARNESS_HB_CHECK: check ? '1' : '0', FORCE_COLOR: '0', ...extraEnv },
    encoding: 'utf8',
  });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  spawnSync('rm', ['-f', junit]);
  if (r.status !== 0) throw new Error(`suite failed (check ${check ? 'on' : 'off'}):\n${r.stdout.slice(-3000)}`);
  return s;
}

const off: number[] = [];
const on: number[] = [];
console.log(`happens-before cost: ${ROUNDS} alternating suite runs each; ${os.cpus().length} cores; load ${os.loadavg()[0].toFixed(2)}`);
for (let i = 0; i < ROUNDS; i++) {
  off.push(suiteSeconds(false));
  on.push(suiteSeconds(true));
  console.log(`  round ${i + 1}: check off ${off[i].toFixed(1)} s, on ${on[i].toFixed(1)} s`);
}
if (ROUNDS > 0) {
  const ratio = median(on) / median(off);
  console.log(`median: off ${median(off).toFixed(1)} s, on ${median(on).toFixed(1)} s, ratio ${ratio.toFixed(3)} (${((ratio - 1) * 100).toFixed(1)} %; target < 5 %)`);
  console.log(`load average now ${os.loadavg()[0].toFixed(2)}: on a shared machine the ratio carries that noise`);
}

// The check's own work, without the noise of a shared machine: keep one suite run's directories,
// then time reading and checking each one's traces in this process.
const kept = mkdtempSync(path.join(os.tmpdir(), 'cann-hb-bench-'));
try {
  const suite = suiteSeconds(true, { CANN_HARNESS_KEEP: '1', CANN_HARNESS_TMPDIR: kept });
  let checkMs = 0;
  let lines = 0;
  const dirs = readdirSync(kept);
  for (const d of dirs) {
    const t0 = process.hrtime.bigint();
    const traces = readTraces(path.join(kept, d), new Map());
    const report = checkHappensBefore(traces);
    checkMs += Number(process.hrtime.bigint() - t0) / 1e6;
    lines += traces.reduce((n, t) => n + t.jsonl.split('\n').length - 1, 0);
    if (!report.ok) throw new Error(`unexpected violation in ${d}`);
  }
  console.log(`check alone: ${checkMs.toFixed(1)} ms for ${dirs.length} scenario runs (${lines} trace lines), ${((checkMs / 1000 / suite) * 100).toFixed(2)} % of that suite run (${suite.toFixed(1)} s)`);
} finally {
  rmSync(kept, { recursive: true, force: true });
}
