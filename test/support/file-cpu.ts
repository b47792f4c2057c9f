/**
 * With CANN_TEST_CPU_LOG=FILE, each test file appends one JSON line to FILE: its path and the CPU
 * seconds (user+sys) its Jest worker and every child process it waited for used while the file
 * ran (/proc/self/stat: utime, stime, cutime, cstime). Wall time alone misleads on a shared
 * machine; tools/test-times.js prints both. Off without the variable.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

// Resolved once, so a test that changes the working directory does not move it; its folder is
// made here (`reports/` does not exist in a fresh clone until jest-junit writes at the end).
const log = process.env.CANN_TEST_CPU_LOG ? path.resolve(process.env.CANN_TEST_CPU_LOG) : undefined;
const ticksPerSecond = 100; // USER_HZ on Linux

function cpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / ticksPerSecond;
}

if (log) {
  const testPath = expect.getState().testPath ?? '';
  const start = cpuSeconds(); // before Jest loads (and compiles) the test file
  afterAll(() => {
    mkdirSync(path.dirname(log), { recursive: true });
    appendFileSync(log, JSON.stringify({ file: testPath, cpu: cpuSeconds() - start }) + '\n');
  });
}
