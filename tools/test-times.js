#!/usr/bin/env node
/**
 * Per-file times of a Jest run, from its JSON result (`npx jest --json --outputFile=FILE`):
 * `node tools/test-times.js FILE` prints each test file's wall time, slowest first, their sum and
 * the run's own wall time. A sum well above the run's time means files ran in parallel. With a second
 * argument, the CPU log of the same run (CANN_TEST_CPU_LOG, test/support/file-cpu.ts), each file's
 * CPU seconds too.
 * docs/dev/testing.md has the numbers and the full command.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [file, cpuLog] = process.argv.slice(2);
if (!file) {
  console.error('usage: node tools/test-times.js <jest --json output file> [<CANN_TEST_CPU_LOG file>]');
  process.exit(2);
}
const result = JSON.parse(fs.readFileSync(file, 'utf8'));
// CPU seconds per file (test/support/file-cpu.ts), when the run wrote them
const cpu = new Map();
if (cpuLog) for (const line of fs.readFileSync(cpuLog, 'utf8').split('\n').filter(Boolean)) { const r = JSON.parse(line); cpu.set(r.file, r.cpu); }
const rows = result.testResults
  .map((t) => ({ name: path.relative(process.cwd(), t.name), s: (t.endTime - t.startTime) / 1000, cpu: cpu.get(t.name) }))
  .sort((a, b) => b.s - a.s);
const cpuText = (c) => (c === undefined ? '' : `  ${c.toFixed(1).padStart(6)} s CPU`);
for (const r of rows) console.log(`${r.s.toFixed(1).padStart(7)} s${cpuLog ? cpuText(r.cpu) : ''}  ${r.name}`);
const end = Math.max(...result.testResults.map((t) => t.endTime));
const sum = rows.reduce((n, r) => n + r.s, 0);
console.log(`${sum.toFixed(1).padStart(7)} s  sum over ${rows.length} files; run: ${((end - result.startTime) / 1000).toFixed(1)} s from start to the last file's end`);
