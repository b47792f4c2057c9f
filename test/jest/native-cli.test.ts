/**
 * Native roles under the CLI's soak and audit modes (specs/native-roles.spec.ts: C producer and
 * consumers built by `build:`): `run --repeat-each --jitter --trace` runs every repetition with the
 * stub's jitter and keeps the traces, and `audit` kills both scenarios with wait-noop (their
 * consumers prove the wait blocks, and the stub traces of the C programs feed the happens-before check).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCommand } from '../support/run-child';

const repoRoot = path.resolve(__dirname, '..', '..');
const bin = path.join(repoRoot, 'bin', 'cann-harness.js');

test('run --repeat-each 2 --jitter --trace: every repetition of the native scenarios passes under jitter, traces kept', async () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'cann-native-cli-'));
  try {
    const r = await runCommand(process.execPath, [bin, 'run', 'native-roles', '--repeat-each', '2', '--jitter', '--trace', '--junit', path.join(tmp, 'junit.xml')], {
      cwd: repoRoot,
      env: { CANN_HARNESS_TMPDIR: tmp, CANN_HARNESS_RESULTS_DIR: path.join(tmp, 'results') },
    });
    expect(r.stdout).toContain('4 passed');
    expect(r.stdout).toMatch(/native producer, TypeScript consumer \[repeat 2\/2, jitter seed \d+\]/);
    expect(r.code).toBe(0);
    const kept = readdirSync(path.join(tmp, 'results')).filter((n) => n.startsWith('cann-harness-'));
    expect(kept).toHaveLength(4); // --trace keeps every run's directory, with trace.json, in the results folder
    expect(readdirSync(tmp).filter((n) => n.startsWith('cann-harness-'))).toEqual([]); // and none in the temp dir
    for (const d of kept) expect(readdirSync(path.join(tmp, 'results', d))).toEqual(expect.arrayContaining(['trace.json', 'logs', 'result.json']));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}, 180_000);

test('audit: both native scenarios are killed by wait-noop', async () => {
  const r = await runCommand(process.execPath, [bin, 'audit', 'native-roles', '--mutants', 'wait-noop', '--json'], { cwd: repoRoot, env: {} });
  const report = JSON.parse(r.stdout);
  const rows = Object.fromEntries(report.scenarios.map((s: { scenario: string }) => [s.scenario, s]));
  for (const name of ['native producer, 2 native consumers on other devices', 'native producer, TypeScript consumer']) {
    expect(rows[name]).toMatchObject({ baseline: 'passed', mutants: { 'wait-noop': { verdict: 'killed' } }, testsItsWaits: true, problems: [] });
  }
  expect(r.code).toBe(0);
}, 180_000);
