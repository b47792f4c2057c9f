/**
 * The device process's start on its message pipe (harness/parent-pipe.ts): run by hand it says
 * what it is for; a first line that is not a job is refused; a pipe that ends before a whole job
 * runs nothing (the parent-death case, where the parent watch cleans up, is in lifecycle.test.ts).
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import * as os from 'node:os';
import { DEVICE_PROCESS_SCRIPT } from '../../src/paths';
import { tsExecArgv } from '../../src/orchestrator/process-host';

const BY_HAND = 'a device process is started by the orchestrator (runRoles, a scenario, cann-harness run), not by hand';
const argv = [...tsExecArgv(), DEVICE_PROCESS_SCRIPT];

// Every case has processes of its own: they run at the same time (the longest waits out the
// device process's grace for a job that never completes).

/** Runs a command to its end (asynchronously, so that the other cases run meanwhile). */
function runToEnd(command: string, args: string[], stdio: (string | number)[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(command, args, { stdio: stdio as never, timeout: 60_000 });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stderr })));
}

test.concurrent('started by hand: fd 3 is whatever Node opened first, and the error says what the script is for (exit 2)', async () => {
  const r = await runToEnd('/bin/sh', ['-c', 'exec 3>&-; exec "$0" "$@"', process.execPath, ...argv], ['ignore', 'pipe', 'pipe']);
  expect(r.stderr).toBe(`device-process: file descriptor 3 is not a message pipe (not a socket): ${BY_HAND}\n`);
  expect(r.status).toBe(2);
});

test.concurrent.each([
  ['a directory', () => openSync(os.tmpdir(), 'r')],
  ['/dev/null', () => openSync('/dev/null', 'r')],
])('started by hand with %s on fd 3: the same clear error', async (_what, open) => {
  const fd = open();
  try {
    const r = await runToEnd(process.execPath, argv, ['ignore', 'pipe', 'pipe', fd]);
    expect(r.stderr).toBe(`device-process: file descriptor 3 is not a message pipe (not a socket): ${BY_HAND}\n`);
    expect(r.status).toBe(2);
  } finally {
    closeSync(fd);
  }
});

function startWithSocket() {
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const closed = new Promise<number | null>((r) => child.on('close', r));
  return { pipe: child.stdio[3] as NodeJS.WritableStream, closed, stderr: () => stderr };
}

test.concurrent('a first line that is not JSON, or not a job: refused with the same error (exit 2)', async () => {
  const cases = [
    ['hello', 'its first line is not JSON'],
    ['{"type":"diagnose"}', 'its first message is not a job: {"type":"diagnose"}'],
  ].map(([line, why]) => ({ c: startWithSocket(), line, why }));
  for (const { c, line } of cases) c.pipe.write(`${line}\n`);
  for (const { c, why } of cases) {
    expect(await c.closed).toBe(2);
    expect(c.stderr()).toBe(`device-process: file descriptor 3 is not a message pipe (${why}): ${BY_HAND}\n`);
  }
});

test.concurrent('the pipe ends inside the job while the parent lives on: nothing runs, exit code 2 after a grace', async () => {
  const c = startWithSocket();
  c.pipe.end('{"type":"job","job":{"role":"r"');
  expect(await c.closed).toBe(2);
  expect(c.stderr()).toBe('');
});
