/**
 * `npm run bench`: runs every bench/*.bench.ts in its own process, one after the other.
 * Benchmarks print their own numbers; this runner only sequences them and reports failures.
 * Pass names to run a subset: `npm run bench -- ipc-wake`. A name that is a bench's whole name
 * selects only that one (`soak` is not also `jitter-soak`); otherwise any bench containing it.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';

const filters = process.argv.slice(2);
const all = readdirSync(__dirname).filter((f) => f.endsWith('.bench.ts'));
const selects = (p: string): string[] => {
  const exact = all.filter((f) => f === `${p}.bench.ts`);
  return exact.length > 0 ? exact : all.filter((f) => f.includes(p));
};
const benches = [...new Set(filters.length === 0 ? all : filters.flatMap(selects))].sort();
if (benches.length === 0) {
  console.error(`no bench matches ${filters.join(', ')}: choose from ${all.map((f) => f.replace('.bench.ts', '')).join(', ')}`);
  process.exit(2);
}

let failed = 0;
for (const file of benches) {
  console.log(`\n=== ${file}`);
  const r = spawnSync(process.execPath, ['-r', 'esbuild-register', path.join(__dirname, file)], {
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    failed++;
    console.error(`${file} failed (exit ${r.status ?? r.signal})`);
  }
}
process.exit(failed ? 1 : 0);
