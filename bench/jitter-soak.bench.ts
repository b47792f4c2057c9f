/**
 * Soak: the bundled suite under seeded stub jitter, every scenario repeated
 * (`cann-harness run --jitter 200 --repeat-each N`). Prints the runs, failures, flaky scenarios
 * (with seeds and replay commands, from the CLI's own report) and the time taken.
 * Run: npm run bench -- jitter-soak (SOAK_REPEAT, default 100; SOAK_JITTER_US, default 200).
 */
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';

const repeat = process.env.SOAK_REPEAT ?? '100';
const jitter = process.env.SOAK_JITTER_US ?? '200';
const bin = path.join(__dirname, '..', 'bin', 'cann-harness.js');
const junit = path.join(os.tmpdir(), `cann-soak-${process.pid}.xml`);

console.log(`jitter soak: --jitter ${jitter} --repeat-each ${repeat}; ${os.cpus().length} cores; load ${os.loadavg()[0].toFixed(2)}`);
const t0 = process.hrtime.bigint();
const r = spawnSync(process.execPath, [bin, 'run', '--mode', 'stub', '--junit', junit, '--jitter', jitter, '--repeat-each', repeat], {
  env: { ...process.env, FORCE_COLOR: '0' },
  stdio: ['ignore', 'pipe', 'inherit'], // Jest's per-test lines (stderr) are the progress of a long soak
  encoding: 'utf8',
  maxBuffer: 512 * 1024 * 1024,
});
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
spawnSync('rm', ['-f', junit]);
const out = r.stdout ?? '';
const summary = out.split('\n').filter((l) => /^ (PASS|FAIL) /.test(l) || /^repetitions:|^ {2}(\d+ passed every|FLAKY|FAILED|  failing seeds|  replay)/.test(l));
console.log(summary.join('\n'));
console.log(`took ${seconds.toFixed(0)} s (${(seconds / 60).toFixed(1)} min); exit ${r.status}`);
process.exit(r.status === 0 ? 0 : 1);
