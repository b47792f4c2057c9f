/**
 * Rendezvous latency between two processes: the time from the start of publish() in one process
 * to the moment await() resolves in another (CLOCK_MONOTONIC in both, so the clocks agree).
 * Target: median < 2 ms. Run: npm run bench -- rendezvous-latency
 * Measured on the default temp dir (disk: the fsync before the rename dominates) and on /dev/shm
 * (tmpfs; point CANN_HARNESS_TMPDIR at a tmpfs to get this for scenario directories).
 * The same file is the reader process when started with "reader <dir> <count>".
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Rendezvous } from '../src/rendezvous';

const COUNT = Number(process.env.BENCH_COUNT ?? 300);
const GAP_MS = 4; // lets the reader get back to waiting before the next publish

function stats(label: string, samplesNs: bigint[]): string {
  const ms = samplesNs.map((n) => Number(n) / 1e6).sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))].toFixed(3);
  return `${label.padEnd(34)} n=${ms.length}  median ${at(0.5)} ms  p90 ${at(0.9)} ms  p99 ${at(0.99)} ms  max ${ms[ms.length - 1].toFixed(3)} ms`;
}

async function reader(dir: string, count: number): Promise<void> {
  const rv = new Rendezvous(dir, 'reader');
  const latencies: string[] = [];
  await rv.signal('reader-ready');
  for (let i = 0; i < count; i++) {
    const data = await rv.await(`msg-${i}`, { timeoutMs: 10_000, from: 'writer' });
    latencies.push(String(process.hrtime.bigint() - BigInt(data.toString())));
  }
  process.stdout.write(JSON.stringify(latencies) + '\n');
}

async function writer(base: string): Promise<void> {
  const dir = mkdtempSync(path.join(base, 'rv-bench-'));
  try {
    const child = spawn(process.execPath, ['-r', 'esbuild-register', __filename, 'reader', dir, String(COUNT)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const rv = new Rendezvous(dir, 'writer');
    await rv.awaitSignal('reader-ready', { timeoutMs: 30_000, from: 'reader' });
    const publishNs: bigint[] = [];
    for (let i = 0; i < COUNT; i++) {
      await new Promise((r) => setTimeout(r, GAP_MS));
      const t0 = process.hrtime.bigint();
      await rv.publish(`msg-${i}`, String(t0));
      publishNs.push(process.hrtime.bigint() - t0);
    }
    if ((await exited) !== 0) throw new Error('reader failed');
    const latencies = (JSON.parse(out) as string[]).map((s) => BigInt(s));
    console.log(`\nrendezvous latency, ${COUNT} messages, scenario dir under ${base}:`);
    console.log(stats('publish() call (write+rename)', publishNs));
    console.log(stats('publish start -> await resolved', latencies));
    const median = Number(latencies.sort((a, b) => (a < b ? -1 : 1))[Math.floor(latencies.length / 2)]) / 1e6;
    console.log(`target median < 2 ms: ${median < 2 ? 'met' : 'NOT met'} (${median.toFixed(3)} ms)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The default base (os.tmpdir(), a disk here) and a tmpfs, where fsync costs nothing. */
async function allBases(): Promise<void> {
  const bases = [os.tmpdir()];
  if (existsSync('/dev/shm')) bases.push('/dev/shm');
  for (const base of bases) await writer(base);
}

const main = process.argv[2] === 'reader' ? reader(process.argv[3], Number(process.argv[4])) : allBases();
main.catch((e) => {
  console.error(e);
  process.exit(1);
});
