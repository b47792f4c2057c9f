/**
 * Fixed cost of a scenario run: runRoles() with K trivial roles (one process each), with and
 * without ACL (koffi load + aclInit + set device + one IPC event). Tells spec authors what each
 * role process costs before their own work starts. Run: npm run bench -- scenario-overhead
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { runRoles } from '../src/orchestrator';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const entryModule = path.join(__dirname, 'roles', 'overhead-roles.ts');

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(body: 'idle' | 'withAcl', roles: number): Promise<{ runMs: number; firstBodyMs: number }> {
  const runs: number[] = [];
  const firstBody: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const startNs = process.hrtime.bigint();
    const result = await runRoles({
      roles: Array.from({ length: roles }, (_, i) => ({
        name: `r${i}`,
        device: i % 8,
        entry: { module: entryModule, export: body },
      })),
      timeoutMs: 60_000,
      mode: 'stub',
    });
    if (!result.ok) throw new Error(`bench run failed:\n${result.summary}`);
    runs.push(Number(process.hrtime.bigint() - startNs) / 1e6);
    // CLOCK_MONOTONIC in parent and children alike: time from runRoles() to each role's body.
    const bodies = result.roles.flatMap((role) => role.marks.map((m) => Number(BigInt(m.tNs) - startNs) / 1e6));
    firstBody.push(Math.max(...bodies));
  }
  return { runMs: median(runs), firstBodyMs: median(firstBody) };
}

async function main(): Promise<void> {
  console.log(`scenario overhead: median of ${ROUNDS} runs each; ${os.cpus().length} cores; load ${os.loadavg()[0].toFixed(2)}`);
  for (const body of ['idle', 'withAcl'] as const) {
    for (const roles of [1, 4, 8]) {
      const m = await measure(body, roles);
      console.log(
        `${body.padEnd(8)} ${String(roles).padStart(2)} role(s): whole run ${m.runMs.toFixed(0).padStart(5)} ms, ` +
          `last role's body started at ${m.firstBodyMs.toFixed(0).padStart(5)} ms`,
      );
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
