/**
 * `npm run bench`: runs every bench/*.bench.ts in its own process, one after the other.
 * Benchmarks print their own numbers; this runner only sequences them and reports failures.
 * Pass names to run a subset: `npm run bench -- ipc-wake`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';

const filters = process.argv.slice(2);
const benches = readdirSync(__dirname)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)))
  .sort();

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
