import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { waitReporter } from '../../harness/role-context';
import { Rendezvous } from '../../src/rendezvous';
import type { FromChild } from '../../src/wire/protocol';

const what = (m: FromChild) => (m.type === 'waiting' ? (m.waitingFor?.what ?? null) : m.type);

test('the reports of a synchronous stretch go as one (the last), in a microtask; an unchanged state is not sent again', async () => {
  const sent: FromChild[] = [];
  const report = waitReporter((m) => sent.push(m));
  const [a, b] = [{ what: 'signal "a"' }, { what: 'signal "b"' }];
  report(a);
  report(b);
  expect(sent).toEqual([]); // not yet: in a microtask
  await Promise.resolve();
  expect(sent.map(what)).toEqual(['signal "b"']);
  report(b); // the same wait again (another wait ended, this one is still the newest)
  await Promise.resolve();
  expect(sent).toHaveLength(1);
  report(a);
  report(null);
  await Promise.resolve();
  expect(sent).toHaveLength(2);
  expect(what(sent[1])).toBeNull();
});

test('through a Rendezvous: awaitSignals of three names sends one report; the parent knows before the awaiting code goes on', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wait-reporter-'));
  try {
    const sent: FromChild[] = [];
    const rv = new Rendezvous(dir, 'producer', waitReporter((m) => sent.push(m)));
    const other = new Rendezvous(dir, 'consumer');
    const names = ['x', 'y', 'z'];
    const all = Promise.all(names.map((n) => rv.awaitSignal(n, { timeoutMs: 5000 })));
    await new Promise((r) => setTimeout(r, 20));
    expect(sent.map(what)).toEqual(['signal "z"']);
    for (const n of names) await other.signal(n);
    await all;
    expect(sent.map(what).at(-1)).toBeNull(); // sent before this line ran
    expect(sent.length).toBeLessThanOrEqual(4); // was 6: three starts, three ends
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('deferred (rounds): a wait that ends within the delay sends nothing; one that lasts is sent once, with its start time', async () => {
  const sent: FromChild[] = [];
  const report = waitReporter((m) => sent.push(m));
  report.deferTo(40);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  report({ what: 'handle "ev@r1"' });
  await Promise.resolve();
  report(null); // ended within the delay: the parent already knows "not waiting"
  await sleep(80); // a later timer than the delay's: it fires after it, however loaded the machine
  expect(sent).toEqual([]);
  report({ what: 'signal "a"' });
  const started = process.hrtime.bigint();
  await sleep(80);
  expect(sent.map(what)).toEqual(['signal "a"']);
  const tNs = BigInt((sent[0] as { tNs: string }).tNs);
  expect(tNs <= started).toBe(true); // the wait's own start, not when the report went out
  report(null);
  report.flush(); // a stop, a hang request or the end: what is pending goes now
  expect(sent.map(what)).toEqual(['signal "a"', null]);
  report.flush(); // nothing pending: nothing sent
  await sleep(60);
  expect(sent).toHaveLength(2);
});
