/**
 * The C API for native roles (native-stub/include/cannharness.h) against the TypeScript
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
