/**
 * The schedule explorer's command-line options: what cannot be explored is a usage error (exit 2)
 * naming the reason and the fix, before any scenario starts.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliInProcess } from '../support/cli-in-process';
import { repoRoot, runCommand } from '../support/run-child';
import { encodeToken } from '../../src/wire/explore-file';

const DROP = ['CANN_HARNESS_EXPLORE', 'CANN_HARNESS_EXPLORE_REPLAY', 'ACL_STUB_JITTER'];
const bin = path.join(repoRoot, 'bin', 'cann-harness.js');
const run = (args: string[], env: Record<string, string> = {}) => cliInProcess(['run', ...args], { env, dropEnv: DROP });

test('--explore in real mode: the explorer is a stub feature', async () => {
  const r = await run(['--explore', '--mode', 'real']);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('--explore needs stub mode: the schedule explorer is a stub feature');
  expect(r.stderr).toContain('drop --mode real or --explore');
});

test('--explore with --jitter, or with ACL_STUB_JITTER: they exclude each other', async () => {
  const r = await run(['--explore', '3', '--jitter']);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('--explore and --jitter exclude each other');
  const byEnv = await run(['--explore', '3'], { ACL_STUB_JITTER: '1:100' });
  expect(byEnv.code).toBe(2);
  expect(byEnv.stderr).toContain('--explore and ACL_STUB_JITTER exclude each other');
});

test('a bad replay token names the problem and the fix; --explore with --explore-replay is refused', async () => {
  const bad = await run(['--explore-replay', 'ex1.not+a+token']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--explore-replay: the text after "ex1." is not base64url');
  expect(bad.stderr).toContain('Copy the whole token (ex1.<...>) or @<file> from the failure text of a --explore run');
  const missing = await run(['--explore-replay', '@/nonexistent/explore-replay.token']);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('cannot read /nonexistent/explore-replay.token (ENOENT)');
  const token = encodeToken('cann-explore 1\nseed 1 depth 2 round 1 steps 0\ndecisions\n');
  const both = await run(['--explore', '2', '--explore-replay', token]);
  expect(both.code).toBe(2);
  expect(both.stderr).toContain('give --explore or --explore-replay, not both');
});

test('a bad seed or depth names the fix', async () => {
  const seed = await run(['--explore', 'often']);
  expect(seed.code).toBe(2);
  expect(seed.stderr).toContain('--explore "often" is invalid: give a seed');
  expect(seed.stderr).toContain('a spec pattern right after --explore is taken as its seed');
  const depth = await run(['--explore', '--explore-depth', '9']);
  expect(depth.code).toBe(2);
  expect(depth.stderr).toContain('--explore-depth "9" is invalid: give the PCT depth, a whole number from 1 to 8');
  const alone = await run(['--explore-depth', '3']);
  expect(alone.code).toBe(2);
  expect(alone.stderr).toContain('--explore-depth needs --explore');
});

test('a passing explored run with rounds the explorer did not fully order says so after the summary, and on its HTML page', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cann-explore-cli-'));
  try {
    const specs = path.join(repoRoot, 'test', 'jest', 'fixtures', 'explore-degraded');
    const html = path.join(dir, 'html');
    const args = ['run', '--mode', 'stub', '--specs', specs, '--explore', '5', '--junit', path.join(dir, 'junit.xml'), '--html', html];
    const r = await runCommand(process.execPath, [bin, ...args], { cwd: repoRoot, dropEnv: DROP });
    expect(r.code).toBe(0);
    const warning =
      '[cann-harness] warning: test/jest/fixtures/explore-degraded/sleeper.spec.ts › a sleeper passes, not fully ordered passed, ' +
      'but the schedule explorer did not fully order 2 of its 2 rounds (first round 1: sleeper/main left the explored points after step';
    expect(r.stdout + r.stderr).toContain(warning);
    const pages = readdirSync(path.join(html, 'scenarios')).map((f) => readFileSync(path.join(html, 'scenarios', f), 'utf8'));
    expect(pages.join('\n')).toContain('did not fully order 2 of its 2 rounds');
    // Its replay explores again, with the seed.
    expect(pages.join('\n')).toContain('-t &#39;^a sleeper passes, not fully ordered$&#39; --rounds 2 --explore 5</code>');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);
