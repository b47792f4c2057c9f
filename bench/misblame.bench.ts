/**
 * Misblame under load (issue #20, item 1): a producer throws right after sharing its IPC event and
 * 15 consumers open it (bench/misblame-specs), with two CPU hogs running. The producer's error is
 * the cause of every other failure, so each run's report must blame it first, and must show each
 * consumer's own ACL failure in one shape whatever the timing: a failed role (a consequence), never
 * a stopped role that "reported an error while being stopped", and never "waiting for" the handle
 * it had already received. Runs MISBLAME_RUNS times (default 20) under `npx jest` and under
 * `cann-harness run`, reading each run's kept result.json (then removing it). Goal: 0 of N each.
 * Run: npm run bench -- misblame   (MISBLAME_RUNS=100 npm run bench -- misblame for the goal)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '..');
const RUNS = Number(process.env.MISBLAME_RUNS ?? 20);
const RUNNERS = (process.env.MISBLAME_RUNNERS ?? 'jest,run').split(',');
const SPECS = path.join(__dirname, 'misblame-specs');
const reports = mkdtempSync(path.join(os.tmpdir(), 'misblame-reports-'));

const hogs: ChildProcess[] = [];
let current: ChildProcess | undefined;
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

const COMMANDS: Record<string, string[]> = {
  jest: [path.join(repoRoot, 'node_modules', 'jest', 'bin', 'jest.js'), '--roots', SPECS, '--reporters', 'default'],
  run: [path.join(repoRoot, 'bin', 'cann-harness.js'), 'run', '--mode', 'stub', '--specs', SPECS, '--junit', path.join(reports, 'junit.xml')],
};

function run(args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: repoRoot, env: { ...process.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    current = child;
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', () => {
      current = undefined;
      resolve(output);
    });
  });
}

interface RoleLike {
  name: string;
  status: string;
  waitingFor?: { what: string };
  error?: { acl?: { call: string } };
  errorWhileStopping?: { acl?: { call: string } };
}

/** What is wrong with one run's report, or null. */
function judge(output: string): { misblame: string | null; shape: string | null } {
  const dir = /kept directory: (\S+)/.exec(output)?.[1];
  if (!dir) return { misblame: `no kept directory in the output:\n${output.slice(-2000)}`, shape: null };
  try {
    let text: string;
    try {
      text = readFileSync(path.join(dir, 'result.json'), 'utf8');
    } catch (e) {
      return { misblame: `${(e as Error).message}; the run said:\n${output.slice(-3000)}`, shape: null };
    }
    const result = JSON.parse(text) as { firstFailure?: { role: string }; roles: RoleLike[] };
    const first = result.firstFailure?.role;
    const misblame = first === 'producer' && output.includes('first failure: role producer') ? null : `blamed ${first ?? 'nobody'}`;
    const odd: string[] = [];
    for (const r of result.roles) {
      if (r.status === 'stopped' && r.errorWhileStopping?.acl) odd.push(`${r.name} stopped with an ACL error while being stopped`);
      const opened = [r.error, r.errorWhileStopping].some((e) => e?.acl?.call === 'aclrtIpcOpenEventHandle');
      if (opened && r.waitingFor?.what.includes('"ev"')) odd.push(`${r.name} shown waiting for ${r.waitingFor.what} after opening it`);
    }
    return { misblame, shape: odd.length ? odd.join('; ') : null };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  for (let i = 0; i < 2; i++) hogs.push(spawn('sh', ['-c', 'exec yes > /dev/null'], { stdio: 'ignore' }));
  const lines: string[] = [];
  try {
    for (const runner of RUNNERS) {
      let misblamed = 0;
      let misshaped = 0;
      const started = Date.now();
      for (let i = 1; i <= RUNS; i++) {
        const { misblame, shape } = judge(await run(COMMANDS[runner]));
        if (misblame) misblamed++;
        if (shape) misshaped++;
        if (misblame || shape) console.log(`  ${runner} run ${i}: ${[misblame, shape].filter(Boolean).join('; ')}`);
      }
      const line = `${runner.padEnd(5)} misblamed ${misblamed} of ${RUNS}, report shape differing ${misshaped} of ${RUNS} (${((Date.now() - started) / 1000).toFixed(0)} s, 16 roles, 2 CPU hogs)`;
      console.log(line);
      lines.push(line);
    }
  } finally {
    stopHogs();
    rmSync(reports, { recursive: true, force: true });
  }
  console.log(`\nsummary:\n${lines.join('\n')}`);
}

void main();
