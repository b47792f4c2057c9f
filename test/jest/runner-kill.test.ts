/**
 * SIGKILL of a Jest runner with two worker processes (`npx jest --maxWorkers=2`, as `cann-harness
 * audit` runs two or more spec files) while both workers run a scenario whose roles hold IPC events:
 * no handler runs in the runner, so the workers must notice it themselves (src/orchestrator/
 * runner-watch.ts) and stop their scenarios at once, not at the scenario's deadline (here 120 s).
 * Then "the next start" (what the global setup of the next run does) leaves nothing of the run.
 * (tools/kill-runners.js repeats this for every kind of runner, many times.)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { removeDeadRunLeftovers } from '../../src/orchestrator/dead-runs';
import { leakedShm, processesWithEnv, shmEntries, waitUntil } from '../support/leftovers';

const repoRoot = path.resolve(__dirname, '..', '..');
const jestBin = require.resolve('jest/bin/jest');
const fixtureConfig = path.join(__dirname, 'fixtures', 'jest.config.js');

let tmp = '';
let child: ReturnType<typeof spawn> | undefined;
afterAll(() => {
  try {
    if (child?.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    /* gone */
  }
  for (const pid of tmp ? processesWithEnv('CANN_HARNESS_TMPDIR', tmp) : []) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('SIGKILL of `jest --maxWorkers=2`: its workers stop their scenarios, and the next start leaves nothing', async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'cann-runner-kill-'));
  const shmBefore = shmEntries();
  child = spawn(process.execPath, [jestBin, '--config', fixtureConfig, '--ci', '--maxWorkers=2', 'fixtures/interrupt'], {
    cwd: repoRoot,
    env: { ...process.env, FORCE_COLOR: '0', CANN_HARNESS_TMPDIR: tmp, CANN_HARNESS_PROBE: '', JEST_WORKER_ID: '', FIXTURE_OUT: `${tmp}/out` },
    stdio: 'ignore',
    detached: true,
  });
  const holding = () => readdirSync(tmp, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.holding')).length >= 6;
  expect(await waitUntil(holding, 60_000, 100)).toBe(true);
  process.kill(child.pid!, 'SIGKILL'); // the runner only: its workers and device processes stay
  // The workers notice within a poll (200 ms); 20 s is far below the scenario's 120 s deadline.
  expect(await waitUntil(() => processesWithEnv('CANN_HARNESS_TMPDIR', tmp).length === 0, 20_000, 100)).toBe(true);
  removeDeadRunLeftovers(() => {}, { ...process.env, CANN_HARNESS_TMPDIR: tmp });
  expect(readdirSync(tmp).filter((n) => n !== 'out')).toEqual([]);
  expect(leakedShm(shmBefore)).toEqual([]);
}, 90_000);
