/**
 * `--junit FILE` never writes through a link planted at FILE's name (say /tmp/junit.xml in a shared
 * temp dir): the file is renamed into place from one created exclusively, the link replaced.
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
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
  const r = await runCommand(process.execPath, [path.join(repoRoot, 'bin', 'cann-harness.js'), 'run', '--mode', 'stub', '--specs', path.join(repoRoot, 'test', 'jest', 'fixtures', 'cli'), '-t', 'quick', '--junit', path.join(shared, 'junit.xml')], {
    cwd: repoRoot,
    env: {},
  });
  expect(r.code).toBe(0);
  expect(readFileSync(victim, 'utf8')).toBe('precious');
  expect(lstatSync(path.join(shared, 'junit.xml')).isFile()).toBe(true);
  expect(readFileSync(path.join(shared, 'junit.xml'), 'utf8')).toContain('<testsuites');
  expect(readdirSync(shared)).toEqual(['junit.xml']);
}, 90_000);
