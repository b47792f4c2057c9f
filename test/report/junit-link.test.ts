/**
 * `--junit FILE` (and the interval files beside it) never writes through a link planted at FILE's name (say /tmp/junit.xml in a shared
 * temp dir): the file is renamed into place from one created exclusively, the link replaced.
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ENV } from '../../src/env';
import {
  INTERVALS_FILE,
  INTERVAL_SAMPLES_FILE,
  logIntervalSamples,
  summarizeIntervals,
  writeIntervalsReport,
} from '../../src/report/intervals';
import { runCommand } from '../support/run-child';

const repoRoot = path.resolve(__dirname, '..', '..');

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'cann-junit-link-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test('a link at the JUnit file is replaced by the report, its target untouched, no draft left', async () => {
  const victim = path.join(tmp, 'victim.txt');
  writeFileSync(victim, 'precious');
  const shared = path.join(tmp, 'shared');
  mkdirSync(shared);
  symlinkSync(victim, path.join(shared, 'junit.xml'));
  const r = await runCommand(
    process.execPath,
    [
      path.join(repoRoot, 'bin', 'cann-harness.js'), 'run', '--mode', 'stub',
      '--specs', path.join(repoRoot, 'test', 'jest', 'fixtures', 'cli'), '-t', 'quick', '--junit', path.join(shared, 'junit.xml'),
    ],
    {
      cwd: repoRoot,
      env: {},
    },
  );
  expect(r.code).toBe(0);
  expect(readFileSync(victim, 'utf8')).toBe('precious');
  expect(lstatSync(path.join(shared, 'junit.xml')).isFile()).toBe(true);
  expect(readFileSync(path.join(shared, 'junit.xml'), 'utf8')).toContain('<testsuites');
  expect(readdirSync(shared)).toEqual(['junit.xml']);
}, 90_000);

test('the interval files (beside the JUnit file) are never written through a link either', () => {
  const victim = path.join(tmp, 'victim2.txt');
  writeFileSync(victim, 'precious');
  const dir = path.join(tmp, 'reports');
  mkdirSync(dir);
  // The runner removes both names at its start; a stranger who plants them again meanwhile gets nothing written through.
  symlinkSync(victim, path.join(dir, INTERVAL_SAMPLES_FILE));
  symlinkSync(victim, path.join(dir, INTERVALS_FILE));
  const sample = { file: 'a.spec.ts', scenario: 's', from: 'a', to: 'b', role: 'r', ms: 1 };
  logIntervalSamples([sample], { [ENV.intervalsLog]: path.join(dir, INTERVAL_SAMPLES_FILE) });
  writeIntervalsReport(path.join(dir, INTERVALS_FILE), summarizeIntervals([sample]));
  expect(readFileSync(victim, 'utf8')).toBe('precious');
  expect(lstatSync(path.join(dir, INTERVALS_FILE)).isFile()).toBe(true);
});
