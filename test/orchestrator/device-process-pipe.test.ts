/**
 * The device process's start on its message pipe (harness/parent-pipe.ts): run by hand (no pipe)
 * it says what it is for; when its parent closes the pipe before the job it exits at once.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import * as os from 'node:os';
import { DEVICE_PROCESS_SCRIPT } from '../../src/paths';
import { tsExecArgv } from '../../src/orchestrator/process-host';

const BY_HAND = 'a device process is started by the orchestrator (runRoles, a scenario, cann-harness run), not by hand';

test('started by hand, without a message pipe: a clear error and exit code 2', () => {
  // Fd 3 is then whatever Node itself opened first (an epoll or event fd).
  const r = spawnSync('/bin/sh', ['-c', `exec 3>&-; exec "$0" "$@"`, process.execPath, ...tsExecArgv(), DEVICE_PROCESS_SCRIPT], { encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toMatch(/^device-process: file descriptor 3 is not a message pipe \(E[A-Z]+\): /);
  expect(r.stderr).toContain(BY_HAND);
  expect(r.status).toBe(2);
});

test('started by hand with something else on file descriptor 3 (a directory): a clear error naming it', () => {
  const dir = openSync(os.tmpdir(), 'r');
  try {
    const r = spawnSync(process.execPath, [...tsExecArgv(), DEVICE_PROCESS_SCRIPT], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe', dir] });
    expect(r.stderr).toContain(`device-process: file descriptor 3 is not a message pipe (EISDIR): ${BY_HAND}`);
    expect(r.status).toBe(2);
  } finally {
    closeSync(dir);
  }
});

test('the pipe ends before a job arrives (the parent is gone): exit code 2, nothing run', async () => {
  const child = spawn(process.execPath, [...tsExecArgv(), DEVICE_PROCESS_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  (child.stdio[3] as NodeJS.WritableStream).end();
  const code = await new Promise<number | null>((r) => child.on('close', r));
  expect(code).toBe(2);
  expect(stderr).toBe('');
});
