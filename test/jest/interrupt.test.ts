/**
 * Interrupting a real `cann-harness run` (SIGINT to its process group as Ctrl-C does, SIGHUP to the
 * command itself) and an `npx jest` with two worker processes (SIGTERM) while device processes hold
 * IPC events: afterwards nothing is left in the scenario temp dir, in /dev/shm, or in the process table.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ipcEventObject, leakedShmOf, processesWithEnv, survivors, waitUntil } from '../support/leftovers';

const repoRoot = path.resolve(__dirname, '..', '..');
const bin = path.join(repoRoot, 'bin', 'cann-harness.js');
const SPECS = path.join(__dirname, 'fixtures', 'interrupt');
const jestBin = require.resolve('jest/bin/jest');
const fixtureConfig = path.join(__dirname, 'fixtures', 'jest.config.js');

// The cases run at the same time: each session has its own process group, temp dir and session id.
const cleanup: (() => void)[] = [];
afterAll(() => {
  for (const f of cleanup.splice(0)) f();
});

/** Every file under `dir` (recursively). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f));
}

/** Device pids (from the stub's trace file names) and IPC objects (from their contents) of the runs in `tmp`. */
function seenInTraces(tmp: string): { pids: number[]; shm: string[] } {
  const pids = new Set<number>();
  const shm = new Set<string>();
  for (const f of filesUnder(tmp)) {
    const m = /trace-(\d+)\.jsonl$/.exec(f);
    if (!m) continue;
    pids.add(Number(m[1]));
    try {
      for (const ipc of readFileSync(f, 'utf8').matchAll(/"ipc":"([0-9a-f]{16})"/g)) shm.add(ipcEventObject(ipc[1]));
    } catch {
      /* removed meanwhile */
    }
  }
  return { pids: [...pids], shm: [...shm] };
}

test.concurrent.each<[NodeJS.Signals, 'group' | 'command', 'cann-harness run' | 'jest --maxWorkers=2']>([
  ['SIGINT', 'group', 'cann-harness run'], // Ctrl-C: the whole foreground group; one spec file, Jest in band
  ['SIGHUP', 'command', 'cann-harness run'],
  ['SIGTERM', 'command', 'jest --maxWorkers=2'], // two spec files at once in Jest worker processes
])('%s to the %s of `%s`: no process, scenario directory or /dev/shm object left', async (signal, target, command) => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'cann-interrupt-'));
  const junit = path.join(os.tmpdir(), `${path.basename(tmp)}.xml`);
  const files = command === 'cann-harness run' ? 1 : 2;
  const args =
    command === 'cann-harness run'
      ? [bin, 'run', 'holds-events', '--mode', 'stub', '--specs', SPECS, '--junit', junit]
      : [jestBin, '--config', fixtureConfig, '--ci', '--maxWorkers=2', 'fixtures/interrupt'];
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, FORCE_COLOR: '0', CANN_HARNESS_TMPDIR: tmp, CANN_HARNESS_PROBE: '', JEST_WORKER_ID: '', FIXTURE_OUT: tmp + '.out' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, like a command started from a shell
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, sig) => resolve({ code, signal: sig })));
  cleanup.push(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
    rmSync(tmp, { recursive: true, force: true });
    rmSync(junit, { force: true });
    rmSync(tmp + '.out', { recursive: true, force: true });
  });

  // Wait until every role of every running scenario holds its events (3 per scenario file).
  const holding = () => filesUnder(tmp).filter((f) => /\.holding$/.test(f)).length >= 3 * files;
  expect(await waitUntil(holding, 60_000, 100)).toBe(true);
  const seen = seenInTraces(tmp);
  expect(seen.pids.length).toBeGreaterThanOrEqual(3 * files);
  expect(seen.shm.length).toBeGreaterThanOrEqual(files);

  process.kill(target === 'group' ? -child.pid! : child.pid!, signal);
  const end = await exited;
  expect(end.signal).toBe(signal); // it died by the signal it got, after cleaning up
  expect(output).toContain(`[cann-harness] ${signal}: stopping device processes`);
  expect(survivors(seen.pids)).toEqual([]);
  expect(readdirSync(tmp)).toEqual([]);
  expect(leakedShmOf(seen.shm)).toEqual([]);
  // Nothing comes back afterwards (e.g. a straggler re-creating its trace directory): checked once
  // no process of the session is left (all of them have CANN_HARNESS_TMPDIR=tmp), so none can.
  expect(await waitUntil(() => processesWithEnv('CANN_HARNESS_TMPDIR', tmp).length === 0, 10_000)).toBe(true);
  expect(readdirSync(tmp)).toEqual([]);
  expect(existsSync(tmp)).toBe(true);
}, 120_000);
