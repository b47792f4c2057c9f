/**
 * Soak: the bundled suite under seeded stub jitter, every scenario repeated
 * (`cann-harness run --jitter 200 --repeat-each N`). Shows each scenario run as it ends (the CLI's
 * own lines), then prints the runs, failures, flaky scenarios (with seeds and replay commands,
 * from the CLI's report) and the time taken.
 * Run: npm run bench -- jitter-soak (SOAK_REPEAT, default 100; SOAK_JITTER_US, default 200).
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const repeat = process.env.SOAK_REPEAT ?? '100';
const jitter = process.env.SOAK_JITTER_US ?? '200';
const bin = path.join(__dirname, '..', 'bin', 'cann-harness.js');
const junit = path.join(os.tmpdir(), `cann-soak-${process.pid}.xml`);

console.log(`jitter soak: --jitter ${jitter} --repeat-each ${repeat}; ${os.cpus().length} cores; load ${os.loadavg()[0].toFixed(2)}`);
const t0 = process.hrtime.bigint();
const child = spawn(process.execPath, [bin, 'run', '--mode', 'stub', '--junit', junit, '--jitter', jitter, '--repeat-each', repeat], {
  env: { ...process.env, FORCE_COLOR: '0' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
let done = 0;
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk: string) => {
  out += chunk;
  // One line per finished scenario run: a count every 50 keeps a long soak visibly alive.
  const finished = (out.match(/^[✓✗○] /gm) ?? []).length;
  if (Math.floor(finished / 50) > Math.floor(done / 50)) console.log(`  ${finished} scenario runs finished (${(Number(process.hrtime.bigint() - t0) / 60e9).toFixed(1)} min)`);
  done = finished;
});
child.on('close', (code) => {
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const summary = out.split('\n').filter((l) => /^ (PASS|FAIL) /.test(l) || /^repetitions:|^ {2}(\d+ passed every|FLAKY|FAILED|  failing seeds|  replay)/.test(l));
  console.log(summary.join('\n'));
  console.log(`took ${seconds.toFixed(0)} s (${(seconds / 60).toFixed(1)} min); exit ${code}`);
  rmSync(junit, { force: true });
  process.exit(code === 0 ? 0 : 1);
});
