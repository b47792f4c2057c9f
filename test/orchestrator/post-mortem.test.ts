/**
 * The post-mortem of a kept scenario directory (writePostMortem: logs/, result.json, trace.json):
 * role code can write into the directory, so nothing planted there may redirect the writes
 * (a symlink at a name is replaced, never followed), and a name already taken does not silently
 * skip the rest: what could not be written is returned, and the failure report shows it.
 */
import { mkdirSync, mkdtempSync, lstatSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LAYOUT } from '../../src/rendezvous';
import { writePostMortem } from '../../src/orchestrator/scenario-dir';
import type { RoleResult } from '../../src/orchestrator';
import { formatScenarioFailure } from '../../src/report/failure';

let scenario: string;
let outside: string;
beforeEach(() => {
  scenario = mkdtempSync(path.join(os.tmpdir(), 'post-mortem-test-'));
  outside = mkdtempSync(path.join(os.tmpdir(), 'post-mortem-outside-'));
  // One stub trace file (pid 4242, no lines): enough for trace.json to be written.
  mkdirSync(path.join(scenario, LAYOUT.trace));
  writeFileSync(path.join(scenario, LAYOUT.trace, 'trace-4242.jsonl'), '');
});
afterEach(() => {
  rmSync(scenario, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const role = (name: string): RoleResult => ({
  name,
  device: 0,
  index: 0,
  pid: 4242,
  status: 'failed',
  exitCode: 1,
  signal: null,
  durationMs: 1,
  stdout: `${name} said this\n`,
  stderr: '',
  marks: [],
});

function plantLink(name: string, target: string): void {
  symlinkSync(target, path.join(scenario, name));
}

test('symlinks planted at result.json and trace.json are replaced, never followed', () => {
  const victims = ['result-victim', 'trace-victim'].map((n) => path.join(outside, n));
  for (const v of victims) writeFileSync(v, 'precious\n');
  plantLink('result.json', victims[0]);
  plantLink('trace.json', victims[1]);

  const problems = writePostMortem(scenario, [role('producer')], { ok: false });

  for (const v of victims) expect(readFileSync(v, 'utf8')).toBe('precious\n');
  expect(lstatSync(path.join(scenario, 'result.json')).isFile()).toBe(true);
  expect(JSON.parse(readFileSync(path.join(scenario, 'result.json'), 'utf8'))).toEqual({ ok: false });
  expect(lstatSync(path.join(scenario, 'trace.json')).isFile()).toBe(true);
  expect(readFileSync(path.join(scenario, LAYOUT.logs, 'producer.stdout.log'), 'utf8')).toBe('producer said this\n');
  expect(problems).toEqual([]);
});

test('a symlink planted at logs/ is not written through; the rest is written and the gap reported', () => {
  mkdirSync(path.join(outside, 'logs-victim'));
  plantLink(LAYOUT.logs, path.join(outside, 'logs-victim'));
  const problems = writePostMortem(scenario, [role('producer')], { ok: false });
  expect(() => readFileSync(path.join(outside, 'logs-victim', 'producer.stdout.log'))).toThrow(/ENOENT/);
  expect(JSON.parse(readFileSync(path.join(scenario, 'result.json'), 'utf8'))).toEqual({ ok: false });
  expect(problems).toEqual(['logs/ (something else already had the name: a symbolic link)']);
});

test('a logs/ directory that already exists is written into, not a reason to skip the post-mortem', () => {
  mkdirSync(path.join(scenario, LAYOUT.logs));
  plantLink(path.join(LAYOUT.logs, 'producer.stdout.log'), path.join(outside, 'log-victim'));
  const problems = writePostMortem(scenario, [role('producer')], { ok: false });
  expect(readFileSync(path.join(scenario, LAYOUT.logs, 'producer.stdout.log'), 'utf8')).toBe('producer said this\n');
  expect(problems).toEqual([]);
  expect(() => readFileSync(path.join(outside, 'log-victim'))).toThrow(/ENOENT/);
  expect(JSON.parse(readFileSync(path.join(scenario, 'result.json'), 'utf8'))).toEqual({ ok: false });
});

test('a scenario directory removed meanwhile stays removed', () => {
  rmSync(scenario, { recursive: true, force: true });
  expect(writePostMortem(scenario, [role('producer')], { ok: false })).toEqual(['the scenario directory was removed meanwhile']);
  expect(() => lstatSync(scenario)).toThrow(/ENOENT/);
});

test('the failure report names what the post-mortem could not write', () => {
  plantLink(LAYOUT.logs, outside);
  const run = { ok: false, dir: scenario, kept: true, timedOut: false, durationMs: 5, roles: [role('producer')] };
  const problems = writePostMortem(scenario, run.roles, run);
  const report = formatScenarioFailure('planted', { ...run, postMortemProblems: problems });
  expect(report).toContain(`kept directory: ${scenario} (`);
  expect(report).toContain('; not written: logs/ (something else already had the name: a symbolic link)');
});
