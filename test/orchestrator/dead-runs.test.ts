/**
 * At a run's start, what a dead run left is removed (src/orchestrator/dead-runs.ts): directories
 * named after a process that is gone, and nothing else: not a live run's, not a kept one, not a link
 * or a file, not another naming.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { removeDeadRunLeftovers } from '../../src/orchestrator/dead-runs';
import { makeOwnedTempDir, processStartTime } from '../../src/orchestrator/owned-temp';

let base: string;
let outside: string;
beforeEach(() => {
  base = mkdtempSync(path.join(os.tmpdir(), 'dead-runs-test-'));
  outside = mkdtempSync(path.join(os.tmpdir(), 'dead-runs-outside-'));
});
afterEach(() => {
  rmSync(base, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** The pid of a process that has exited and been reaped. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

test("a dead run's scenario and progress directories are removed, and it says so; nothing else is", () => {
  const dead = deadPid();
  const make = (name: string): string => {
    mkdirSync(path.join(base, name));
    writeFileSync(path.join(base, name, 'x'), '');
    return name;
  };
  const scenarioDir = make(`cann-harness-${dead}-AbC123`);
  const progressDir = make(`cann-harness-${dead}-progress-Xy9`);
  const live = make(`cann-harness-${process.pid}-live`);
  const parent = make(`cann-harness-${process.ppid}-parent`); // another live process
  const kept = make(`cann-harness-${dead}-kept`);
  writeFileSync(path.join(base, kept, 'result.json'), '{}');
  const audit = make('cann-harness-audit-Qw3'); // no pid in the name: not judged
  const other = make(`someone-${dead}-else`);
  symlinkSync(outside, path.join(base, `cann-harness-${dead}-link`));
  writeFileSync(path.join(outside, 'precious'), '');
  writeFileSync(path.join(base, `cann-harness-${dead}-file`), '');

  const said: string[] = [];
  const removed = removeDeadRunLeftovers((l) => said.push(l), { ...process.env, CANN_HARNESS_TMPDIR: base });

  expect(removed.dirs.sort()).toEqual([path.join(base, progressDir), path.join(base, scenarioDir)].sort());
  expect(readdirSync(base).sort()).toEqual([audit, `cann-harness-${dead}-file`, `cann-harness-${dead}-link`, kept, live, parent, other].sort());
  expect(existsSync(path.join(outside, 'precious'))).toBe(true);
  expect(said).toHaveLength(1);
  expect(said[0]).toMatch(/^removed what a dead run left: 2 directories \(/);
  expect(said[0]).toContain(path.join(base, scenarioDir));

  const again: string[] = [];
  removeDeadRunLeftovers((l) => again.push(l), { ...process.env, CANN_HARNESS_TMPDIR: base });
  expect(again.filter((l) => l.includes(base))).toEqual([]); // nothing of ours left to say
});

test("a SIGKILLed run's private directories (notes, HTML data, audit log) are removed by the next start; a live owner's, a reused pid's owner's check, links and other names are respected", () => {
  const dead = deadPid();
  const myStart = processStartTime(process.pid)!;
  const make = (name: string): string => {
    mkdirSync(path.join(base, name));
    writeFileSync(path.join(base, name, 'x'), '');
    return name;
  };
  const gone = [
    make(`cann-harness-notes-${dead}-12345-aB1`),
    make(`cann-html-${dead}-12345-aB2`),
    make(`cann-harness-audit-${dead}-12345-aB3`),
    make(`cann-html-${process.pid}-${Number(myStart) + 1}-reused`), // our pid, another start time: a dead owner's
  ];
  const mine = make(`cann-harness-notes-${process.pid}-${myStart}-live`);
  const mineByApi = makeOwnedTempDir('audit', base);
  symlinkSync(outside, path.join(base, `cann-html-${dead}-12345-link`));
  writeFileSync(path.join(outside, 'precious'), '');
  const said: string[] = [];
  removeDeadRunLeftovers((l) => said.push(l), { ...process.env, CANN_HARNESS_TMPDIR: base }, base);
  expect(readdirSync(base).sort()).toEqual([mine, path.basename(mineByApi), `cann-html-${dead}-12345-link`].sort());
  expect(readdirSync(outside)).toEqual(['precious']);
  for (const g of gone) expect(said.join('\n')).toContain(g);
});
