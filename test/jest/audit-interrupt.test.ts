/**
 * Ctrl-C during `cann-harness audit`: besides the run's processes, scenario directories and
 * /dev/shm objects (interrupt.test.ts), the audit's own private directory (its declaration log,
 * src/jest/audit-log.ts) goes too; it was left behind when the signal came in the middle of a pass.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { waitUntil } from '../support/leftovers';

const repoRoot = path.resolve(__dirname, '..', '..');
const bin = path.join(repoRoot, 'bin', 'cann-harness.js');
const SPECS = path.join(__dirname, 'fixtures', 'interrupt');

test('SIGINT to the group of `cann-harness audit` mid-pass: its private directory is removed too', async () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'cann-audit-interrupt-')); // the scenarios' directories
  const osTmp = mkdtempSync(path.join(os.tmpdir(), 'cann-audit-tmpdir-')); // the audit's TMPDIR
  const child = spawn(process.execPath, [bin, 'audit', 'holds-events', '--specs', SPECS, '--mutants', 'wait-noop'], {
    cwd: repoRoot,
    env: { ...process.env, FORCE_COLOR: '0', TMPDIR: osTmp, CANN_HARNESS_TMPDIR: tmp, CANN_HARNESS_PROBE: '', JEST_WORKER_ID: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, like a command started from a shell
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, sig) => resolve(sig)));
  const auditDirs = () => readdirSync(osTmp).filter((f) => f.startsWith('cann-harness-audit-'));
  try {
    // Mid-pass: the audit's directory exists and every role of the scenario holds its events.
    const holding = () => readdirSync(tmp, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.holding')).length >= 3;
    expect(await waitUntil(holding, 60_000, 100)).toBe(true);
    expect(auditDirs()).toHaveLength(1);
    process.kill(-child.pid!, 'SIGINT');
    expect(await exited).toBe('SIGINT');
    expect(output).toContain('[cann-harness] SIGINT: stopping device processes');
    expect(auditDirs()).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
    rmSync(tmp, { recursive: true, force: true });
    rmSync(osTmp, { recursive: true, force: true });
  }
}, 120_000);
