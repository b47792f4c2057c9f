/**
 * The device process's start on its message pipe (harness/parent-pipe.ts): run by hand it says
 * what it is for; a first line that is not a job is refused; a pipe that ends before a whole job
 * runs nothing (the parent-death case, where the parent watch cleans up, is in lifecycle.test.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import * as os from 'node:os';
import { DEVICE_PROCESS_SCRIPT } from '../../src/paths';
import { tsExecArgv } from '../../src/orchestrator/process-host';

const BY_HAND = 'a device process is started by the orchestrator (runRoles, a scenario, cann-harness run), not by hand';
const argv = [...tsExecArgv(), DEVICE_PROCESS_SCRIPT];

test('started by hand: fd 3 is whatever Node opened first, and the error says what the script is for (exit 2)', () => {
  const r = spawnSync('/bin/sh', ['-c', 'exec 3>&-; exec "$0" "$@"', process.execPath, ...argv], { encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe(`device-process: file descriptor 3 is not a message pipe (not a socket): ${BY_HAND}\n`);
  expect(r.status).toBe(2);
});

test.each([
  ['a directory', () => openSync(os.tmpdir(), 'r')],
  ['/dev/null', () => openSync('/dev/null', 'r')],
])('started by hand with %s on fd 3: the same clear error', (_what, open) => {
  const fd = open();
  try {
    const r = spawnSync(process.execPath, argv, { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe', fd] });
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

test('a first line that is not JSON, or not a job: refused with the same error (exit 2)', async () => {
  for (const [line, why] of [
    ['hello', 'its first line is not JSON'],
    ['{"type":"diagnose"}', 'its first message is not a job: {"type":"diagnose"}'],
  ]) {
    const c = startWithSocket();
    c.pipe.write(`${line}\n`);
    expect(await c.closed).toBe(2);
    expect(c.stderr()).toBe(`device-process: file descriptor 3 is not a message pipe (${why}): ${BY_HAND}\n`);
  }
});

test('the pipe ends inside the job while the parent lives on: nothing runs, exit code 2 after a grace', async () => {
  const c = startWithSocket();
  c.pipe.end('{"type":"job","job":{"role":"r"');
  expect(await c.closed).toBe(2);
  expect(c.stderr()).toBe('');
});
