/**
 * The native stub's C conformance suite (native-stub/test/), one Jest test per case.
 *
 * The case list comes from `conformance --list` at collection time (a child process: no native
 * code is loaded into Jest). Each case then runs, beside others, as `conformance --case NAME` in
 * its own process group, so that whatever it spawns can be found and killed. After each case: nothing of the
 * group may still run, and no shared-memory object of ours may remain in /dev/shm, neither the
 * ones the case declared ("ct-owned-path:" lines) nor new unused `cannstub*` objects. Each case
 * runs in a stub scope of its own (ACL_STUB_SCOPE, native-stub/README.md), so "new" means new
 * in that scope: test files running at the same time neither count here nor reclaim our leaks.
 *
 * CANN_STUB_FLAVOR=asan|tsan runs the suite against build-asan/ or build-tsan/ instead of build/.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { ENV } from '../../src/env';
import { leakedShm, liveGroupMembers, shmEntries, stubScope, waitUntil } from '../support/leftovers';

const repoRoot = path.resolve(__dirname, '..', '..');
const CASE_TIMEOUT_MS = 30_000; // the runner's own watchdog fails a case after 20 s
const FLAVOR_DIRS: Record<string, string> = { release: 'build', asan: 'build-asan', tsan: 'build-tsan' };

interface Suite {
  runner: string;
  flavor: string;
  cases: string[];
  problem?: string;
}

function sanitizerEnv(flavor: string): NodeJS.ProcessEnv {
  if (flavor === 'asan')
    return { ASAN_OPTIONS: 'detect_leaks=1', UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1' };
  if (flavor === 'tsan') return { TSAN_OPTIONS: 'halt_on_error=1 second_deadlock_stack=1' };
  return {};
}

function loadSuite(): Suite {
  const flavor = process.env.CANN_STUB_FLAVOR || 'release';
  const dir = FLAVOR_DIRS[flavor];
  if (!dir) {
    return {
      runner: '',
      flavor,
      cases: [],
      problem: `CANN_STUB_FLAVOR=${flavor} is unknown: use asan or tsan, or leave it unset for the release build`,
    };
  }
  const buildDir = path.join(repoRoot, 'native-stub', dir);
  const runner = path.join(buildDir, 'bin', 'conformance');
  const lib = path.join(buildDir, 'lib64', 'libascendcl.so');
  const build = flavor === 'release' ? 'npm run build:stub' : `make -C native-stub FLAVOR=${flavor}`;
  const missing = [lib, runner].filter((p) => !existsSync(p));
  if (missing.length > 0) {
    return { runner, flavor, cases: [], problem: `native stub not built (missing ${missing.join(', ')}): run ${build}` };
  }
  const listed = spawnSync(runner, ['--list'], { encoding: 'utf8', timeout: 10_000 });
  if (listed.status !== 0) {
    return {
      runner,
      flavor,
      cases: [],
      problem: `${runner} --list failed (exit ${listed.status}, ${listed.error ?? listed.signal ?? ''}): ${listed.stderr}\nrun ${build}`,
    };
  }
  const cases = listed.stdout.split('\n').filter((l) => l.trim() !== '');
  if (cases.length === 0) return { runner, flavor, cases, problem: `${runner} --list printed no cases` };
  return { runner, flavor, cases };
}

interface CaseRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  pgid: number;
}

/** The stub scope of one case: the file's own, plus the case's index (at most 24 characters). */
function caseScope(suite: Suite, name: string): string {
  return `${stubScope() || 'ct'}c${suite.cases.indexOf(name).toString(36)}`;
}

function runCase(suite: Suite, name: string, scope: string): Promise<CaseRun> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...sanitizerEnv(suite.flavor), [ENV.stubScope]: scope };
    const child = spawn(suite.runner, ['--case', name], {
      cwd: repoRoot,
      env,
      detached: true, // own process group: the case and every helper it spawns
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, CASE_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut, pgid: child.pid ?? 0 });
    });
  });
}

function killGroup(pgid: number | undefined): void {
  if (!pgid) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* group already gone */
  }
}

function describeRun(name: string, run: CaseRun): string {
  const how = run.timedOut
    ? `timed out after ${CASE_TIMEOUT_MS} ms (killed)`
    : run.signal
      ? `killed by ${run.signal}`
      : run.code === 77
        ? 'exit 77: the case skipped itself, and skips count as failures here'
        : `exit ${run.code}`;
  return `conformance case ${name}: ${how}\n--- stdout ---\n${run.stdout}--- stderr ---\n${run.stderr}`;
}

const OWNED_TAG = 'ct-owned-path: ';

/** Paths the case declared as its own (stub shm objects) that still exist. */
function ownedLeftovers(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith(OWNED_TAG))
    .map((l) => l.slice(OWNED_TAG.length).trim())
    .filter((p, i, all) => all.indexOf(p) === i && existsSync(p));
}

const suite = loadSuite();

describe(`native stub conformance suite (${suite.flavor})`, () => {
  // Each case checks that nothing new is left in its scope of /dev/shm: other test files' stub
  // processes have scopes of their own, so they neither count here nor reclaim a leak of ours.
  if (suite.problem) {
    test('the conformance runner is built', () => {
      throw new Error(suite.problem);
    });
    return;
  }

  // Cases run side by side (up to Jest's maxConcurrency, 5 by default): each has its own process
  // group and stub scope, and most of a case's time is spent waiting on its helpers, gates and
  // timeouts (the suite took 36 s of wall time for 10 s of CPU one case at a time).
  test.concurrent.each(suite.cases)(
    '%s',
    async (name) => {
      const scope = caseScope(suite, name);
      const shmBefore = shmEntries(scope);
      const run = await runCase(suite, name, scope);
      // Helpers must have ended with their case; kill stragglers so nothing outlives the test.
      const stragglers = run.pgid ? liveGroupMembers(run.pgid) : [];
      killGroup(run.pgid);
      if (run.code !== 0) throw new Error(describeRun(name, run));
      expect(stragglers).toEqual([]);
      // A last user unlinks right before it exits; give the file system a moment.
      await waitUntil(() => ownedLeftovers(run.stdout).length === 0, 500, 20);
      const owned = ownedLeftovers(run.stdout);
      if (owned.length > 0) {
        throw new Error(`case ${name} left stub objects behind: ${owned.join(', ')}\n${describeRun(name, run)}`);
      }
      expect(leakedShm(shmBefore, scope)).toEqual([]);
    },
    CASE_TIMEOUT_MS + 10_000,
  );
});
