/**
 * The stub's data paths against baselines measured in the same run (native-stub/bench/data_bench.c):
 *  - aclrtMemcpy device->device throughput vs plain memcpy of the same size (goal: ratio >= 0.5);
 *  - notify record -> wait wake-up latency vs the IPC event figure (reported as a ratio).
 *   npm run bench -- data            (MIB=N for the large copy, ROUNDS=N for the wake-ups)
 */
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';

const stubDir = path.resolve(__dirname, '..', 'native-stub');
const binary = path.join(stubDir, 'build', 'bin', 'data_bench');
const positive = (name: string, fallback: number): number => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) {
    console.error(`${name}=${process.env[name]} is not a positive integer`);
    process.exit(2);
  }
  return v;
};
const mib = positive('MIB', 64);
const rounds = positive('ROUNDS', 2000);

const build = spawnSync('make', ['-s', '-C', stubDir, 'build/bin/data_bench'], { stdio: 'inherit' });
if (build.status !== 0) {
  console.error(`building ${binary} failed (exit ${build.status ?? build.signal})`);
  process.exit(1);
}

function run(args: string[]): string[] {
  const r = spawnSync(binary, args, { encoding: 'utf8', timeout: 180_000, env: { ...process.env, ACL_STUB_TRACE: undefined } });
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('data-bench'));
  if (r.status !== 0 || lines.length === 0) {
    console.error(`data_bench ${args.join(' ')}: exit ${r.status ?? r.signal}\n${r.stdout}\n${r.stderr}`);
    process.exit(1);
  }
  return lines;
}
const field = (line: string, key: string): number => Number(new RegExp(`${key}=([0-9.]+)`).exec(line)?.[1] ?? NaN);

console.log(`machine: ${os.cpus().length} core(s), load average ${os.loadavg()[0].toFixed(1)}`);
let failed = false;
console.log('aclrtMemcpy device->device vs memcpy, same sizes, same run (GiB/s, best of 5):');
for (const line of run(['memcpy', '--mib', String(mib)])) {
  const ratio = field(line, 'ratio');
  const ok = ratio >= 0.5;
  failed ||= !ok;
  console.log(
    `  ${String(field(line, 'bytes')).padStart(10)} B  stub ${field(line, 'stub_gibs').toFixed(2).padStart(6)}  ` +
      `memcpy ${field(line, 'memcpy_gibs').toFixed(2).padStart(6)}  ratio ${ratio.toFixed(2)}  ${ok ? 'ok (>= 0.5)' : 'BELOW the 0.5 goal'}`,
  );
}
const [wake] = run(['wake', '--rounds', String(rounds)]);
console.log(`record -> wait wake-up, ${rounds} rounds, same run (microseconds):`);
console.log(`  IPC event  median ${field(wake, 'event_median_us').toFixed(1).padStart(7)}  p99 ${field(wake, 'event_p99_us').toFixed(1).padStart(7)}`);
console.log(`  notify     median ${field(wake, 'notify_median_us').toFixed(1).padStart(7)}  p99 ${field(wake, 'notify_p99_us').toFixed(1).padStart(7)}`);
console.log(`  notify / IPC event median: ${field(wake, 'median_ratio').toFixed(2)}`);
process.exit(failed ? 1 : 0);
