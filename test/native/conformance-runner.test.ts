/**
 * The C conformance runner's `--all` mode (what `make check` and `npm run test:sanitizers` run), when
 * it is stopped: a SIGTERM (CI stopping a phase) or Ctrl-C kills every running case's process group,
 * reclaims what the cases left in /dev/shm, removes what a case declared its own and reclaim leaves
 * alone, and the runner dies of the same signal. The case used plants an object with another stub
 * version's header (which reclaim must leave alone) and then sleeps 5.2 s: the signal comes then.
 * Beside it this test puts what the case did not declare: a file named as an object of the case's
 * scope (as one created but not yet declared when the stop came), which the runner's last sweep
 * removes, and a link named the same way, which it must neither follow nor remove.
 * (`--case NAME`, one case, is what test/native/conformance.test.ts runs; it kills groups itself.)
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ENV } from '../../src/env';
import { processesWithEnv, waitUntil } from '../support/leftovers';

const repoRoot = path.resolve(__dirname, '..', '..');
const runner = path.join(repoRoot, 'native-stub', 'build', 'bin', 'conformance');
const CASE = 'procs_reclaim_leaves_objects_of_another_stub_version_alone';
// The run's scope: each case's is this plus "c" and its index (ctest.h, ct_case_scope).
const baseScope = `rt${process.pid.toString(36)}`;

/** This run's objects in /dev/shm, by name. */
function objectsOfRun(): string[] {
  return readdirSync('/dev/shm').filter((n) => n.includes(`.${baseScope}c`));
}

/**
 * This run's planted objects once they have a size: the case declares an object ("ct-owned-path:",
 * flushed) between creating it and sizing it, so a signal while it is still empty could come
 * before the declaration (seen once in 13 runs under two CPU hogs). The runner's last sweep of the
 * case's scope removes such an object too; waiting for the size keeps this test on the declared
 * path, which a stop must clean up whatever the sweep does.
 */
function plantedAndDeclared(): string[] {
  return objectsOfRun().filter((n) => {
    try {
      return statSync(`/dev/shm/${n}`).size > 0;
    } catch {
      return false; // gone meanwhile
    }
  });
}

test('a stopped --all run kills its cases, leaves nothing in /dev/shm, and dies of the signal', async () => {
  if (!existsSync(runner)) throw new Error(`${runner} is missing: run npm run build:stub`);
  const child = spawn(runner, ['--all', '--jobs', '1', CASE], {
    env: { ...process.env, [ENV.stubScope]: baseScope },
    detached: true, // a group of our own, to clean up after a failure of this test
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const ended = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on('close', (code, signal) => resolve(signal ?? code)),
  );
  let planted: string[] = [];
  const undeclared = `cannstub-undeclared-${process.pid}`;
  const link = `cannstub-link-${process.pid}`;
  // In a directory of our own (mkdtemp: 0700, a fresh name), so no planted file is written through.
  const targetDir = mkdtempSync(path.join(os.tmpdir(), 'conformance-runner-'));
  const linkTarget = path.join(targetDir, 'target');
  writeFileSync(linkTarget, 'not yours', { flag: 'wx' });
  try {
    expect(await waitUntil(() => (planted = plantedAndDeclared()).length > 0, 15_000)).toBe(true);
    const caseScope = planted[0].slice(planted[0].lastIndexOf('.') + 1);
    writeFileSync(`/dev/shm/${undeclared}.${caseScope}`, 'half-created', { flag: 'wx' });
    symlinkSync(linkTarget, `/dev/shm/${link}.${caseScope}`);
    child.kill('SIGTERM');
    expect(await ended).toBe('SIGTERM');
    expect(output).toContain('conformance: stopped by signal 15: 1 running case(s) killed');
    expect(output).toContain(`removed: /dev/shm/${planted[0]}`); // declared by the case
    expect(output).toContain(`removed (left in the case's scope): /dev/shm/${undeclared}.${caseScope}`);
    expect(objectsOfRun()).toEqual([`${link}.${caseScope}`]); // a link is not followed, not removed
    expect(readFileSync(linkTarget, 'utf8')).toBe('not yours');
    expect(processesWithEnv(ENV.stubScope, caseScope)).toEqual([]);
  } finally {
    try {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
    } catch {
      /* the group is gone */
    }
    for (const name of objectsOfRun()) unlinkSync(`/dev/shm/${name}`);
    rmSync(targetDir, { recursive: true, force: true });
  }
}, 30_000);

test('--all refuses a run scope that leaves no room for the case index (the stub allows 24 characters)', () => {
  if (!existsSync(runner)) throw new Error(`${runner} is missing: run npm run build:stub`);
  const tooLong = spawnSync(runner, ['--all', 'barrier_alone_times_out'], { env: { ...process.env, [ENV.stubScope]: 'a'.repeat(21) }, encoding: 'utf8' });
  expect(tooLong.status).toBe(2);
  expect(tooLong.stderr).toContain('ACL_STUB_SCOPE is too long for --all');
  expect(tooLong.stderr).toContain('give at most 20 characters');
  const fits = spawnSync(runner, ['--all', 'barrier_alone_times_out'], { env: { ...process.env, [ENV.stubScope]: `${baseScope}${'b'.repeat(20 - baseScope.length)}` }, encoding: 'utf8' });
  expect(fits.stderr).toBe('');
  expect(fits.status).toBe(0);
});
