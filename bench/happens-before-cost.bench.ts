/**
 * Cost of the happens-before check on the bundled suite: `cann-harness run` of specs/ with the
 * check off (CANN_HARNESS_HB_CHECK=0) and on, alternating, in the same session; prints the
 * medians and their ratio. Run: npm run bench -- happens-before (BENCH_ROUNDS, default 3).
 */
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const bin = path.join(__dirname, '..', 'bin', 'cann-harness.js');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function suiteSeconds(check: boolean): number {
  const junit = path.join(os.tmpdir(), `cann-hb-bench-${process.pid}.xml`);
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, 'run', '--mode', 'stub', '--junit', junit], {
    env: { ...process.env, CANN_HARNESS_HB_CHECK: check ? '1' : '0', FORCE_COLOR: '0' },
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
const ratio = median(on) / median(off);
console.log(`median: off ${median(off).toFixed(1)} s, on ${median(on).toFixed(1)} s, ratio ${ratio.toFixed(3)} (${((ratio - 1) * 100).toFixed(1)} %; target < 5 %)`);
console.log(`load average now ${os.loadavg()[0].toFixed(2)}: on a shared machine the ratio carries that noise`);
