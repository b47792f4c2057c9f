/**
 * `build:` once per run across Jest workers (src/jest/native-gate.ts buildOnce): the first worker
 * takes the lock and runs the command; a worker waiting for its outcome stops with a clear error
 * when the builder died, instead of waiting out the build timeout.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ENV } from '../../src/env';
import { buildOnce, nativeGate } from '../../src/jest/native-gate';
import { isRunning, waitUntil } from '../support/leftovers';
import { TS_HOOK, repoRoot } from '../support/run-child';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'native-gate-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const keyOf = (cwd: string, command: string) => createHash('sha256').update(`${cwd}\0${command}`).digest('hex').slice(0, 16);
const env = () => ({ ...process.env, [ENV.notesLog]: path.join(dir, 'notes.jsonl') });

test('the first worker builds and leaves its outcome for the others', () => {
  const command = 'echo built-once';
  const outcome = buildOnce(command, dir, env());
  expect(outcome).toMatchObject({ code: 0, stdout: 'built-once\n' });
  const key = keyOf(dir, command);
  expect(readFileSync(path.join(dir, `build-${key}.lock`), 'utf8')).toBe(String(process.pid));
  expect(JSON.parse(readFileSync(path.join(dir, `build-${key}.json`), 'utf8'))).toMatchObject({ code: 0 });
});

test('a waiting worker stops at once, naming the builder that died before its outcome', () => {
  const command = 'echo never-runs-here';
  const dead = spawnSync('true').pid!; // exited and reaped: no such process any more
  writeFileSync(path.join(dir, `build-${keyOf(dir, command)}.lock`), String(dead));
  expect(() => buildOnce(command, dir, env())).toThrow(`build "echo never-runs-here": the Jest worker that started it (pid ${dead}) died before it finished: run the tests again`);
  expect(existsSync(path.join(dir, `build-${keyOf(dir, command)}.json`))).toBe(false);
});

/** `build:` is run by harness/native-exec.ts: bounded output, a configurable deadline, stopped with its caller. */
describe('the build step', () => {
  test('a build printing 300 MB passes with the head and the tail of its output (it was "could not start ... ENOBUFS")', () => {
    const outcome = buildOnce("echo first-line; head -c 300000000 /dev/zero | tr '\\0' x; echo; echo last-line", dir, env());
    expect(outcome.spawnError).toBeUndefined();
    expect(outcome.code).toBe(0);
    expect(outcome.stdout.startsWith('first-line\n')).toBe(true);
    expect(outcome.stdout.endsWith('last-line\n')).toBe(true);
    expect(outcome.stdout).toMatch(/\[\.\.\. \d+ bytes of output left out \.\.\.\]/);
    expect(outcome.stdout.length).toBeLessThan(300 * 1024);
  }, 60_000);

  test('CANN_HARNESS_BUILD_TIMEOUT_MS bounds it (its process group is stopped)', () => {
    const t0 = Date.now();
    const outcome = buildOnce('sleep 60', dir, { ...env(), CANN_HARNESS_BUILD_TIMEOUT_MS: '300' });
    expect(outcome.timedOut).toBe(true);
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(() => buildOnce('true', dir, { ...env(), CANN_HARNESS_BUILD_TIMEOUT_MS: '10min' })).toThrow(
      'CANN_HARNESS_BUILD_TIMEOUT_MS=10min must be a positive whole number of milliseconds',
    );
  }, 40_000);

  test('SIGKILL of the process waiting for the build stops the build (it ran on)', async () => {
    const pidFile = path.join(dir, 'build.pid');
    const script = `require(${JSON.stringify(path.join(repoRoot, 'src/jest/native-gate.ts'))}).buildOnce(${JSON.stringify(`echo $$ > ${pidFile}; exec sleep 60`)}, ${JSON.stringify(dir)})`;
    const child = spawn(process.execPath, ['-r', TS_HOOK, '-e', script], { stdio: 'ignore', detached: true });
    try {
      expect(await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 30_000)).toBe(true);
      const buildPid = Number(readFileSync(pidFile, 'utf8'));
      expect(isRunning(buildPid)).toBe(true);
      process.kill(child.pid!, 'SIGKILL');
      expect(await waitUntil(() => !isRunning(buildPid), 10_000)).toBe(true);
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }, 60_000);
});

test('a precheck script whose #! interpreter is missing says so (it was "spawn <program> ENOENT")', () => {
  const script = path.join(dir, 'precheck.sh');
  writeFileSync(script, '#!/nonexistent/sh\nexit 0\n', { mode: 0o755 });
  const gate = nativeGate({ name: 's', precheck: { exec: ['./precheck.sh'], timeoutMs: 10_000 } }, path.join(dir, 'x.spec.ts'), 'stub', env());
  expect(gate.run).toBe(false);
  expect(!gate.run && gate.reason).toContain('its #! interpreter /nonexistent/sh is missing');
});
