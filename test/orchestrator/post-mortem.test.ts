/**
 * The post-mortem of a kept scenario directory (writePostMortem: logs/, result.json, trace.json):
 * role code can write into the directory, so nothing planted there may redirect the writes
 * (a symlink at a name is replaced, never followed), and a name already taken does not silently
 * skip the rest: what could not be written is returned, and the failure report shows it.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  lstatSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LAYOUT } from '../../src/rendezvous';
import { RoleLogFile, openRoleLogs, writePostMortem } from '../../src/orchestrator/scenario-dir';
import { OutputCapture } from '../../src/orchestrator/output-capture';
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

describe('full logs streamed while the roles run (openRoleLogs)', () => {
  const logFile = (role: string, stream = 'stdout') => path.join(scenario, LAYOUT.logs, `${role}.${stream}.log`);
  /** Bytes that are not UTF-8 (0xff, a cut multi-byte character): the log keeps them as they came. */
  const chunks = Array.from({ length: 40 }, (_, i) =>
    Buffer.concat([Buffer.from([0xff, 0xe2, 0x82]), Buffer.alloc(1000 + i, 0x41 + (i % 26))]),
  );
  const whole = Buffer.concat(chunks);

  /** A role that printed `chunks` through a capture keeping only its last 4 KiB in memory. */
  function printed(logs: ReturnType<typeof openRoleLogs>): RoleResult {
    const capture = new OutputCapture(undefined, '', logs.get('producer', 'stdout'), 4096);
    for (const c of chunks) capture.push(c);
    expect(capture.droppedChars).toBeGreaterThan(0);
    const outputLoss = [{ stream: 'stdout' as const, notKeptChars: capture.droppedChars, unflushedBytes: 0 }];
    return { ...role('producer'), stdout: capture.text, outputLoss };
  }

  test('a stream longer than the capture keeps every byte in logs/, and the post-mortem leaves it in place', () => {
    const logs = openRoleLogs(scenario, ['producer']);
    const r = printed(logs);
    logs.close();
    expect(readFileSync(logFile('producer')).equals(whole)).toBe(true);
    expect(writePostMortem(scenario, [r], { ok: false }, undefined, logs)).toEqual([]);
    expect(readFileSync(logFile('producer')).equals(whole)).toBe(true);
    expect(readFileSync(logFile('producer', 'stderr'), 'utf8')).toBe('');
    // Without the streamed file (the old post-mortem), only the capture's last 4 KiB would be there.
    expect(writePostMortem(scenario, [r], { ok: false })).toEqual([]);
    expect(readFileSync(logFile('producer'), 'utf8')).toBe(r.stdout);
  });

  test('a link at logs/ before the run is not used: nothing is written through it, the post-mortem says so', () => {
    mkdirSync(path.join(outside, 'logs-victim'));
    plantLink(LAYOUT.logs, path.join(outside, 'logs-victim'));
    const logs = openRoleLogs(scenario, ['producer']);
    expect(logs.get('producer', 'stdout')).toBeUndefined();
    const r = printed(logs);
    logs.close();
    expect(readdirSync(path.join(outside, 'logs-victim'))).toEqual([]);
    const problems = writePostMortem(scenario, [r], { ok: false }, undefined, logs);
    expect(problems).toEqual(['logs/ (something else already had the name: a symbolic link)']);
    expect(readdirSync(path.join(outside, 'logs-victim'))).toEqual([]);
  });

  test('a link at a log file name is never written through: logs/ is not used for streaming, the post-mortem replaces the link', () => {
    const victim = path.join(outside, 'log-victim');
    writeFileSync(victim, 'precious\n');
    mkdirSync(path.join(scenario, LAYOUT.logs));
    plantLink(path.join(LAYOUT.logs, 'producer.stdout.log'), victim);
    const logs = openRoleLogs(scenario, ['producer']); // logs/ not made by this run: nothing streamed into it
    expect(logs.get('producer', 'stdout')).toBeUndefined();
    const r = printed(logs);
    logs.close();
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    const problems = writePostMortem(scenario, [r], { ok: false }, undefined, logs);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(logFile('producer')).isFile()).toBe(true);
    expect(readFileSync(logFile('producer'), 'utf8')).toBe(r.stdout);
    expect(problems).toEqual([
      'logs/producer.stdout.log in full (logs/ could not be made at the start: EEXIST; it has the last 8 MiB instead)',
    ]);
  });

  test('a streamed log that role code replaced by a link is rewritten from the capture, not followed', () => {
    const victim = path.join(outside, 'log-victim');
    writeFileSync(victim, 'precious\n');
    const logs = openRoleLogs(scenario, ['producer']);
    const r = printed(logs);
    rmSync(logFile('producer'));
    symlinkSync(victim, logFile('producer'));
    logs.close();
    const problems = writePostMortem(scenario, [r], { ok: false }, undefined, logs);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(logFile('producer')).isFile()).toBe(true);
    expect(readFileSync(logFile('producer'), 'utf8')).toBe(r.stdout);
    expect(problems).toEqual(['logs/producer.stdout.log in full (replaced or changed by someone else; it has the last 8 MiB instead)']);
  });

  (existsSync('/dev/full') ? test : test.skip)('a write that fails (a full disk: /dev/full) ends the file and says why', () => {
    const file = new RoleLogFile(openSync('/dev/full', 'w'));
    for (const c of chunks) file.write(c);
    for (let i = 0; i < 300; i++) file.write(Buffer.alloc(1024)); // past one 256 KiB block
    file.write('ignored from now on');
    file.close();
    expect(file.incompleteAt(logFile('producer'))).toBe('ENOSPC');
  });
});
