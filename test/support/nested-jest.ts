/**
 * Test helper: a whole Jest run on fixture specs (test/jest/fixtures, their own config) in a child
 * process, as a user runs them, with its own TMPDIR; returns its JSON and JUnit XML results.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const jestBin = require.resolve('jest/bin/jest');
const fixtureConfig = path.join(repoRoot, 'test', 'jest', 'fixtures', 'jest.config.js');

export interface AssertionResult {
  title: string;
  status: string;
  failureMessages: string[];
}
export interface JestJson {
  numPassedTests: number;
  numPendingTests: number;
  numFailedTests: number;
  numRuntimeErrorTestSuites: number;
  testResults: { name: string; message: string; assertionResults: AssertionResult[] }[];
}

export interface NestedRun {
  /** The run's scratch folder (FIXTURE_OUT): its JSON, JUnit XML and TMPDIR. */
  out: string;
  json: JestJson;
  junit: string;
  tmp: string;
  stderr: string;
  byTitle(title: string): AssertionResult;
}

/** Nested runs still going: a beforeAll that timed out leaves its run behind, which would write into a removed scratch folder. */
const live = new Set<ChildProcess>();

/**
 * For afterAll: stops every nested run still going (its whole process group) and waits for it to
 * exit, then removes the scratch folders, so that nothing recreates them afterwards.
 */
export async function removeFixtureRuns(scratch: string[]): Promise<void> {
  await Promise.all(
    [...live].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('close', () => resolve());
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            resolve(); // already gone
          }
        }),
    ),
  );
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Runs Jest on the fixture specs matching `pattern` in a child; its scratch folder is added to `scratch` (remove them afterwards). */
export function runFixtures(pattern: string, env: Record<string, string>, scratch: string[]): Promise<NestedRun> {
  const out = mkdtempSync(path.join(os.tmpdir(), 'cann-nested-jest-'));
  scratch.push(out);
  const tmp = path.join(out, 'tmp');
  mkdirSync(tmp);
  const jsonFile = path.join(out, 'result.json');
  // Kept scenario directories in the run's own scratch folder too (a run's start empties its results folder).
  const results = path.join(tmp, 'results');
  const childEnv: NodeJS.ProcessEnv = { ...process.env, FIXTURE_OUT: out, TMPDIR: tmp, CANN_HARNESS_RESULTS_DIR: results, ...env };
  for (const k of ['CANN_HARNESS_PROBE', 'CANN_HARNESS_REQUIRE_DEVICES', 'JEST_WORKER_ID']) if (!(k in env)) delete childEnv[k];
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [jestBin, '--config', fixtureConfig, '--json', '--outputFile', jsonFile, '--ci', '--runInBand', pattern],
      // Its own process group, so that removeFixtureRuns can stop it with everything it started.
      { cwd: repoRoot, env: childEnv, stdio: ['ignore', 'ignore', 'pipe'], detached: true },
    );
    live.add(child);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', () => {
      live.delete(child);
      if (!existsSync(jsonFile)) return reject(new Error(`nested jest wrote no JSON result; stderr:\n${stderr}`));
      const json = JSON.parse(readFileSync(jsonFile, 'utf8')) as JestJson;
      const junitFile = path.join(out, 'junit.xml');
      const all = json.testResults.flatMap((t) => t.assertionResults);
      resolve({
        out,
        json,
        junit: existsSync(junitFile) ? readFileSync(junitFile, 'utf8') : '',
        tmp,
        stderr,
        byTitle(title) {
          const found = all.find((a) => a.title.startsWith(title));
          if (!found) throw new Error(`no test titled ${title}; got ${all.map((a) => a.title).join(' | ')}`);
          return found;
        },
      });
    });
  });
}

