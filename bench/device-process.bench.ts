/**
 * What one device process costs, compiled package vs source checkout, against bare Node started in
 * the same run: a 2-role scenario (each role: ACL init, one IPC event) vs two `node -e 0` started
 * together, and each role's peak RSS. Needs dist/ (`npm run build:js`, done by `npm ci`).
 * Run: npm run bench -- device-process   (BENCH_ROUNDS=n, default 9)
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as Orchestrator from '../src/orchestrator';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const repoRoot = path.resolve(__dirname, '..');
const entryModule = path.join(__dirname, 'roles', 'overhead-roles.ts');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function bareNode(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

/** Peak RSS of a bare Node process that does nothing, in KiB. */
function bareNodeRssKiB(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', 'process.stdout.write(String(process.resourceUsage().maxRSS))'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', () => resolve(Number(out)));
  });
}

async function twoBareNodesMs(): Promise<number> {
  const t = process.hrtime.bigint();
  await Promise.all([bareNode(), bareNode()]);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

async function twoRolesMs(orchestrator: typeof Orchestrator): Promise<{ ms: number; rssKiB: number[] }> {
  const t = process.hrtime.bigint();
  const result = await orchestrator.runRoles({
    roles: [0, 1].map((i) => ({ name: `r${i}`, device: i, entry: { module: entryModule, export: 'footprint' } })),
    timeoutMs: 60_000,
    mode: 'stub',
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (!result.ok) throw new Error(`bench run failed:\n${result.summary}`);
  return { ms, rssKiB: result.roles.map((r) => (r.value as { maxRssKiB: number }).maxRssKiB) };
}

async function main(): Promise<void> {
  const compiled = path.join(repoRoot, 'dist', 'src', 'orchestrator', 'index.js');
  if (!existsSync(compiled)) throw new Error(`${compiled} is missing: run \`npm run build:js\` first`);
  const variants: [string, typeof Orchestrator][] = [
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    ['compiled (dist/, what users run)', require(compiled)],
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    ['source checkout (TypeScript via the hook)', require('../src/orchestrator')],
  ];
  console.log(`device process cost: median of ${ROUNDS} rounds, interleaved; ${os.cpus().length} cores; load ${os.loadavg()[0].toFixed(2)}`);
  const bare: number[] = [];
  const runs = variants.map(() => ({ ms: [] as number[], rss: [] as number[] }));
  for (const [i] of variants.entries()) await twoRolesMs(variants[i][1]); // warm the transform cache
  for (let round = 0; round < ROUNDS; round++) {
    bare.push(await twoBareNodesMs());
    for (const [i, [, orchestrator]] of variants.entries()) {
      const r = await twoRolesMs(orchestrator);
      runs[i].ms.push(r.ms);
      runs[i].rss.push(...r.rssKiB);
    }
  }
  const bareMs = median(bare);
  const bareRss = await bareNodeRssKiB();
  console.log(`two bare \`node -e 0\` started together: ${bareMs.toFixed(0)} ms; a bare node's peak RSS ${(bareRss / 1024).toFixed(1)} MiB`);
  for (const [i, [name]] of variants.entries()) {
    const ms = median(runs[i].ms);
    const rssMiB = Math.max(...runs[i].rss) / 1024;
    console.log(
      `${name}: 2-role scenario ${ms.toFixed(0)} ms = ${(ms / bareMs).toFixed(2)} x bare node (goal <= 1.3); ` +
        `peak RSS per device process ${(median(runs[i].rss) / 1024).toFixed(1)} MiB median, ${rssMiB.toFixed(1)} MiB max (goal <= 50)`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
