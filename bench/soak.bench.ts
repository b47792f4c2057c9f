/**
 * Soak: does the harness tell the truth under load? Runs real `cann-harness run`s, half of them
 * with two CPU hogs, and counts scenario failures (there must be none):
 *  - the 64-process fan-out (oneToMany, 63 consumers on 64 stub devices), SOAK_FANOUT times (20);
 *  - 16 roles returning 64 KiB each, exiting together, SOAK_BIG times (10);
 *  - the bundled suite (specs/), SOAK_SUITE times (10).
 * Also checks that nothing of ours is left in /dev/shm. Long (tens of minutes on 2 cores); not part
 * of `npm test`. Run: npm run bench -- soak
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '..');
const bin = path.join(repoRoot, 'bin', 'cann-harness.js');
const SOAK_SPECS = path.join(__dirname, 'soak-specs');
const count = (name: string, dflt: number) => Number(process.env[name] ?? dflt);

interface Tally {
  runs: number;
  scenarios: number;
  failed: number;
  skipped: number;
  badExits: number;
  seconds: number;
}

const hogs: ChildProcess[] = [];
function startHogs(): void {
  for (let i = 0; i < 2; i++) hogs.push(spawn('sh', ['-c', 'exec yes > /dev/null'], { stdio: 'ignore' }));
}
function stopHogs(): void {
  for (const h of hogs.splice(0)) h.kill('SIGKILL');
}
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(s, () => {
    stopHogs();
    current?.kill(s); // its session guard cleans up its run
    setTimeout(() => process.exit(130), 6000);
  });
}

function cannstubObjects(): string[] {
  return readdirSync('/dev/shm').filter((n) => n.startsWith('cannstub'));
}

let current: ChildProcess | undefined;

/** Runs a command to its end, keeping the last 1 MiB of its output. Async, so signals reach us meanwhile. */
function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; signal: NodeJS.Signals | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    current = child;
    let output = '';
    const keep = (d: Buffer) => (output = (output + d.toString()).slice(-1024 * 1024));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.on('close', (status, signal) => {
      current = undefined;
      resolve({ status, signal, output });
    });
  });
}

/** One `cann-harness run`; counts from its JUnit XML. */
async function runOnce(args: string[], env: Record<string, string>, tally: Tally): Promise<void> {
  const out = mkdtempSync(path.join(os.tmpdir(), 'cann-soak-'));
  const junit = path.join(out, 'junit.xml');
  const started = Date.now();
  const r = await run([bin, 'run', '--mode', 'stub', '--junit', junit, ...args], { ...process.env, FORCE_COLOR: '0', ...env });
  tally.seconds += (Date.now() - started) / 1000;
  tally.runs++;
  let xml = '';
  try {
    xml = readFileSync(junit, 'utf8');
  } catch {
    /* no report: counted as a bad exit below */
  }
  const head = /<testsuites[^>]*tests="(\d+)"[^>]*failures="(\d+)"[^>]*errors="(\d+)"/.exec(xml);
  tally.scenarios += Number(head?.[1] ?? 0);
  tally.failed += Number(head?.[2] ?? 0) + Number(head?.[3] ?? 0);
  tally.skipped += (xml.match(/<skipped\/>/g) ?? []).length;
  if (r.status !== 0 || !head) {
    tally.badExits++;
    process.stdout.write(`\n--- run failed (exit ${r.status ?? r.signal}); its output:\n${r.output.slice(-20_000)}\n`);
  }
  rmSync(out, { recursive: true, force: true });
}

async function soak(label: string, times: number, perRun: number, args: string[], env: Record<string, string>): Promise<Tally[]> {
  const idle: Tally = { runs: 0, scenarios: 0, failed: 0, skipped: 0, badExits: 0, seconds: 0 };
  const loaded: Tally = { ...idle };
  const runs = Math.ceil(times / perRun);
  for (let i = 0; i < runs; i++) {
    const underLoad = i % 2 === 1; // alternate: half of the runs with two CPU hogs
    if (underLoad) startHogs();
    try {
      const rounds = Math.min(perRun, times - i * perRun);
      await runOnce(args, { ...env, SOAK_ROUNDS: String(rounds) }, underLoad ? loaded : idle);
    } finally {
      stopHogs();
    }
    process.stdout.write(`${label}: run ${i + 1}/${runs} done\n`);
  }
  return [idle, loaded];
}

function line(label: string, [idle, loaded]: Tally[]): string {
  const f = (t: Tally) =>
    `${t.scenarios} scenarios in ${t.runs} runs, ${t.failed} failed, ${t.skipped} skipped, ${t.badExits} bad exits, ${t.seconds.toFixed(0)} s`;
  return `${label}\n  idle:          ${f(idle)}\n  two CPU hogs:  ${f(loaded)}`;
}

async function main(): Promise<void> {
  const shmBefore = new Set(cannstubObjects());
  console.log(`soak on ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}`);
  const fanOut = await soak('fan-out 64', count('SOAK_FANOUT', 20), 5, ['fan-out', '--specs', SOAK_SPECS, '--require-devices', '64'], {
    ACL_STUB_DEVICE_COUNT: '64',
  });
  const big = await soak('64 KiB results', count('SOAK_BIG', 10), 5, ['big-results', '--specs', SOAK_SPECS], {});
  const suite = await soak('bundled suite', count('SOAK_SUITE', 10), 1, [], {});
  // Leftovers: objects of ours that nobody uses any more (others' runs may be going on).
  const reclaim = spawnSync(path.join(repoRoot, 'native-stub', 'build', 'bin', 'cannstub_reclaim'), [], {
    encoding: 'utf8',
    env: { ...process.env, ACL_STUB_LOG: 'info' },
  });
  const leaked = (reclaim.stderr ?? '').match(/reclaimed \S+/g) ?? [];
  const newObjects = cannstubObjects().filter((n) => !shmBefore.has(n));
  console.log('\n=== soak results');
  console.log(line('fan-out: oneToMany({ consumers: 63 }) on 64 stub devices', fanOut));
  console.log(line('16 roles returning 64 KiB each', big));
  console.log(line('bundled suite (specs/)', suite));
  console.log(`/dev/shm: ${leaked.length} dead object(s) reclaimed after the soak, ${newObjects.length} new object(s) still present`);
  const failures = [...fanOut, ...big, ...suite].reduce((n, t) => n + t.failed + t.badExits, 0);
  console.log(failures === 0 && leaked.length === 0 ? 'soak: 0 failures' : `soak: ${failures} failure(s), ${leaked.length} leaked object(s)`);
  process.exitCode = failures === 0 && leaked.length === 0 ? 0 : 1;
}

void main();
