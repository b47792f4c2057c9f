/**
 * `cann-harness run` reads cann-harness.config.ts from its working directory; every key has an
 * effect here. Keys whose effect is in the run (device processes, kept directories, Jest's
 * reporters) are checked on the command in a child process, as users run it; config errors, the
 * mode's probe and `--list`, which stop before anything is started, through the CLI's main() in this
 * process (test/support/cli-in-process.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliInProcess } from '../support/cli-in-process';
import { runCommand } from '../support/run-child';
import { EIGHT_DEVICES } from '../support/stub-devices';

const repoRoot = path.resolve(__dirname, '..', '..');
const bin = path.join(repoRoot, 'bin', 'cann-harness.js');
jest.setTimeout(90_000);

let project: string;
beforeEach(() => {
  project = mkdtempSync(path.join(os.tmpdir(), 'cann-cli-config-'));
  mkdirSync(path.join(project, 'e2e'));
  const src = JSON.stringify(path.join(repoRoot, 'src'));
  writeFileSync(
    path.join(project, 'e2e', 'quick.spec.ts'),
    `import { pingPong, scenario } from ${src};\n` +
      // Its own deadline: a config file's timeoutMs reaches templates too (the 1000 ms one below would time it out).
      "scenario('quick ping-pong', pingPong({ timeoutMs: 30_000 }));\n" +
      "scenario('sleeps 3 s', { roles: { sleeper: { device: 0, run: () => new Promise<void>((r) => setTimeout(r, 3000)) } } });\n" +
      "scenario('needs 9 devices', { devices: 9, roles: { a: { device: 8, run: () => undefined } } });\n",
  );
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

function config(text: string): void {
  writeFileSync(path.join(project, 'cann-harness.config.ts'), `const config = ${text};\nexport default config;\n`);
}

/** The outer run's settings, which a config file would not override (an environment variable wins). */
const OUTER_SETTINGS = ['CANN_HARNESS_MODE', 'CANN_HARNESS_KEEP', 'CANN_HARNESS_TRACE', 'CANN_HARNESS_TMPDIR', 'CANN_HARNESS_RESULTS_DIR'];

function cli(args: string[], env: Record<string, string> = {}): ReturnType<typeof runCommand> {
  return runCommand(process.execPath, [bin, ...args], { cwd: project, env, dropEnv: OUTER_SETTINGS });
}

/** The same command in this process, in the project, without the outer run's settings. */
function cliHere(args: string[], env: Record<string, string> = {}): ReturnType<typeof cliInProcess> {
  return cliInProcess(args, { cwd: project, env, dropEnv: OUTER_SETTINGS });
}

// One run for keep and trace: 'never' (a kept directory without trace.json); trace: 'always' needs a run of its own.
test('specs, reporters.junit, tmpDir, resultsDir, keep and trace: \'never\' come from the config file; --grep selects by scenario name', async () => {
  mkdirSync(path.join(project, 'scratch'));
  config("{ specs: 'e2e', reporters: { junit: 'out/results.xml' }, tmpDir: 'scratch', resultsDir: 'kept', keep: 'always', trace: 'never', mode: 'stub' }");
  const r = await cli(['run', '--grep', '^quick']);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('✓ e2e/quick.spec.ts › quick ping-pong');
  expect(r.stdout).toMatch(/1 passed · 2 skipped \(3 scenarios in 1 spec file/);
  expect(readFileSync(path.join(project, 'out', 'results.xml'), 'utf8')).toContain('quick ping-pong');
  // keep: 'always' kept the passing scenario's directory: made in tmpDir, moved to resultsDir; trace: 'never' wrote no trace.json there.
  expect(readdirSync(path.join(project, 'scratch')).filter((d) => d.startsWith('cann-harness-'))).toEqual([]);
  const kept = readdirSync(path.join(project, 'kept')).filter((d) => d.startsWith('cann-harness-'));
  expect(kept).toHaveLength(1);
  expect(existsSync(path.join(project, 'kept', kept[0], 'result.json'))).toBe(true);
  expect(existsSync(path.join(project, 'kept', kept[0], 'trace.json'))).toBe(false);
  expect(r.stderr).toContain('[cann-harness] 1 scenario directory kept in kept/');
});

test('trace: \'always\' keeps a passing run with its trace.json (in --results-dir), reporters.junit: false writes no JUnit XML; a misspelt trace value is a usage error', async () => {
  mkdirSync(path.join(project, 'scratch'));
  const results = path.join(project, 'mine'); // run --results-dir, relative to where the run starts
  const kept = () => readdirSync(results).filter((d) => d.startsWith('cann-harness-')).map((d) => path.join(results, d));
  config("{ specs: 'e2e', tmpDir: 'scratch', trace: 'always', mode: 'stub', reporters: { junit: false } }");
  const always = await cli(['run', '--grep', '^quick', '--results-dir', 'mine']);
  expect(always.code).toBe(0);
  expect(kept()).toHaveLength(1);
  expect(existsSync(path.join(kept()[0], 'trace.json'))).toBe(true);
  // reporters.junit: false: no JUnit XML, not even the default reports/junit.xml.
  expect(always.stdout).not.toContain('JUnit XML');
  expect(existsSync(path.join(project, 'reports'))).toBe(false);
  config("{ specs: 'e2e', trace: 'alwyas' }");
  const bad = await cliHere(['run']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("trace must be one of 'on-failure', 'always', 'never' (got \"alwyas\"): did you mean 'always'?");
});

test('mode comes from the config file (real mode without CANN: no runtime, exit 1)', async () => {
  config("{ specs: 'e2e', mode: 'real' }");
  const r = await cliHere(['run'], { ASCEND_HOME_PATH: '/nonexistent' });
  expect(r.code).toBe(1);
  expect(r.stdout).toContain('no usable ACL runtime (real mode)');
});

test('an unknown key is a usage error (exit 2) with "did you mean"', async () => {
  config("{ spec: 'e2e' }");
  const r = await cliHere(['run']);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('cann-harness.config.ts: unknown key "spec" (did you mean "specs"?)');
});

test('--list prints the selected scenarios with their device needs and roles, running nothing', async () => {
  config("{ specs: 'e2e' }");
  const r = await cliHere(['run', '--list', '-t', 'ping|9']);
  expect(r.code).toBe(0);
  expect(r.stdout.trim().split('\n')).toEqual([
    'e2e/quick.spec.ts › quick ping-pong  needs 1 device  roles ping@0, pong@0; deadline 30 s',
    'e2e/quick.spec.ts › needs 9 devices  needs 9 devices  roles a@8; deadline 30 s',
    '2 scenarios in 1 spec file',
  ]);
  expect(r.stdout).not.toContain('probing devices');
});

// One failing run serves three tests that each needed a run of their own (a whole session, ~3 s of
// CPU): the config's timeoutMs and devices; without --retries the flaky scenario fails; its JUnit
// XML shows a skip (16 devices: more than `devices` promises, so still a skip) and a load error.
test('timeoutMs is the default scenario deadline, devices turns a skip into a failure; --retries N: a scenario that fails once then passes is reported FLAKY, and the run passes; JUnit XML: a skip carries its reason as a message, a spec file that fails to load is an error', async () => {
  config("{ specs: 'e2e', timeoutMs: 1000, devices: 9, reporters: { junit: 'out/junit.xml' }, keep: 'never' }"); // the failed first attempts leave no directory
  writeFileSync(
    path.join(project, 'e2e', 'flaky.spec.ts'),
    `import { existsSync, writeFileSync } from 'node:fs';\nimport { scenario } from ${JSON.stringify(path.join(repoRoot, 'src'))};\n` +
      // Its own deadline, as quick ping-pong's: the config's 1000 ms is for 'sleeps 3 s'.
      "scenario('fails once', { timeoutMs: 30_000, roles: { r: { device: 0, run: () => {\n" +
      "  const marker = process.env.FLAKY_MARKER!;\n" +
      "  if (!existsSync(marker)) { writeFileSync(marker, 'x'); throw new Error('first attempt fails'); }\n" +
      '} } } });\n' +
      "scenario('needs 16 devices', { devices: 16, roles: { a: { device: 15, run: () => undefined } } });\n",
  );
  writeFileSync(path.join(project, 'e2e', 'broken.spec.ts'), "import { scenario } from 'no-such-module-anywhere';\nscenario('never', {} as never);\n");
  const env = { FLAKY_MARKER: path.join(project, 'marker'), ...EIGHT_DEVICES };
  const without = await cli(['run', '--mode', 'stub'], env);
  expect(without.code).toBe(1);
  // timeoutMs: 'sleeps 3 s' times out; devices: 9 makes 'needs 9 devices' fail instead of skipping.
  expect(without.stdout).toContain('✓ e2e/quick.spec.ts › quick ping-pong');
  expect(without.stdout).toMatch(/✗ e2e\/quick\.spec\.ts › sleeps 3 s/);
  expect(without.stdout).toContain('timed out');
  expect(without.stdout).toMatch(/✗ e2e\/quick\.spec\.ts › needs 9 devices/);
  // Not only the broken file: the flaky scenario failed too, with no second attempt.
  expect(without.stdout).toMatch(/✗ e2e\/flaky\.spec\.ts › fails once/);
  expect(without.stdout).not.toMatch(/✓ e2e\/flaky\.spec\.ts › fails once/);
  expect(without.stdout).not.toContain('FLAKY');
  const xml = readFileSync(path.join(project, 'out', 'junit.xml'), 'utf8');
  expect(xml).toMatch(/<testcase [^>]*name="needs 16 devices \[skip: needs 16 devices, 8 available\]"[^>]*>\s*<skipped message="needs 16 devices, 8 available"\/>/);
  expect(xml).toMatch(/<error[^>]*>[^<]*no-such-module-anywhere/);
  rmSync(env.FLAKY_MARKER);
  config("{ specs: 'e2e', reporters: { junit: 'out/junit.xml' }, keep: 'never' }");
  const r = await cli(['run', '--mode', 'stub', '--retries', '2', 'flaky'], env);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('FLAKY: 1 scenario passed only after a retry');
  expect(r.stdout).toContain('FLAKY e2e/flaky.spec.ts › fails once (passed on attempt 2)');
  const bad = await cliHere(['run', '--retries', 'many']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--retries "many" is invalid');
});

test('--shard i/n splits by scenario: every scenario runs in exactly one shard; --list --shard shows the same split', async () => {
  config("{ specs: 'e2e', reporters: { junit: false } }");
  const names = Array.from({ length: 8 }, (_, i) => `trivial ${i}`);
  writeFileSync(
    path.join(project, 'e2e', 'many.spec.ts'),
    `import { scenario } from ${JSON.stringify(path.join(repoRoot, 'src'))};\n` +
      names.map((n) => `scenario(${JSON.stringify(n)}, { roles: { r: { device: 0, run: () => undefined } } });\n`).join(''),
  );
  const ran: string[][] = [];
  for (const shard of ['1/2', '2/2']) {
    const r = await cli(['run', '--mode', 'stub', '--shard', shard, 'many']);
    expect(r.code).toBe(0);
    const passed = [...r.stdout.matchAll(/✓ e2e\/many\.spec\.ts › (trivial \d)/g)].map((m) => m[1]);
    ran.push(passed);
    const listed = await cliHere(['run', '--list', '--shard', shard, 'many']);
    expect([...listed.stdout.matchAll(/› (trivial \d)/g)].map((m) => m[1])).toEqual(passed);
  }
  expect(ran[0].length).toBeGreaterThan(0);
  expect(ran[1].length).toBeGreaterThan(0);
  expect([...ran[0], ...ran[1]].sort()).toEqual(names);
  const bad = await cliHere(['run', '--shard', '3/2']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--shard "3/2" is invalid');
});
