/**
 * CPU seconds (user and system) one device process costs, which every role of every run pays
 * (thousands per CI run), against a bare `node -e 0` and Node with only the TypeScript hook,
 * measured in the same rounds, alternately. The children's CPU is read from this process's
 * /proc/self/stat (cutime, cstime: every child it reaped, with their own reaped children), so it
 * includes start-up, loading, the role, teardown and exit, and nothing of this process. Minor page
 * faults too: they are most of the system time, and unlike CPU time they do not vary with load.
 * Wall-clock time is left out on purpose: on a shared machine it is noise.
 * Needs dist/ (`npm run build:js`, done by `npm ci`).
 * Run: npm run bench -- device-cpu   (BENCH_ROUNDS=n, default 5; BENCH_ROLES=n per run, default 4)
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as Orchestrator from '../src/orchestrator';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROLES = Number(process.env.BENCH_ROLES ?? 4);
const repoRoot = path.resolve(__dirname, '..');
const entryModule = path.join(__dirname, 'roles', 'overhead-roles.ts');
const TICK_S = 0.01; // USER_HZ is 100 on Linux

/** User and system CPU seconds and minor page faults of the children this process has reaped so far. */
function childrenCpu(): { user: number; sys: number; faults: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd (state) on
  return { user: Number(fields[13]) * TICK_S, sys: Number(fields[14]) * TICK_S, faults: Number(fields[8]) };
}

type Batch = () => Promise<void>; // starts ROLES processes and waits for all of them

function plainNodes(args: string[]): Batch {
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, args, { stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`node ${args.join(' ')} exited ${code}`))));
    });
  return async () => {
    await Promise.all(Array.from({ length: ROLES }, one));
  };
}

function viaRunRoles(orchestrator: typeof Orchestrator, body: string): Batch {
  return async () => {
    const result = await orchestrator.runRoles({
      roles: Array.from({ length: ROLES }, (_, i) => ({ name: `r${i}`, device: i % 8, entry: { module: entryModule, export: body } })),
      timeoutMs: 60_000,
      mode: 'stub',
    });
    if (!result.ok) throw new Error(`bench run failed:\n${result.summary}`);
  };
}

async function main(): Promise<void> {
  const compiled = path.join(repoRoot, 'dist', 'src');
  if (!existsSync(compiled)) throw new Error(`${compiled} is missing: run \`npm run build:js\` first`);
  /* eslint-disable @typescript-eslint/no-require-imports */
  const fromDist = require(path.join(compiled, 'orchestrator')) as typeof Orchestrator;
  const fromSource = require('../src/orchestrator') as typeof Orchestrator;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const variants: [string, Batch][] = [
    ['bare `node -e 0`', plainNodes(['-e', '0'])],
    ['node + the TypeScript hook only', plainNodes(['-r', path.join(repoRoot, 'src', 'ts-hook', 'ts-register.js'), '-e', '0'])],
    ['device process, compiled, idle role', viaRunRoles(fromDist, 'idle')],
    ['device process, compiled, ACL role (init, set device, one IPC event)', viaRunRoles(fromDist, 'withAcl')],
    ['device process, source checkout, idle role', viaRunRoles(fromSource, 'idle')],
    ['device process, source checkout, ACL role', viaRunRoles(fromSource, 'withAcl')],
  ];
  for (const [, run] of variants) await run(); // warm the caches (TypeScript transforms, device bundle)
  const totals = variants.map(() => ({ user: 0, sys: 0, faults: 0 }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [, run]] of variants.entries()) {
      const before = childrenCpu();
      await run();
      const after = childrenCpu();
      totals[i].user += after.user - before.user;
      totals[i].sys += after.sys - before.sys;
      totals[i].faults += after.faults - before.faults;
    }
  }
  const n = ROUNDS * ROLES;
  console.log(`CPU per process, ${n} processes per line (${ROUNDS} rounds of ${ROLES}, interleaved); ${os.cpus().length} cores; load ${os.loadavg()[0].toFixed(2)}`);
  for (const [i, [name]] of variants.entries()) {
    const { user, sys, faults } = totals[i];
    const ms = (s: number): string => ((1000 * s) / n).toFixed(0);
    console.log(`${name}: ${ms(user + sys)} ms (user ${ms(user)}, sys ${ms(sys)}), ${(faults / n).toFixed(0)} page faults`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
