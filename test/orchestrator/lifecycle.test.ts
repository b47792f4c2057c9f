/**
 * No orphans: a parent that runs roles is killed (SIGKILL, SIGTERM, SIGINT); its role processes,
 * their descendants and its scenario directory must all disappear.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot, TS_HOOK } from '../support/run-child';
import { isRunning, scenarioDirsOf, survivors, waitUntil } from '../support/leftovers';

const PARENT = path.join(__dirname, 'fixtures', 'parent-script.ts');
const SPINNER = path.join(__dirname, 'fixtures', 'orphan-spinner.ts');
const DIES_MID_JOB = path.join(__dirname, 'fixtures', 'dies-mid-job.ts');

/**
 * Every process (group) a test started: killed afterwards even if a test failed half-way. The tests
 * share nothing else (each has its own parent, roles and directories), so they run at the same time.
 */
const toKill: number[] = [];
afterAll(() => {
  for (const pid of toKill.splice(0)) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
});

interface Started {
  parent: number;
  pids: number[];
  grandchild: number;
  dir: string;
}

/** An orphaned device process must end and take its scenario directory with it. */
async function expectGoneWithDir(pid: number, dir: string): Promise<void> {
  await waitUntil(() => !isRunning(pid) && !existsSync(dir), 15_000);
  expect(isRunning(pid)).toBe(false);
  expect(existsSync(dir)).toBe(false);
}

function registered(s: Started): void {
  toKill.push(s.parent, ...s.pids);
  if (s.grandchild) toKill.push(s.grandchild);
}

/** Start the parent script and resolve once all its roles (and the grandchild) are up. */
function startParent(roleB: string, early: boolean) {
  const child = spawn(process.execPath, ['-r', TS_HOOK, PARENT, roleB, ...(early ? ['early'] : [])], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<Started>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`parent script did not start its roles in time; stderr:\n${err}`));
    }, 60_000);
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{"parent"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      }
    });
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', () => reject(new Error(`parent script exited early; stderr:\n${err}`)));
  });
  return { child, started: ready, exited };
}

test.concurrent.each<[NodeJS.Signals, string, boolean]>([
  ['SIGKILL', 'hangsOnHandle', false],
  ['SIGKILL', 'blocksMainThread', false], // the role's main thread cannot run its poll
  ['SIGKILL', 'blocksMainThread', true], // the parent dies while its roles are still starting
  ['SIGTERM', 'hangsOnHandle', false],
  ['SIGINT', 'hangsOnHandle', false],
])('parent killed by %s (role b: %s, early: %s): children and grandchildren gone, directory removed', async (signal, roleB, early) => {
  const { child, started, exited } = startParent(roleB, early);
  const s = await started;
  registered(s);
  if (!early) expect(survivors([...s.pids, s.grandchild])).toHaveLength(3);
  expect(existsSync(s.dir)).toBe(true);
  child.kill(signal);
  // The parent dies by the same signal (handlers re-raise it after cleaning up).
  expect(await exited).toEqual({ code: null, signal });
  // Early: the children may still be starting; they must notice on their own and clean up.
  await waitUntil(() => survivors([...s.pids, s.grandchild]).length === 0 && !existsSync(s.dir), 15_000);
  expect(survivors([...s.pids, s.grandchild])).toEqual([]);
  expect(existsSync(s.dir)).toBe(false);
  expect(scenarioDirsOf(s.parent)).toEqual([]);
}, 120_000);

/**
 * The watchdog thread alone (no IPC channel, main thread spinning) must take an orphan down, both
 * when the parent died before the child even started watching (then getppid() is already the
 * reaper's pid: a watch that took getppid() at start-up as "the parent" never fired) and when it
 * dies later. The scenario directory named in CANN_HARNESS_DIR goes too.
 */
test.concurrent.each<[string, boolean]>([
  ['before the child starts watching', true],
  ['while the child spins', false],
])('an orphan whose parent died %s is killed by the watchdog thread alone', async (_when, early) => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'orphan-test-'));
  try {
    const dir = path.join(work, 'scenario');
    mkdirSync(dir);
    const status = path.join(work, 'status');
    const node = `${JSON.stringify(process.execPath)} -r ${JSON.stringify(TS_HOOK)} ${JSON.stringify(SPINNER)} ${JSON.stringify(status)}`;
    // sh exports its own pid as the orchestrator's, starts the spinner in the background, then
    // either exits at once (early) or waits to be killed.
    const sh = spawn('/bin/sh', ['-c', `CANN_HARNESS_PARENT_PID=$$ CANN_HARNESS_DIR=${JSON.stringify(dir)} ${node} & ${early ? 'exit 0' : 'wait'}`], {
      cwd: repoRoot,
      stdio: 'ignore',
    });
    toKill.push(sh.pid!);
    const exited = new Promise((r) => sh.on('exit', r));
    const statusText = () => (existsSync(status) ? readFileSync(status, 'utf8') : '');
    const wanted = early ? /^\d+/ : /^\d+ spinning$/;
    expect(await waitUntil(() => wanted.test(statusText()), 30_000)).toBe(true);
    const pid = Number.parseInt(statusText(), 10);
    toKill.push(pid);
    if (!early) {
      expect(isRunning(pid)).toBe(true);
      sh.kill('SIGKILL');
    }
    await exited;
    await expectGoneWithDir(pid, dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}, 60_000);

test.concurrent('a parent that dies while writing the job: the device process removes the scenario directory and goes', async () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'mid-job-test-'));
  try {
    const dir = path.join(work, 'scenario');
    mkdirSync(dir);
    const parent = spawn(process.execPath, ['-r', TS_HOOK, DIES_MID_JOB, dir], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    parent.stdout.on('data', (d) => (out += d));
    const signal = await new Promise((r) => parent.on('exit', (_code, sig) => r(sig)));
    expect(signal).toBe('SIGKILL');
    const pid = Number.parseInt(out, 10);
    expect(pid).toBeGreaterThan(0);
    toKill.push(pid);
    await expectGoneWithDir(pid, dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}, 60_000);
