/**
 * Native scenarios through Jest, as a user runs them (a nested Jest run on
 * test/jest/fixtures/native): `build:` once per run and its failure with the compiler's output,
 * `precheck: { exec }` (0 runs, 2 skips with its last line, else fails with its output), a
 * missing program, and a native role next to a TypeScript role. Its own TMPDIR, removed after.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const jestBin = require.resolve('jest/bin/jest');
const fixtureConfig = path.join(__dirname, 'fixtures', 'jest.config.js');

interface AssertionResult {
  title: string;
  status: string;
  failureMessages: string[];
}

jest.setTimeout(120_000);

let out: string;
let results: AssertionResult[];
let junit: string;
let stderr = '';

beforeAll(async () => {
  out = mkdtempSync(path.join(os.tmpdir(), 'cann-native-jest-'));
  const tmp = path.join(out, 'tmp');
  mkdirSync(tmp);
  const jsonFile = path.join(out, 'result.json');
  const env: NodeJS.ProcessEnv = { ...process.env, FIXTURE_OUT: out, TMPDIR: tmp };
  for (const k of ['CANN_HARNESS_PROBE', 'CANN_HARNESS_REQUIRE_DEVICES', 'JEST_WORKER_ID']) delete env[k];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [jestBin, '--config', fixtureConfig, '--json', '--outputFile', jsonFile, '--ci', '--runInBand', 'fixtures/native/'], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', () => resolve());
  });
  if (!existsSync(jsonFile)) throw new Error(`nested jest wrote no JSON result; stderr:\n${stderr}`);
  const json = JSON.parse(readFileSync(jsonFile, 'utf8')) as { testResults: { assertionResults: AssertionResult[] }[] };
  results = json.testResults.flatMap((t) => t.assertionResults);
  junit = existsSync(path.join(out, 'junit.xml')) ? readFileSync(path.join(out, 'junit.xml'), 'utf8') : '';
});
afterAll(() => {
  if (out && !process.env.KEEP_OUT) rmSync(out, { recursive: true, force: true });
});

const byTitle = (title: string) => {
  const found = results.find((a) => a.title.startsWith(title));
  if (!found) throw new Error(`no test titled ${title}; got ${results.map((a) => a.title).join(' | ')}`);
  return found;
};

test('precheck exit 2: a Jest skip whose reason is its last output line (JUnit too)', () => {
  expect(byTitle('precheck says skip')).toMatchObject({ title: 'precheck says skip [skip: [SKIP] need 99 devices, 8 available]', status: 'pending' });
  expect(junit).toMatch(/<testcase [^>]*name="[^"]*precheck says skip \[skip: \[SKIP\] need 99 devices, 8 available\]"[^>]*>\s*<skipped\/>/);
});

test('precheck exit 5: a failure with its exit code and output', () => {
  const t = byTitle('precheck fails');
  expect(t.status).toBe('failed');
  expect(t.failureMessages.join('\n')).toContain('exited with code 5 (0 runs the scenario, 2 skips it); its output:\nprecheck is broken here');
});

test('precheck exit 0: the scenario runs; a native role and a TypeScript role pass together', () => {
  expect(byTitle('precheck says run, native and TypeScript roles together').status).toBe('passed');
});

test('a failed build fails its scenarios with the output of the build', () => {
  const t = byTitle('a build that fails');
  expect(t.status).toBe('failed');
  expect(t.failureMessages.join('\n')).toMatch(/build "make -s no-such-target" \(in .*fixtures\/native\) exited with code 2; its output:\n.*No rule to make target 'no-such-target'/);
});

test('the build runs once per run, not once per scenario', () => {
  expect(stderr.match(/\[cann-harness\] build: make -s OUT=/g)).toHaveLength(1);
});

test('a program that is not there: a clear error naming the path and the fix', () => {
  const t = byTitle('a program that is not there');
  expect(t.status).toBe('failed');
  expect(t.failureMessages.join('\n')).toContain('role a: program "./not-built-yet" does not exist: looked for');
  expect(t.failureMessages.join('\n')).toContain("build it first (e.g. build: 'make -C native' on the scenario) or fix the path");
});

test('nothing of the harness is left in the scratch TMPDIR (Jest keeps its own cache there)', () => {
  expect(readdirSync(path.join(out, 'tmp')).filter((n) => n.startsWith('cann-'))).toEqual([]);
});
