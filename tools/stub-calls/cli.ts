/**
 * `npm run docs:stub-calls`: writes docs/reference/stub-calls.md from the built stub (tools/stub-calls/table.ts).
 * `--check` only compares (exit 1 when the file is stale); `npm test` runs the same comparison
 * (test/native/stub-calls.test.ts). Build the stub first (`npm run build:stub`).
 * `--cite <CANN source>` first writes the `CANN: <path>:<line>` comments that definitions lack
 * (tools/stub-calls/cite.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeCitations } from './cite';
import { LIBRARY, TABLE_FILE, problemsOf, readStubCalls, renderTable } from './table';

const repo = path.resolve(__dirname, '..', '..');
const check = process.argv.includes('--check');
if (!fs.existsSync(path.join(repo, LIBRARY))) {
  console.error(`stub-calls: ${LIBRARY} is not built: run \`npm run build:stub\` first`);
  process.exit(2);
}
const citeAt = process.argv.indexOf('--cite');
if (citeAt >= 0) {
  const cann = process.argv[citeAt + 1];
  if (!cann || !fs.existsSync(cann)) {
    console.error('stub-calls: --cite needs the path of a hicann/runtime checkout or git directory');
    process.exit(2);
  }
  const { written, notFound } = writeCitations(repo, readStubCalls(repo), cann);
  for (const w of written) console.log(`stub-calls: cited ${w}`);
  for (const n of notFound) console.error(`stub-calls: ${n}: not found in CANN's src/acl (cite it by hand)`);
}
const calls = readStubCalls(repo);
const problems = problemsOf(calls);
for (const p of problems) console.error(`stub-calls: ${p}`);
if (problems.length > 0) process.exit(1);
const text = renderTable(calls);
const file = path.join(repo, TABLE_FILE);
const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
if (check) {
  if (current !== text) {
    console.error(`stub-calls: ${TABLE_FILE} is stale: run \`npm run docs:stub-calls\``);
    process.exit(1);
  }
  console.log(`stub-calls: ${TABLE_FILE} is current (${calls.acl.length} ACL calls)`);
} else {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  console.log(`stub-calls: wrote ${TABLE_FILE} (${calls.acl.length} ACL calls, ${calls.extras.length} extras)`);
}
