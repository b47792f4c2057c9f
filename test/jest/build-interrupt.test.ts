/**
 * `build:` (a native scenario's build step) obeys a signal to the runner: SIGTERM to an in-band
 * `npx jest` (the runner collects the spec file itself) while its build runs stops the build and
 * the runner at once. It used to wait for the build to end (spawnSync on the main thread: no
 * signal handler can run), here 60 s, by default up to 10 minutes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isRunning, waitUntil } from '../support/leftovers';

const repoRoot = path.resolve(__dirname, '..', '..');
const jestBin = require.resolve('jest/bin/jest');
const fixtureConfig = path.join(__dirname, 'fixtures', 'jest.config.js');

let out = '';
let pid: number | undefined;
afterAll(() => {
  try {
    if (pid) process.kill(-pid, 'SIGKILL');
  } catch {
    /* gone */
  }
  if (out) rmSync(out, { recursive: true, force: true });
});

test('SIGTERM to an in-band jest runner during `build:` stops the build and the runner at once', async () => {
  out = mkdtempSync(path.join(os.tmpdir(), 'cann-build-interrupt-'));
  const child = spawn(process.execPath, [jestBin, '--config', fixtureConfig, '--ci', '--runInBand', 'fixtures/build-interrupt'], {
    cwd: repoRoot,
    env: { ...process.env, FORCE_COLOR: '0', FIXTURE_OUT: out, CANN_HARNESS_PROBE: '', JEST_WORKER_ID: '', TMPDIR: out },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  pid = child.pid;
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('close', (code, signal) => resolve(signal ?? code)));
  const pidFile = path.join(out, 'build.pid');
  expect(await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 60_000)).toBe(true);
  const buildPid = Number(readFileSync(pidFile, 'utf8'));
  expect(isRunning(buildPid)).toBe(true);
  process.kill(child.pid!, 'SIGTERM'); // the runner only, as `kill <pid>` does
  const t0 = Date.now();
  // The 20 s timer is cleared once the runner ended: left pending, it kept this Jest worker alive
  // past the end of a whole run that ended within 20 s of this test ("A worker process has failed
  // to exit gracefully and has been force exited").
  let stillRunning: NodeJS.Timeout | undefined;
  const end = await Promise.race([exited, new Promise((r) => (stillRunning = setTimeout(() => r('still running'), 20_000)))]);
  clearTimeout(stillRunning);
  expect({ end, stderr: end === 'still running' ? stderr : '' }).toEqual({ end: 'SIGTERM', stderr: '' });
  expect(Date.now() - t0).toBeLessThan(20_000);
  expect(await waitUntil(() => !isRunning(buildPid), 10_000)).toBe(true);
}, 90_000);
