/**
 * The C API for native roles (native-stub/harness/include/cannharness.h) against the TypeScript
 * rendezvous: a value or signal published by a C role is seen by a TypeScript role's awaits, and
 * the other way round, in both directions blocking until it is there; a C await times out at
 * CANN_HARNESS_DEADLINE_NS with its message; C marks come back through readNativeMarks on the
 * clock of TypeScript marks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Rendezvous, RendezvousTimeoutError } from '../../src/rendezvous';
import { readNativeMarks } from '../../src/orchestrator/native-marks';
import { formatSharedRecord, parseSharedRecord } from '../../src/wire/shared-record';
import { killNativeRole, requireBuilt, startNativeRole, type NativeRun } from './native-role-program';

let dir: string;
let runs: NativeRun[] = [];
beforeAll(requireBuilt);
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'c-api-interop-'));
  runs = [];
});
afterEach(async () => {
  await Promise.all(runs.map(killNativeRole));
  rmSync(dir, { recursive: true, force: true });
});

function start(steps: string[], env?: Record<string, string>): NativeRun {
  const run = startNativeRole(dir, steps, env);
  runs.push(run);
  return run;
}

async function expectExit(run: NativeRun, code: number): Promise<void> {
  const got = await run.exited;
  if (got !== code) throw new Error(`native_role exited ${got}, expected ${code}\nstdout: ${run.stdout()}\nstderr: ${run.stderr()}`);
}

test('a value published by TypeScript is awaited by C, and one published by C is awaited by TypeScript', async () => {
  const rv = new Rendezvous(dir, 'ts');
  const c = start(['await', 'from-ts', 'publish', 'from-c', 'handle-bytes']);
  await rv.publish('from-ts', 'hello C');
  const fromC = await rv.await('from-c', { timeoutMs: 10_000, from: 'native' });
  expect(fromC.toString()).toBe('handle-bytes');
  await expectExit(c, 0);
  expect(c.stdout()).toContain('value from-ts hello C');
});

test('signals cross both ways, and each side blocks until the other one sent', async () => {
  const rv = new Rendezvous(dir, 'ts');
  const c = start(['await-signal', 'go', 'signal', 'went']);
  // The C role sends "went" only after our "go": until then our await must time out.
  await expect(rv.awaitSignal('went', { timeoutMs: 150 })).rejects.toBeInstanceOf(RendezvousTimeoutError);
  expect(c.stdout()).not.toContain('signal go');
  await rv.signal('go');
  await rv.awaitSignal('went', { timeoutMs: 10_000 });
  await expectExit(c, 0);
  expect(c.stdout()).toContain('signal go');
});

test('a C await gives up at CANN_HARNESS_DEADLINE_NS with ETIMEDOUT and a message naming what it waited for', async () => {
  const deadline = process.hrtime.bigint() + 150_000_000n; // the same CLOCK_MONOTONIC as the C side
  const c = start(['await', 'never'], { CANN_HARNESS_DEADLINE_NS: deadline.toString() });
  await expectExit(c, 4); // -CANNHARNESS_ETIMEDOUT
  expect(process.hrtime.bigint()).toBeGreaterThanOrEqual(deadline);
  expect(c.stderr()).toMatch(/cannharness: cannharness_await\("never"\): timed out after \d+ ms waiting for value "never" \(file handles\/never in CANN_HARNESS_DIR\): the scenario deadline \(CANN_HARNESS_DEADLINE_NS\) passed \(CANNHARNESS_ETIMEDOUT\)/);
  expect(c.stdout()).toContain('native_role: await never: CANNHARNESS_ETIMEDOUT');
});

test('C marks are read back in order, on the clock of TypeScript marks', async () => {
  const before = process.hrtime.bigint();
  const c = start(['mark', 'release', 'mark', 'after wait']);
  await expectExit(c, 0);
  const after = process.hrtime.bigint();
  const marks = readNativeMarks(dir, 'native');
  expect(marks.map((m) => m.name)).toEqual(['release', 'after wait']);
  for (const m of marks) {
    expect(BigInt(m.tNs)).toBeGreaterThanOrEqual(before);
    expect(BigInt(m.tNs)).toBeLessThanOrEqual(after);
  }
  expect(readNativeMarks(dir, 'other-role')).toEqual([]);
});

// Issue 33 item 10: IPC memory and notify keys cross both ways in one record format
// (src/wire/shared-record.ts, documented for C in cannharness.h). Before, a TypeScript role could
// not openSharedMemory what a C role published (the C side had no format; TypeScript's was JSON).
test('a memory key shared by C is read by the TypeScript reader, and one shared by TypeScript by C', async () => {
  const rv = new Rendezvous(dir, 'ts');
  const c = start(['share-memory', 'from-c', 'KEY-c.1', '4096', 'share-notify', 'note-c', 'NKEY', 'await-memory', 'from-ts', 'await-notify', 'note-ts', 'publish-pid', '4242']);
  expect(parseSharedRecord(await rv.await('from-c', { timeoutMs: 10_000 }), 'memory')).toEqual({ kind: 'memory', key: 'KEY-c.1', bytes: 4096, from: 'native' });
  expect(parseSharedRecord(await rv.await('note-c', { timeoutMs: 10_000 }), 'notify')).toEqual({ kind: 'notify', key: 'NKEY', from: 'native' });
  await rv.publish('from-ts', formatSharedRecord({ kind: 'memory', key: 'ts key/with=chars', bytes: 65536, from: 'ts' }));
  await rv.publish('note-ts', formatSharedRecord({ kind: 'notify', key: 'tsnotify', from: 'ts' }));
  await expectExit(c, 0);
  expect(c.stdout()).toContain('memory from-ts ts key/with=chars 65536\n');
  expect(c.stdout()).toContain('notify note-ts tsnotify\n');
  expect((await rv.await('@pid.native', { timeoutMs: 1000 })).toString()).toBe('4242');
});

test('a C await of shared memory refuses what is not a shared memory record, naming the fix', async () => {
  const rv = new Rendezvous(dir, 'ts');
  await rv.publish('plain', 'just bytes');
  await rv.publish('a-notify', formatSharedRecord({ kind: 'notify', key: 'k', from: 'ts' }));
  const c = start(['await-memory', 'plain']);
  await expectExit(c, 1); // -CANNHARNESS_EINVAL
  expect(c.stderr()).toContain('cannharness: cannharness_await_memory("plain"): what was published is not a shared memory record: publish it with cannharness_share_memory, or ctx.shareMemory in TypeScript (CANNHARNESS_EINVAL)');
  const d = start(['await-memory', 'a-notify']);
  await expectExit(d, 1);
  expect(parseSharedRecord(Buffer.from('just bytes'), 'memory')).toBeNull();
});
