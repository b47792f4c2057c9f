/**
 * The results folder (src/orchestrator/results-dir.ts): kept scenario directories leave the temp
 * dir for it, a run's start empties it of what finished runs left (only what the harness made,
 * never through a link), and a folder that is not ours is refused with the fix.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runRoles, type RoleSpec } from '../../src/orchestrator';
import {
  RESULTS_MARKER,
  ResultsDirError,
  emptyResultsDir,
  ensureResultsDir,
  keptSummary,
  moveToResults,
  resultsDir,
} from '../../src/orchestrator/results-dir';
import { ENV } from '../../src/env';

let work: string;
beforeEach(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'results-dir-test-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** A pid no process has: a child that has exited and been reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

test('the folder: CANN_HARNESS_RESULTS_DIR relative to the working directory, else test-results/cann-harness', () => {
  expect(resultsDir({}, '/p')).toBe('/p/test-results/cann-harness');
  expect(resultsDir({ [ENV.resultsDir]: 'out/kept' }, '/p')).toBe('/p/out/kept');
  expect(resultsDir({ [ENV.resultsDir]: '/abs' }, '/p')).toBe('/abs');
});

test('made with its parents and its marker; a link, a file or a foreign non-empty folder is refused naming the fix', () => {
  const dir = path.join(work, 'a', 'b');
  expect(ensureResultsDir(dir)).toBe(dir);
  expect(readFileSync(path.join(dir, RESULTS_MARKER), 'utf8')).toMatch(/cann-ipc-harness/);
  expect(ensureResultsDir(dir)).toBe(dir); // again: ours

  const elsewhere = path.join(work, 'elsewhere');
  mkdirSync(elsewhere);
  symlinkSync(elsewhere, path.join(work, 'link'));
  expect(() => ensureResultsDir(path.join(work, 'link'))).toThrow(/is a symbolic link: set CANN_HARNESS_RESULTS_DIR/);
  writeFileSync(path.join(work, 'file'), '');
  expect(() => ensureResultsDir(path.join(work, 'file'))).toThrow(ResultsDirError);
  writeFileSync(path.join(elsewhere, 'theirs.txt'), 'not ours');
  expect(() => ensureResultsDir(elsewhere)).toThrow(/holds files the harness did not make/);
  expect(readdirSync(elsewhere)).toEqual(['theirs.txt']);
  const fake = path.join(work, 'fake');
  mkdirSync(fake);
  symlinkSync(path.join(elsewhere, 'theirs.txt'), path.join(fake, RESULTS_MARKER));
  expect(() => ensureResultsDir(fake)).toThrow(/is not a regular file/);
});

test("a run's start removes finished runs' scenario directories, and nothing else: not a live run's, not a link's target", () => {
  const dir = ensureResultsDir(path.join(work, 'results'));
  const dead = deadPid();
  const finished = path.join(dir, `cann-harness-${dead}-aaaa`);
  mkdirSync(path.join(finished, 'logs'), { recursive: true });
  const running = path.join(dir, `cann-harness-${process.pid}-bbbb`);
  mkdirSync(running);
  const outside = path.join(work, 'outside');
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'keep-me'), 'x');
  symlinkSync(outside, path.join(dir, `cann-harness-${dead}-link`)); // a link at a scenario name
  symlinkSync(outside, path.join(finished, 'inner-link')); // a link inside a finished directory
  writeFileSync(path.join(dir, 'notes.txt'), 'the user put this here');

  expect(emptyResultsDir(dir)).toBe(1);
  expect(existsSync(finished)).toBe(false);
  expect(existsSync(running)).toBe(true);
  expect(lstatSync(path.join(dir, `cann-harness-${dead}-link`)).isSymbolicLink()).toBe(true);
  expect(readFileSync(path.join(outside, 'keep-me'), 'utf8')).toBe('x');
  const left = [RESULTS_MARKER, `cann-harness-${dead}-link`, `cann-harness-${process.pid}-bbbb`, 'notes.txt'];
  expect(readdirSync(dir).sort()).toEqual(left.sort());
});

test('a kept directory moves across file systems too (a copy: links copied as links), leaving nothing behind', () => {
  // /dev/shm is a tmpfs: a rename to the results folder fails with EXDEV, and the move copies.
  const shm = mkdtempSync('/dev/shm/cannh-results-test-');
  try {
    const scenario = path.join(shm, `cann-harness-${process.pid}-cccc`);
    mkdirSync(path.join(scenario, 'logs'), { recursive: true });
    writeFileSync(path.join(scenario, 'logs', 'a.stdout.log'), 'out');
    symlinkSync('/etc/passwd', path.join(scenario, 'planted'));
    const env = { [ENV.resultsDir]: path.join(work, 'results') };
    const moved = moveToResults(scenario, env);
    expect(moved).toBe(path.join(work, 'results', path.basename(scenario)));
    expect(readFileSync(path.join(moved as string, 'logs', 'a.stdout.log'), 'utf8')).toBe('out');
    expect(lstatSync(path.join(moved as string, 'planted')).isSymbolicLink()).toBe(true);
    expect(existsSync(scenario)).toBe(false);
    // A folder that is not ours: the directory stays where it is, and the reason says why.
    const foreign = path.join(work, 'foreign');
    mkdirSync(foreign);
    writeFileSync(path.join(foreign, 'x'), '');
    const other = path.join(shm, `cann-harness-${process.pid}-dddd`);
    mkdirSync(other);
    const refused = moveToResults(other, { [ENV.resultsDir]: foreign });
    expect(refused).toEqual({ error: expect.stringMatching(/holds files the harness did not make/) });
    expect(existsSync(other)).toBe(true);
  } finally {
    rmSync(shm, { recursive: true, force: true });
  }
});

test('a failed run keeps its directory in the results folder, not in the temp dir, and its report says where', async () => {
  const results = path.join(work, 'results');
  const before = process.env[ENV.resultsDir];
  process.env[ENV.resultsDir] = results;
  try {
    const entry = { module: path.join(__dirname, 'fixtures', 'roles.ts'), export: 'throws' };
    const roles: RoleSpec[] = [{ name: 'r', device: 0, entry }];
    let tempDir = '';
    const result = await runRoles({ roles, timeoutMs: 60_000, onEvent: (e) => void (e.type === 'started' && (tempDir = e.dir)) });
    expect(result.ok).toBe(false);
    expect(result.kept).toBe(true);
    expect(result.dir).toBe(path.join(results, path.basename(tempDir)));
    expect(existsSync(tempDir)).toBe(false);
    expect(result.summary).toContain(result.dir);
    expect(result.summary).not.toContain(tempDir);
    const logs = ['stdout', 'stderr'].map((s) => readFileSync(path.join(result.dir, 'logs', `r.${s}.log`), 'utf8'));
    expect(logs.join('')).toContain('about to throw');
    expect(JSON.parse(readFileSync(path.join(result.dir, 'result.json'), 'utf8')).dir).toBe(result.dir);
    expect(keptSummary(results)).toMatch(/^1 scenario directory kept in .*results\/ \(/);
  } finally {
    if (before === undefined) delete process.env[ENV.resultsDir];
    else process.env[ENV.resultsDir] = before;
  }
}, 120_000);
