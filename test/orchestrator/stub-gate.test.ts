/**
 * The gate between test files that run at once (test/support/stub-gate.ts): an exclusive holder
 * waits for the shared holders that came before it, and shared holders wait while it holds it.
 * Other holders are played by live child processes (the gate knows holders by pid).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { STUB_GATE_ENV, enterExclusive, enterShared, leaveExclusive, leaveShared } from '../support/stub-gate';

let dir: string;
let saved: string | undefined;
const children: ChildProcess[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'stub-gate-test-'));
  saved = process.env[STUB_GATE_ENV];
  process.env[STUB_GATE_ENV] = dir;
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  process.env[STUB_GATE_ENV] = saved;
  rmSync(dir, { recursive: true, force: true });
});

/** A live process standing for another test file's worker. */
function otherWorker(): ChildProcess {
  const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(c);
  return c;
}

/** Whether `p` settles within a few event-loop turns (it must not when it waits for another holder). */
async function settlesSoon(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 150)); // three polls of the gate
  return done;
}

test('exclusive waits for an earlier shared holder to leave; a dead holder does not count', async () => {
  const reader = otherWorker();
  writeFileSync(path.join(dir, `reader-${reader.pid}`), '');
  writeFileSync(path.join(dir, 'reader-999999999'), ''); // no such process
  const exclusive = enterExclusive();
  expect(await settlesSoon(exclusive)).toBe(false);
  rmSync(path.join(dir, `reader-${reader.pid}`)); // that file's afterAll
  await exclusive;
  leaveExclusive();
  expect(existsSync(path.join(dir, 'writer'))).toBe(false);
});

test('shared waits while another process holds the gate exclusively, and enters once it leaves', async () => {
  const writer = otherWorker();
  writeFileSync(path.join(dir, 'writer'), String(writer.pid));
  const shared = enterShared();
  expect(await settlesSoon(shared)).toBe(false);
  expect(existsSync(path.join(dir, `reader-${process.pid}`))).toBe(false); // it backed off
  rmSync(path.join(dir, 'writer'));
  await shared;
  expect(existsSync(path.join(dir, `reader-${process.pid}`))).toBe(true);
  leaveShared();
  expect(existsSync(path.join(dir, `reader-${process.pid}`))).toBe(false);
});

test('the writer file of a dead process is taken over', async () => {
  writeFileSync(path.join(dir, 'writer'), '999999999');
  await enterExclusive();
  leaveExclusive();
});
