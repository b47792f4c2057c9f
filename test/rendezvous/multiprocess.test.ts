/** Rendezvous across real processes: concurrent writers and readers, and barriers. */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTsChild, type ChildRun } from '../support/run-child';
import { Rendezvous } from '../../src/rendezvous';

const fixtures = path.join(__dirname, 'fixtures');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'rv-mp-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function expectClean(run: ChildRun) {
  if (run.code !== 0) throw new Error(`child failed (${run.code ?? run.signal}): ${run.stderr}`);
  return run.json as Record<string, unknown>;
}

test('8 writers republishing 1 MiB payloads, 3 readers: never a torn read', async () => {
  const WRITERS = 8;
  const COUNT = 6;
  const rv = new Rendezvous(dir, 'test');
  const writers = Array.from({ length: WRITERS }, (_, i) =>
    runTsChild(path.join(fixtures, 'blob-worker.ts'), ['writer', dir, String(i), String(COUNT), String(1 << 20)], { timeoutMs: 50_000 }),
  );
  const readers = Array.from({ length: 2 }, (_, i) =>
    runTsChild(path.join(fixtures, 'blob-worker.ts'), ['reader', dir, String(i)], { timeoutMs: 50_000 }),
  );
  // This process reads too, while the writers run.
  let localReads = 0;
  const writersDone = Promise.all(writers);
  let done = false;
  void writersDone.then(() => (done = true));
  while (!done) {
    const data = await rv.await('blob', { timeoutMs: 30_000 });
    expect(createHash('sha256').update(data.subarray(32)).digest().equals(data.subarray(0, 32))).toBe(true);
    expect(data.length).toBe(32 + (1 << 20));
    localReads++;
  }
  for (const w of await writersDone) expect(expectClean(w)).toMatchObject({ written: COUNT });
  await rv.signal('stop');
  for (const r of await Promise.all(readers)) {
    const out = expectClean(r);
    expect(out.torn).toBe(0);
    expect(out.reads).toBeGreaterThan(0);
  }
  expect(localReads).toBeGreaterThan(0);
}, 60_000);

test.each([2, 6])('barrier across %i processes: nobody passes before the last arrival', async (n) => {
  // Staggered arrivals; the latest party arrives well after the others.
  const runs = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      runTsChild(path.join(fixtures, 'barrier-party.ts'), [dir, 'start', String(n), String(i), String(i === n - 1 ? 300 : i * 20)], {
        timeoutMs: 40_000,
      }),
    ),
  );
  const outs = runs.map((r) => expectClean(r) as { arrivedNs: string; passedNs: string });
  const lastArrival = outs.map((o) => BigInt(o.arrivedNs)).reduce((a, b) => (a > b ? a : b));
  for (const o of outs) expect(BigInt(o.passedNs) >= lastArrival).toBe(true);
}, 60_000);
