/**
 * harness/parent-watch.ts starts the native watchdog thread (no JavaScript worker); when it cannot
 * (no hold library), the process runs on and its log says why, and how to fix it. The end-to-end
 * behaviour (orphans die, hang reports are answered) is in test/orchestrator.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const PARENT_WATCH = path.join(__dirname, '..', '..', 'harness', 'parent-watch.ts');
// Prints this process's thread names (/proc comm) after the watch started.
const PROGRAM = `
require(${JSON.stringify(PARENT_WATCH)}).watchParent();
const fs = require('node:fs');
const names = fs.readdirSync('/proc/self/task').map((t) => fs.readFileSync('/proc/self/task/' + t + '/comm', 'utf8').trim());
console.log(JSON.stringify(names));
`;

function runWatched(env: NodeJS.ProcessEnv): { threads: string[]; stderr: string; status: number | null } {
  const r = spawnSync(process.execPath, ['-r', 'esbuild-register', '-e', PROGRAM], {
    env: { ...process.env, CANN_HARNESS_PARENT_PID: String(process.pid), ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { threads: r.stdout ? (JSON.parse(r.stdout) as string[]) : [], stderr: r.stderr, status: r.status };
}

test('a device process watches its parent from the native watchdog thread, without a warning', () => {
  const r = runWatched({});
  expect(r.status).toBe(0);
  expect(r.threads).toContain('harness-watch');
  expect(r.stderr).not.toMatch(/watchdog/);
});

test('without the hold library the process runs on, and its log says why and how to fix it', () => {
  const missing = '/nonexistent/libcannharness_hold.so';
  const r = runWatched({ CANN_HARNESS_HOLD_LIBRARY: missing });
  expect(r.status).toBe(0);
  expect(r.threads).not.toContain('harness-watch');
  expect(r.stderr).toContain(`cann-harness: warning: the native watchdog did not start (the harness's native helper library ${missing} does not exist`);
  expect(r.stderr).toContain('Fix: `npm run build:stub` (or set CANN_HARNESS_HOLD_LIBRARY)');
});
