/**
 * SIGKILL of a runner (the command's own process only: no handler runs there) while its scenarios'
 * roles hold IPC events, then "the next start" (what every run's start does: removeDeadRunLeftovers):
 * nothing of the run may be left, no process, no scenario directory, no private directory (notes,
 * HTML data, audit log), no /dev/shm object. The workers of `jest --maxWorkers=2` and of an audit
 * must notice the dead runner themselves (src/orchestrator/runner-watch.ts) at once, not at the
 * scenario's deadline (120 s).
 *
 * In the suite: two representative runners, once each. Every runner, many times (the 30-of-30 check):
 *   CANN_TEST_KILL_RUNNERS=all CANN_TEST_KILL_REPEAT=30 npx jest test/jest/runner-kill.test.ts
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { removeDeadRunLeftovers } from '../../src/orchestrator/dead-runs';
import { leakedShm, processesWithEnv, shmEntries, waitUntil } from '../support/leftovers';

const repoRoot = path.resolve(__dirname, '..', '..');
const bin = path.join(repoRoot, 'bin', 'cann-harness.js');
const jestBin = require.resolve('jest/bin/jest');
const fixtureConfig = path.join(__dirname, 'fixtures', 'jest.config.js');
const SPECS = path.join(__dirname, 'fixtures', 'interrupt');

type Runner = 'jest' | 'jest -w 2' | 'run' | 'run --html' | 'audit';
const ALL: Runner[] = ['jest', 'jest -w 2', 'run', 'run --html', 'audit'];
const runners: Runner[] = process.env.CANN_TEST_KILL_RUNNERS === 'all' ? ALL : ['jest -w 2', 'run --html'];
const repeat = Math.max(1, Number(process.env.CANN_TEST_KILL_REPEAT) || 1);

/** The command, and how many spec files' scenarios it runs at once (3 holding roles each). */
function command(runner: Runner, out: string): { args: string[]; files: number } {
  switch (runner) {
    case 'jest':
      return { args: [jestBin, '--config', fixtureConfig, '--ci', '--runInBand', 'fixtures/interrupt/holds-events'], files: 1 };
    case 'jest -w 2':
      return { args: [jestBin, '--config', fixtureConfig, '--ci', '--maxWorkers=2', 'fixtures/interrupt'], files: 2 };
    case 'run':
      return { args: [bin, 'run', 'holds-events', '--mode', 'stub', '--specs', SPECS], files: 1 };
    case 'run --html':
      return { args: [bin, 'run', 'holds-events', '--mode', 'stub', '--specs', SPECS, '--html', path.join(out, 'html')], files: 1 };
    case 'audit':
      return { args: [bin, 'audit', '--specs', SPECS, '--mutants', 'wait-noop'], files: 2 };
  }
}

const children = new Set<ChildProcess>();
const scratch: string[] = [];
afterAll(() => {
  for (const c of children) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  for (const dir of scratch) {
    for (const pid of processesWithEnv('CANN_HARNESS_TMPDIR', path.join(dir, 'scenarios'))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

const cases = runners.flatMap((r) => Array.from({ length: repeat }, (_, i) => [r, i + 1] as const));

test.each(cases)('SIGKILL of `%s` (#%i): the next start leaves nothing of the run', async (runner) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'cann-runner-kill-'));
  scratch.push(root);
  const tmp = path.join(root, 'scenarios'); // CANN_HARNESS_TMPDIR: scenario directories
  const privateTmp = path.join(root, 'tmp'); // TMPDIR: the run's private directories
  mkdirSync(tmp);
  mkdirSync(privateTmp);
  const shmBefore = shmEntries();
  const { args, files } = command(runner, root);
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: {
      ...process.env,
      FORCE_COLOR: '0',
      CANN_HARNESS_TMPDIR: tmp,
      TMPDIR: privateTmp,
      CANN_HARNESS_PROBE: '',
      JEST_WORKER_ID: '',
      FIXTURE_OUT: path.join(root, 'out'),
    },
    stdio: 'ignore',
    detached: true,
  });
  children.add(child);
  const holding = () => readdirSync(tmp, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.holding')).length >= 3 * files;
  expect(await waitUntil(holding, 90_000, 100)).toBe(true);
  process.kill(child.pid!, 'SIGKILL'); // the runner only: its workers and device processes stay
  // They notice within a poll (200 ms); 30 s is far below the scenario's 120 s deadline.
  expect(await waitUntil(() => processesWithEnv('CANN_HARNESS_TMPDIR', tmp).length === 0, 30_000, 100)).toBe(true);
  removeDeadRunLeftovers(() => {}, { ...process.env, CANN_HARNESS_TMPDIR: tmp }, privateTmp);
  expect(readdirSync(tmp)).toEqual([]);
  // jest-transform's cache may be there (not ours); nothing named like the harness's.
  expect(readdirSync(privateTmp).filter((n) => n.startsWith('cann-'))).toEqual([]);
  expect(leakedShm(shmBefore)).toEqual([]);
  children.delete(child);
}, 180_000);
