import { mkdtempSync, readFileSync, readdirSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Rendezvous, RendezvousNameError, RendezvousTimeoutError, type WaitingFor } from '../../src/rendezvous';
import { POLL_INTERVAL_MS, waitFor, watchedDirs } from '../../src/rendezvous/wait-for';
import { waitUntil } from '../support/leftovers';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'rv-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const settledWithin = async (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), ms))]);

describe('publish / await', () => {
  test('await returns what was published, also when it starts waiting first', async () => {
    const rv = new Rendezvous(dir, 'consumer');
    const pending = rv.await('ev0', { timeoutMs: 5000, from: 'producer' });
    await new Rendezvous(dir, 'producer').publish('ev0', Buffer.from([1, 2, 3]));
    expect([...(await pending)]).toEqual([1, 2, 3]);
    expect((await rv.await('ev0', { timeoutMs: 0 })).length).toBe(3);
  });

  test('republishing replaces the value and leaves no temporary files', async () => {
    const rv = new Rendezvous(dir, 'p');
    await rv.publish('msg', 'first');
    await rv.publish('msg', 'second');
    expect((await rv.await('msg', { timeoutMs: 100 })).toString()).toBe('second');
    expect(readdirSync(path.join(dir, 'handles'))).toEqual(['msg']);
  });

  test('temporary files are staged in .staging (one spare prepared in advance), never next to final names', async () => {
    const rv = new Rendezvous(dir, 'p');
    for (let i = 0; i < 5; i++) {
      await rv.publish(`m${i}`, `value ${i}`);
      await rv.signal(`s${i}`);
      await new Promise((r) => setTimeout(r, 5)); // lets the next spare be prepared
    }
    for (let i = 0; i < 5; i++) expect((await rv.await(`m${i}`, { timeoutMs: 0 })).toString()).toBe(`value ${i}`);
    expect(readdirSync(path.join(dir, 'handles')).sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    expect(readdirSync(path.join(dir, 'signals')).sort()).toEqual(['s0', 's1', 's2', 's3', 's4']);
    const staged = readdirSync(path.join(dir, '.staging'));
    expect(staged).toHaveLength(1); // the next publish's temporary file, ready in advance
    for (const f of staged) expect(f).toMatch(new RegExp(`^\\.spare\\.${process.pid}\\.[0-9a-f]+\\.tmp$`));
  });

  test('publishing into a removed scenario directory fails and does not re-create it', async () => {
    const rv = new Rendezvous(dir, 'p');
    await rv.publish('first', 'x');
    await new Promise((r) => setTimeout(r, 5)); // a spare exists now
    rmSync(dir, { recursive: true, force: true });
    await expect(rv.publish('second', 'y')).rejects.toThrow(/ENOENT/);
    await expect(rv.signal('go')).rejects.toThrow(/ENOENT/);
    await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(dir)).toBe(false);
  });

  test('timeout names what was awaited, the writer role and the file', async () => {
    const rv = new Rendezvous(dir, 'consumer');
    const err = await rv.await('ev9', { timeoutMs: 60, from: 'producer' }).catch((e) => e);
    expect(err).toBeInstanceOf(RendezvousTimeoutError);
    expect(err.what).toBe('handle "ev9"');
    expect(err.from).toBe('producer');
    expect(err.path).toBe(path.join(dir, 'handles', 'ev9'));
    expect(err.waitedMs).toBeGreaterThanOrEqual(50);
    expect(err.message).toMatch(/waiting for handle "ev9", to be written by role "producer" \(file .*handles\/ev9\)/);
  });

  test('the reporter hears what the role waits for, and null once it stops waiting', async () => {
    const seen: (WaitingFor | null)[] = [];
    const rv = new Rendezvous(dir, 'c', (w) => seen.push(w));
    const p = rv.awaitSignal('go', { timeoutMs: 5000, from: 'boss' });
    await new Rendezvous(dir).signal('go');
    await p;
    expect(seen).toEqual([{ what: 'signal "go"', from: 'boss' }, null]);
  });

  test('a file already there before the deadline expires is found (timeout 0)', async () => {
    const rv = new Rendezvous(dir);
    await rv.publish('x', '1');
    await expect(rv.await('x', { timeoutMs: 0 })).resolves.toEqual(Buffer.from('1'));
    await expect(rv.await('y', { timeoutMs: 0 })).rejects.toBeInstanceOf(RendezvousTimeoutError);
  });
});

describe('validation', () => {
  test.each(['../escape', 'a/b', '', '.hidden', '..', 'x'.repeat(201), 'sp ace'])('rejects name %j', async (bad) => {
    const rv = new Rendezvous(dir, 'r');
    await expect(rv.publish(bad, 'x')).rejects.toThrow(RendezvousNameError);
    await expect(rv.await(bad, { timeoutMs: 10 })).rejects.toThrow(/invalid handle name .*no '\/' or '\.\.'/);
    await expect(rv.signal(bad)).rejects.toThrow(RendezvousNameError);
    await expect(rv.barrier(bad, 2, { timeoutMs: 10 })).rejects.toThrow(RendezvousNameError);
    expect(existsSync(path.join(dir, '..', 'escape'))).toBe(false);
  });

  test('bad options get errors that say what to pass', async () => {
    const rv = new Rendezvous(dir);
    expect(() => new Rendezvous('relative/dir')).toThrow(/absolute path/);
    expect(() => new Rendezvous(path.join(dir, 'missing'))).toThrow(/missing does not exist/);
    await expect(rv.await('x', {} as never)).rejects.toThrow(/timeoutMs must be a number >= 0/);
    await expect(rv.barrier('b', 0, { timeoutMs: 10 })).rejects.toThrow(/parties must be an integer >= 1/);
    await expect(rv.publish('x', 42 as never)).rejects.toThrow(/Buffer or a string/);
    await expect(rv.markDone()).rejects.toThrow(/no self role/);
  });
});

describe('signals and done flags', () => {
  test('markDone / awaitDone, with the role itself named as the writer on timeout', async () => {
    const worker = new Rendezvous(dir, 'worker-1');
    const boss = new Rendezvous(dir, 'boss');
    const err = await boss.awaitDone('worker-1', { timeoutMs: 30 }).catch((e) => e);
    expect(err).toBeInstanceOf(RendezvousTimeoutError);
    expect(err.from).toBe('worker-1');
    const waiting = boss.awaitDone('worker-1', { timeoutMs: 5000 });
    await worker.markDone();
    await expect(waiting).resolves.toBeUndefined();
    expect(existsSync(path.join(dir, 'done', 'worker-1'))).toBe(true);
  });

  test('waits in one directory share one watcher, which outlives them for the next round', async () => {
    const boss = new Rendezvous(dir, 'boss');
    const workers = new Rendezvous(dir, 'workers');
    for (let round = 0; round < 3; round++) {
      const names = ['a', 'b', 'c'].map((n) => `${n}@r${round}`);
      const waits = names.map((n) => boss.awaitSignal(n, { timeoutMs: 5000 }));
      await new Promise((r) => setTimeout(r, 5));
      expect(watchedDirs().filter((d) => d.startsWith(dir))).toEqual([path.join(dir, 'signals')]);
      for (const n of names) await workers.signal(n);
      await Promise.all(waits);
    }
    // After its last wait the watcher lingers (for the next round), then goes.
    expect(watchedDirs()).toContain(path.join(dir, 'signals'));
  });
});

describe('wake-ups', () => {
  test("a wait for one file looks again only when that file changes (or on its polling tick), not at other files' changes", async () => {
    let checks = 0;
    const target = path.join(dir, 'target');
    const started = Date.now();
    const look = async () => {
      checks++;
      return existsSync(target) ? true : undefined;
    };
    const waiting = waitFor(dir, look, 10_000, 'target');
    for (let i = 0; i < 20; i++) {
      writeFileSync(path.join(dir, `other-${i}`), '');
      await new Promise((r) => setTimeout(r, 3)); // each change its own inotify event
    }
    const elapsed = Date.now() - started;
    // The first look, one per polling tick; 20 more if every change woke it.
    expect(checks).toBeLessThanOrEqual(2 + Math.ceil(elapsed / POLL_INTERVAL_MS));
    writeFileSync(target, '');
    await expect(waiting).resolves.toEqual({ ok: true, value: true });
  });
});

describe('barrier', () => {
  test.each(Array.from({ length: 16 }, (_, i) => i + 1))('N = %i: nobody passes before the last arrives', async (n) => {
    const parties = Array.from({ length: n }, (_, i) => new Rendezvous(dir, `p${i}`));
    const early = parties.slice(0, n - 1).map((p) => p.barrier('start', n, { timeoutMs: 10_000 }));
    if (n > 1) expect(await settledWithin(Promise.race(early), 60)).toBe(false);
    await parties[n - 1].barrier('start', n, { timeoutMs: 10_000 });
    await Promise.all(early);
    expect(readdirSync(path.join(dir, 'barriers', 'start')).sort()).toEqual(
      Array.from({ length: n }, (_, i) => String(i)).sort(),
    );
  });

  test('timeout reports how many arrived and who', async () => {
    const a = new Rendezvous(dir, 'alpha');
    const b = new Rendezvous(dir, 'beta');
    const pa = a.barrier('sync', 3, { timeoutMs: 80 }).catch((e) => e);
    // Beta arrives once alpha has: an arrival takes its ticket through asynchronous file calls, and
    // on a loaded machine 10 ms were not always enough (beta then took ticket 0, listed first).
    const alphaTicket = path.join(dir, 'barriers', 'sync', '0');
    expect(await waitUntil(() => existsSync(alphaTicket) && readFileSync(alphaTicket, 'utf8').includes('alpha'), 10_000, 2)).toBe(true);
    const err = await b.barrier('sync', 3, { timeoutMs: 80 }).catch((e) => e);
    expect(err).toBeInstanceOf(RendezvousTimeoutError);
    expect(err.message).toMatch(/barrier "sync" \(3 parties\)/);
    expect(err.message).toMatch(/2 of 3 parties arrived \(alpha pid \d+, beta pid \d+\)/);
    expect(await pa).toBeInstanceOf(RendezvousTimeoutError);
  });

  test('more arrivals than parties is an error, not a silent pass', async () => {
    const rv = new Rendezvous(dir, 'x');
    await rv.barrier('once', 1, { timeoutMs: 100 });
    await expect(rv.barrier('once', 1, { timeoutMs: 100 })).rejects.toThrow(/all 1 tickets are already taken.*single-use/);
  });
});
