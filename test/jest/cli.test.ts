/**
 * The `cann-harness` command, run as users run it (bin/cann-harness.js in a child process), except
 * what stops before any scenario or Jest is started (usage errors, doctor's facts, a run without a
 * runtime): those call the CLI's main() in this process (a child each added only a Node start-up
 * and the CLI's compilation; the device probe still runs in a child of its own). One usage error
 * also goes through the binary, for its exit code 2 and its message (the runs below show its 0 and
 * 1 and its output). A whole `run` session costs ~3 s of CPU: runs that check different parts of
 * one session share it.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliInProcess as inProcess } from '../support/cli-in-process';
import { runCommand } from '../support/run-child';
import { EIGHT_DEVICES, STUB_DEVICES } from '../support/stub-devices';

const repoRoot = path.resolve(__dirname, '..', '..');
const bin = path.join(repoRoot, 'bin', 'cann-harness.js');

// Each test starts the command (and some a nested Jest run) in a child process.
jest.setTimeout(90_000);

/** The same command through main() in this process (test/support/cli-in-process.ts). */
const cliInProcess = (args: string[], env: Record<string, string> = {}) => inProcess(args, { env });

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCommand(process.execPath, [bin, ...args], { cwd: repoRoot, env });
}

test('doctor prints mode, library and why, device count, IPC support and versions', async () => {
  const r = await cliInProcess(['doctor', '--mode', 'stub']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/mode\s+stub \(requested stub\)/);
  expect(r.stdout).toMatch(/library\s+\S+native-stub\/build\/lib64\/libascendcl\.so/);
  expect(r.stdout).toMatch(/why\s+\S+/);
  expect(r.stdout).toMatch(new RegExp(`devices\\s+${STUB_DEVICES}\\b`));
  expect(r.stdout).toMatch(/IPC events\s+supported/);
  expect(r.stdout).toMatch(new RegExp(`node\\s+${process.version.replace(/\./g, '\\.')}`));
  expect(r.stdout).toMatch(/koffi\s+\d+\.\d+\.\d+/);
  expect(r.stdout).toMatch(/stub\s+\d+\.\d+\.\d+/);
  expect(r.stdout).toMatch(/helper lib\s+\S+\/libcannharness_hold\.so \(watchdog thread, stream hold\/latch\)/);
});

test('doctor names a missing native helper library and how to build it', async () => {
  const r = await cliInProcess(['doctor', '--json', '--mode', 'stub'], { CANN_HARNESS_HOLD_LIBRARY: '/nonexistent/libcannharness_hold.so' });
  expect(JSON.parse(r.stdout).helperLibrary).toEqual({
    file: '/nonexistent/libcannharness_hold.so',
    problem: expect.stringMatching(/^the harness's native helper library \/nonexistent\/libcannharness_hold\.so does not exist; .*npm run build:stub/),
  });
});

test('doctor --json gives the same facts to scripts', async () => {
  const r = await cliInProcess(['doctor', '--json', '--mode', 'stub']);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ requestedMode: 'stub', mode: 'stub', deviceCount: STUB_DEVICES, ipcSupported: true, versions: { node: process.version } });
});

test('doctor with no usable library says why and exits 1', async () => {
  const r = await cliInProcess(['doctor', '--json', '--mode', 'real'], { ASCEND_HOME_PATH: '/nonexistent' });
  expect(r.code).toBe(1);
  const report = JSON.parse(r.stdout);
  expect(report.probe.ok).toBe(false);
  expect(report.deviceCount).toBe(0);
});

test('run with no usable library fails at once with the reason, instead of skipping every scenario', async () => {
  const r = await cliInProcess(['run', '--mode', 'real'], { ASCEND_HOME_PATH: '/nonexistent' });
  expect(r.code).toBe(1);
  expect(r.stdout).toContain('no usable ACL runtime (real mode)');
  expect(r.stderr).toContain('no scenario can run without an ACL runtime');
  expect(r.stdout).not.toMatch(/running \d+ spec files?/);
});

test.each([
  [['run', '--mode', 'fast'], /option '--mode <mode>' argument 'fast' is invalid\. Allowed choices are auto, stub, real/],
  [['run', '--require-devices', 'many'], /expected a whole number of devices, e\.g\. 8 \(got "many"\)/],
  [['run', '--specs', '/nonexistent-specs'], /--specs \/nonexistent-specs: no such directory/],
  [['run', '('], /pattern "\(" is not a valid regular expression/],
  [['frobnicate'], /unknown command 'frobnicate'/],
])('bad input %j is a clear error with exit code 2', async (args, message) => {
  const r = await cliInProcess(args);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(message);
});

test('the binary exits with main()\'s code and shows its message: 2 for bad usage', async () => {
  const r = await cli(['frobnicate']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/unknown command 'frobnicate'/);
});

test('a bad CANN_HARNESS_MODE is a usage error naming the variable (commander does not check defaults)', async () => {
  const r = await cliInProcess(['doctor'], { CANN_HARNESS_MODE: 'gpu' });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('CANN_HARNESS_MODE must be one of auto, stub, real; got "gpu"');
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
});

test('run: progress lines, skip reasons, a coloured-when-TTY summary, JUnit XML, exit code', async () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'cann-cli-test-'));
  try {
    const junit = path.join(out, 'junit.xml');
    const r = await cli(['run', '--specs', path.join(__dirname, 'fixtures', 'cli'), '--junit', junit, '--mode', 'stub'], EIGHT_DEVICES);
    expect(r.stdout).toMatch(/cann-harness stub mode · 8 devices · IPC events supported/);
    expect(r.stdout).toMatch(/✓ test\/jest\/fixtures\/cli\/cli\.spec\.ts › cli quick scenario \d+\.\d s/);
    expect(r.stdout).toContain('○ test/jest/fixtures/cli/cli.spec.ts › cli huge scenario skipped: needs 64 devices, 8 available');
    expect(r.stdout).toMatch(/PASS {2}1 passed · 1 skipped \(2 scenarios in 1 spec file,/);
    expect(r.code).toBe(0);
    expect(readFileSync(junit, 'utf8')).toMatch(/cli huge scenario \[skip: needs 64 devices, 8 available\]"[^>]*>\s*<skipped message="needs 64 devices, 8 available"\/>/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 120_000);

test('run: a pattern that matches nothing is an error, not a silent pass', async () => {
  const r = await cli(['run', 'no-such-spec-anywhere', '--specs', path.join(__dirname, 'fixtures', 'cli')]);
  expect(r.code).toBe(1);
  expect(`${r.stdout}${r.stderr}`).toMatch(/no-such-spec-anywhere/);
});

test('run: --repeat-each 0 and a bad --jitter are usage errors naming the fix', async () => {
  const zero = await cliInProcess(['run', '--repeat-each', '0']);
  expect(zero.code).toBe(2);
  expect(zero.stderr).toContain('give how many times to run each scenario, a whole number from 1 (e.g. --repeat-each 20)');
  const jitter = await cliInProcess(['run', '--jitter', 'fast']);
  expect(jitter.code).toBe(2);
  expect(jitter.stderr).toContain('--jitter "fast" is invalid');
});

// One session for both: the required devices fail the huge scenario (once: one that cannot run is not repeated).
test('run: --require-devices turns a skip into a failure; --repeat-each labels each repetition, --jitter gives each its own seed', async () => {
  const r = await cli(['run', '--specs', path.join(__dirname, 'fixtures', 'cli'), '--junit', path.join(os.tmpdir(), `cann-cli-${process.pid}.xml`), '--require-devices', '64', '--repeat-each', '2', '--jitter', '50'], EIGHT_DEVICES);
  rmSync(path.join(os.tmpdir(), `cann-cli-${process.pid}.xml`), { force: true });
  expect(r.stdout).toMatch(/✗ .*cli huge scenario/);
  expect(r.stdout).toContain('CANN_HARNESS_REQUIRE_DEVICES=64 says this runner must have 64 devices');
  expect(r.stdout).toMatch(/FAIL {2}2 passed · 1 failed/);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/✓ .*cli quick scenario \[repeat 1\/2, jitter seed \d+\]/);
  expect(r.stdout).toMatch(/✓ .*cli quick scenario \[repeat 2\/2, jitter seed \d+\]/);
  expect(r.stdout).toContain('repetitions: 2 scenarios, 3 runs under seeded jitter of up to 50 us');
  expect(r.stdout).toContain('1 passed every repetition'); // the quick scenario: the huge one failed for its devices only
  expect(r.stdout).toMatch(/FAILED in every repetition: .*cli huge scenario/);
});

test('run --repeat-each 3: percentiles of intervals (result.between() in verify, and declared) as a table and in intervals.json next to the JUnit file', async () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'cann-cli-intervals-'));
  try {
    const r = await cli(['run', '--specs', path.join(__dirname, 'fixtures', 'intervals'), '--junit', path.join(out, 'junit.xml'), '--repeat-each', '3', '--mode', 'stub']);
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(path.join(out, 'intervals.json'), 'utf8'));
    expect(report).toMatchObject({ schema: 'cann-harness/intervals@1', unit: 'ms', percentiles: 'nearest-rank' });
    expect(report.intervals.map((s: { scenario: string }) => s.scenario).sort()).toEqual(['intervals: declared', 'intervals: release to wake']);
    // The raw samples stay next to it: one line per run, scenario, interval and role.
    const samples = readFileSync(path.join(out, 'intervals-samples.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(samples).toHaveLength(6);
    expect(samples[0]).toEqual({ file: 'test/jest/fixtures/intervals/intervals.spec.ts', scenario: expect.any(String), from: 'producer:release', to: 'consumer:woken', role: 'consumer', ms: expect.any(Number) });
    expect(r.stdout).toContain(`intervals (ms) across runs, written to ${path.relative(repoRoot, path.join(out, 'intervals.json'))}`);
    for (const s of report.intervals) {
      expect(s).toMatchObject({ file: 'test/jest/fixtures/intervals/intervals.spec.ts', from: 'producer:release', to: 'consumer:woken', role: 'consumer', count: 3 });
      expect(s.min).toBeGreaterThan(0);
      expect(s.min).toBeLessThanOrEqual(s.p50);
      expect(s.p50).toBeLessThanOrEqual(s.p90);
      expect(s.p90).toBeLessThanOrEqual(s.p99);
      expect(s.p99).toBeLessThanOrEqual(s.max);
      const row = r.stdout.split('\n').find((l) => l.includes(`${s.scenario} › producer:release → consumer:woken`));
      const shown = (v: number) => Number(v.toFixed(v >= 100 ? 1 : v >= 1 ? 2 : 3));
      expect(row?.trim().split(/\s+/).slice(-5).map(Number)).toEqual([3, shown(s.p50), shown(s.p90), shown(s.p99), shown(s.max)]);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 120_000);

test('run: a declared interval whose mark never comes fails that scenario, naming the interval', async () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'cann-cli-intervals-'));
  try {
    const env = { INTERVALS_FIXTURE_BROKEN: '1', CANN_HARNESS_KEEP: '0' };
    const r = await cli(['run', '--specs', path.join(__dirname, 'fixtures', 'intervals'), '--junit', path.join(out, 'junit.xml'), '-t', 'never marked', '--mode', 'stub'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('declared interval ["producer:release", "consumer:never"] could not be measured: between(…, "consumer:never"): no role has the mark "consumer:never"');
    expect(readdirSync(out)).toEqual(['junit.xml']); // no samples: no interval files
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 120_000);

test('audit: scenario x mutant table as JSON; an undeclared wait-noop survivor fails --strict, even with a forged declaration planted in the temp dir', async () => {
  // Run through a forger that plants a declaration excusing the undeclared survivor at the log name
  // the audit once used (<tmp>/cann-harness-audit-<pid>.jsonl): the verdict must not change.
  const forger = path.join(__dirname, 'fixtures', 'audit-forger', 'forge-then-audit.js');
  const r = await runCommand(process.execPath, [forger, 'audit', '--specs', path.join(__dirname, 'fixtures', 'audit'), '--mutants', 'wait-noop', '--strict', '--json'], { cwd: repoRoot, env: {} });
  const report = JSON.parse(r.stdout);
  const rows = Object.fromEntries(report.scenarios.map((s: { scenario: string }) => [s.scenario, s]));
  expect(report.mutants).toEqual(['wait-noop']);
  expect(rows['audit: the wait blocks']).toMatchObject({ baseline: 'passed', mutants: { 'wait-noop': { verdict: 'killed', byHappensBefore: true } }, testsItsWaits: true, problems: [] });
  expect(rows['audit: a no-op wait, declared']).toMatchObject({ mutants: { 'wait-noop': { verdict: 'survived', expected: true } }, problems: [] });
  expect(rows['audit: a no-op wait, undeclared']).toMatchObject({ mutants: { 'wait-noop': { verdict: 'survived', expected: false } }, testsItsWaits: false });
  expect(rows['audit: a no-op wait, undeclared'].problems[0]).toContain('does not test its waits');
  expect(r.stderr).toMatch(/audit mutant wait-noop +1 of 3 killed/);
  expect(r.code).toBe(1);
}, 120_000);

test('audit: refuses to run with a mutant already in the environment, or an unknown --mutants name', async () => {
  const env = await cliInProcess(['audit'], { ACL_STUB_MUTANT: 'wait-noop' });
  expect(env.code).toBe(2);
  expect(env.stderr).toContain('ACL_STUB_MUTANT is set (wait-noop): unset it, the audit chooses the mutants itself (--mutants)');
  const bad = await cliInProcess(['audit', '--mutants', 'wait-noop,slow']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--mutants: unknown mutant "slow"; use a comma-separated list of wait-noop, record-instant, wait-latest, sync-noop');
});
