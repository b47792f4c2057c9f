/**
 * What one device process costs against bare Node started in the same run: a 2-role run (each
 * role: ACL init, one IPC event) vs two `node -e 0` started together, and each role's peak RSS and
 * private memory (bench/roles/memory.ts) vs a bare node's. Three ways in: a user's spec scenario
 * through the compiled package (what installed users run: the spec imports `cann-ipc-harness`),
 * and plain runRoles() with a role module, compiled and from source. A fourth line is the floor
 * under all of them: two plain Node processes that only load the compiled ACL binding (koffi, the
 * stub), aclInit, create one IPC event and finalize, with no harness around them. Needs dist/
 * (`npm run build:js`, done by `npm ci`).
 * Run: npm run bench -- device-process   (BENCH_ROUNDS=n, default 9)
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as Orchestrator from '../src/orchestrator';
import { processMemory, type ProcessMemory } from './roles/memory';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const repoRoot = path.resolve(__dirname, '..');
const entryModule = path.join(__dirname, 'roles', 'overhead-roles.ts');
const footprintSpec = path.join(__dirname, 'roles', 'footprint.spec.ts');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function bareNode(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

/** The memory of a bare Node process that does nothing but report it. */
function bareNodeMemory(): Promise<ProcessMemory> {
  const code = `process.stdout.write(JSON.stringify((${processMemory.toString()})()))`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', () => resolve(JSON.parse(out) as ProcessMemory));
  });
}

async function twoBareNodesMs(): Promise<number> {
  const t = process.hrtime.bigint();
  await Promise.all([bareNode(), bareNode()]);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

type TwoRoles = () => Promise<{ ok: boolean; summary: string; roles: { value?: unknown }[] }>;

function viaRunRoles(orchestrator: typeof Orchestrator): TwoRoles {
  return () =>
    orchestrator.runRoles({
      roles: [0, 1].map((i) => ({ name: `r${i}`, device: i, entry: { module: entryModule, export: 'footprint' } })),
      timeoutMs: 60_000,
      mode: 'stub',
    });
}

/** What the bench uses of the compiled dist/src/scenario (the spec path; bench code may not import src/scenario). */
interface ScenarioApi {
  collectScenarios(specFile: string): Map<string, unknown>;
  runScenario(plan: unknown, opts: { specFile: string; mode: 'stub' }): ReturnType<TwoRoles>;
}

function viaSpec(scenarioApi: ScenarioApi): TwoRoles {
  const plan = scenarioApi.collectScenarios(footprintSpec).get('footprint')!;
  return () => scenarioApi.runScenario(plan, { specFile: footprintSpec, mode: 'stub' });
}

/**
 * The floor: the ACL part of a role alone (koffi, the stub, aclInit, one IPC event, aclFinalize) in
 * two plain processes, bundled like the device process (so module loading costs the same), with
 * no orchestrator, harness, spec or message pipe. Built into dist/harness (where src/paths expects
 * a bundle) for the length of the bench.
 */
function buildAclOnly(): string {
  const outfile = path.join(repoRoot, 'dist', 'harness', `.acl-only-bench-${process.pid}.js`);
  const contents = [
    `import { loadAcl } from ${JSON.stringify(path.join(repoRoot, 'src', 'acl'))};`,
    `import { processMemory } from ${JSON.stringify(path.join(__dirname, 'roles', 'memory'))};`,
    'const device = Number(process.argv[2]);',
    "const acl = loadAcl({ mode: 'stub' });",
    'acl.init(); acl.setDevice(device); acl.createIpcEvent().destroy(); acl.resetDevice(device); acl.finalize();',
    'process.stdout.write(JSON.stringify(processMemory()));',
  ].join('\n');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('esbuild') as typeof import('esbuild')).buildSync({
    stdin: { contents, resolveDir: repoRoot, loader: 'ts' },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    packages: 'external',
    define: { DEVICE_PROCESS_BUNDLE: 'true' },
    logLevel: 'warning',
  });
  return outfile;
}

function aclOnly(script: string): TwoRoles {
  const one = (device: number) =>
    new Promise<{ value: ProcessMemory; ok: boolean }>((resolve, reject) => {
      const child = spawn(process.execPath, [script, String(device)], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('close', (status) => resolve({ ok: status === 0, value: status === 0 ? (JSON.parse(out) as ProcessMemory) : ({} as ProcessMemory) }));
    });
  return async () => {
    const roles = await Promise.all([one(0), one(1)]);
    return { ok: roles.every((r) => r.ok), summary: 'the ACL-only process failed (see its stderr above)', roles };
  };
}

async function twoRolesMs(run: TwoRoles): Promise<{ ms: number; memory: ProcessMemory[] }> {
  const t = process.hrtime.bigint();
  const result = await run();
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (!result.ok) throw new Error(`bench run failed:\n${result.summary}`);
  return { ms, memory: result.roles.map((r) => r.value as ProcessMemory) };
}

async function main(): Promise<void> {
  const compiled = path.join(repoRoot, 'dist', 'src');
  if (!existsSync(compiled)) throw new Error(`${compiled} is missing: run \`npm run build:js\` first`);
  const aclOnlyScript = buildAclOnly();
  try {
    await measure(compiled, aclOnlyScript);
  } finally {
    rmSync(aclOnlyScript, { force: true });
  }
}

async function measure(compiled: string, aclOnlyScript: string): Promise<void> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const variants: [string, TwoRoles][] = [
    ['a spec scenario, compiled package (what users run)', viaSpec(require(path.join(compiled, 'scenario')))],
    ['runRoles + role module, compiled', viaRunRoles(require(path.join(compiled, 'orchestrator')))],
    ['runRoles + role module, source checkout', viaRunRoles(require('../src/orchestrator'))],
    ['floor: the ACL part alone, bundled, in two plain processes (no harness)', aclOnly(aclOnlyScript)],
  ];
  /* eslint-enable @typescript-eslint/no-require-imports */
  console.log(`device process cost: median of ${ROUNDS} rounds, interleaved; ${os.cpus().length} cores; load ${os.loadavg()[0].toFixed(2)}`);
  const bare: number[] = [];
  const runs = variants.map(() => ({ ms: [] as number[], memory: [] as ProcessMemory[] }));
  for (const [i] of variants.entries()) await twoRolesMs(variants[i][1]); // warm the transform cache
  for (let round = 0; round < ROUNDS; round++) {
    bare.push(await twoBareNodesMs());
    for (const [i, [, run]] of variants.entries()) {
      const r = await twoRolesMs(run);
      runs[i].ms.push(r.ms);
      runs[i].memory.push(...r.memory);
    }
  }
  const bareMs = median(bare);
  const bareMemory = await bareNodeMemory();
  const mib = (kib: number): string => `${(kib / 1024).toFixed(1)} MiB`;
  // The 50 MB as a ratio to this machine's floor (a bare node), which the same run measures.
  const rssGoal = (50 * 1000 * 1000) / 1024 / bareMemory.maxRssKiB;
  console.log(
    `two bare \`node -e 0\` started together: ${bareMs.toFixed(0)} ms; a bare node: peak RSS ${mib(bareMemory.maxRssKiB)}, private ${mib(bareMemory.privateKiB)} ` +
      `(the floor: 50 MB is ${rssGoal.toFixed(2)} x its peak RSS)`,
  );
  for (const [i, [name]] of variants.entries()) {
    const ms = median(runs[i].ms);
    const rss = median(runs[i].memory.map((m) => m.maxRssKiB));
    const own = median(runs[i].memory.map((m) => m.privateKiB));
    console.log(
      `${name}: 2-role run ${ms.toFixed(0)} ms = ${(ms / bareMs).toFixed(2)} x bare node (goal <= 1.3); per device process ` +
        `peak RSS ${mib(rss)} median, ${mib(Math.max(...runs[i].memory.map((m) => m.maxRssKiB)))} max = ${(rss / bareMemory.maxRssKiB).toFixed(2)} x bare ` +
        `(goal <= 50 MB = ${rssGoal.toFixed(2)} x), bare + ${mib(rss - bareMemory.maxRssKiB)}; ` +
        `private ${mib(own)} = ${(own / bareMemory.privateKiB).toFixed(2)} x bare`,
    );
  }
  // What the harness itself adds, against the floor measured in the same rounds (the last variant).
  const floorMs = median(runs[runs.length - 1].ms);
  const overFloor = variants.slice(0, -1).map(([name], i) => `${name.split(' (')[0]} +${((median(runs[i].ms) - floorMs) / bareMs).toFixed(2)} x`);
  console.log(`over the floor (in bare-node units): ${overFloor.join('; ')}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
