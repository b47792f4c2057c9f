/**
 * The wait-for graph names a worker thread's ACL call (issue #11): each worker thread of a role
 * writes its own slot of the call-record table, which the watcher thread reads at the deadline.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { collectScenarios, runScenario } from '../../src/scenario';
import { survivors, waitUntil } from '../support/leftovers';
import { threadAsleep, whenAsleep } from '../support/stuck';
import { testWithStub as withStub, STUB_LIBRARY as STUB } from '../support/with-stub';

const SPEC = path.join(__dirname, 'fixtures', 'thread-hang-scenario.ts');
/** Written by the spec's thread 1 right before it blocks (not imported: importing a spec registers its scenarios). */
const BLOCKING_FILE = 'thread-1-blocking';

withStub('a role blocked in worker thread 1: "pool thread 1 (aclrtSynchronizeStream ...)", a deadlock on its own latch', async () => {
  const plan = collectScenarios(SPEC).get('blocked in a worker thread')!;
  const dirs: string[] = [];
  // The deadline comes once thread 1 sleeps after its marker, i.e. in its synchronize: a fixed
  // deadline raced the start of the process and its worker threads (under load, thread 1 was
  // sometimes not there yet, and the graph said "pool is idle").
  const expire = new AbortController();
  let ended = false;
  const blocked = (dir: string, pid: number) => {
    const marker = path.join(dir, BLOCKING_FILE);
    whenAsleep(
      () => existsSync(marker) && threadAsleep(pid, Number(readFileSync(marker, 'utf8'))),
      () => ended,
      () => expire.abort(),
    );
  };
  const onEvent = (e: Parameters<NonNullable<Parameters<typeof runScenario>[1]['onEvent']>>[0]) => {
    if (e.type === 'started') {
      dirs.push(e.dir);
      blocked(e.dir, e.pid);
    }
  };
  const r = await runScenario(plan, { specFile: SPEC, mode: 'stub', expireOn: expire.signal, onEvent }).finally(() => (ended = true));
  try {
    expect(r.timedOut).toBe(true);
    const g = r.waitGraph!;
    expect(g.chains.map((c) => c.text)).toEqual([
      expect.stringMatching(
        /^deadlock: pool thread 1 \(aclrtSynchronizeStream stream=0x5a1[0-9a-f]+, for [\d.]+ m?s\) ← queued behind a latch \(host function on stream \d+\) held by pool ← \(back to pool\)$/,
      ),
    ]);
    expect(g.calls.pool.name).toBe('aclrtSynchronizeStream');
    expect(g.sources).toEqual({ pool: 'live' });
    const pids = r.roles.map((x) => x.pid);
    await waitUntil(() => survivors(pids).length === 0, 10_000);
    expect(survivors(pids)).toEqual([]);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}, 120_000);
