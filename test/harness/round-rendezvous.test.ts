/**
 * Soak rounds reuse a round's files in the next round (harness/scenario/body/round-rendezvous.ts):
 * no file is created or removed in steady rounds, and none is left at the end.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, watch } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Rendezvous, RendezvousNameError } from '../../src/rendezvous';
import { roundRendezvous } from '../../harness/scenario/body/round-rendezvous';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'round-rv-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ino = (...p: string[]) => statSync(path.join(dir, ...p)).ino;
const names = () => [...readdirSync(path.join(dir, 'handles')), ...readdirSync(path.join(dir, 'signals'))].sort();

test("round 2's value and signal are round 1's files, renamed (the value rewritten, shorter); nothing is left at the end", async () => {
  const rdv = roundRendezvous(new Rendezvous(dir, 'producer'));
  rdv.setRound(1);
  await rdv.rendezvous.publish('ev', 'a longer first value');
  await rdv.rendezvous.signal('ready');
  const [value1, signal1] = [ino('handles', 'ev@r1'), ino('signals', 'ready@r1')];
  rdv.removeRoundNames(); // round 1 ended: its files wait for round 2
  expect(names()).toEqual(['ev@r1', 'ready@r1']);

  rdv.setRound(2);
  await rdv.rendezvous.publish('ev', 'second');
  await rdv.rendezvous.signal('ready');
  expect(names()).toEqual(['ev@r2', 'ready@r2']);
  expect(ino('handles', 'ev@r2')).toBe(value1);
  expect(ino('signals', 'ready@r2')).toBe(signal1);
  expect(readFileSync(path.join(dir, 'handles', 'ev@r2'), 'utf8')).toBe('second');
  expect(await new Rendezvous(dir, 'consumer').await('ev@r2', { timeoutMs: 0 })).toEqual(Buffer.from('second'));
  rdv.removeRoundNames();

  rdv.setRound(3); // writes nothing: round 2's files are removed at its end
  rdv.removeRoundNames();
  expect(names()).toEqual([]);

  rdv.setRound(4);
  await rdv.rendezvous.publish('ev', Buffer.from([1, 2, 3]));
  await rdv.rendezvous.signal('ready');
  rdv.removeRoundNames(true); // the run's end
  expect(names()).toEqual([]);
  expect(readdirSync(path.join(dir, '.staging')).filter((n) => n.startsWith('.reuse.'))).toEqual([]);
});

test('watchers of handles/ see a reused value only renamed into place, never written (one wake-up, not two)', async () => {
  const rdv = roundRendezvous(new Rendezvous(dir, 'producer'));
  rdv.setRound(1);
  await rdv.rendezvous.publish('ev', 'first');
  rdv.removeRoundNames();
  const seen: string[] = [];
  const watcher = watch(path.join(dir, 'handles'), (event, name) => seen.push(`${event} ${name}`));
  try {
    rdv.setRound(2);
    await rdv.rendezvous.publish('ev', 'second');
    await new Promise((r) => setTimeout(r, 100));
  } finally {
    watcher.close();
  }
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.filter((e) => !e.startsWith('rename '))).toEqual([]);
  expect(readFileSync(path.join(dir, 'handles', 'ev@r2'), 'utf8')).toBe('second');
});

test('a bad name is refused before any file is touched, also when a file could be reused', async () => {
  const rdv = roundRendezvous(new Rendezvous(dir, 'producer'));
  rdv.setRound(1);
  await rdv.rendezvous.publish('ev', 'x');
  await rdv.rendezvous.signal('s');
  rdv.removeRoundNames();
  rdv.setRound(2);
  await expect(rdv.rendezvous.publish('../escape', 'x')).rejects.toThrow(RendezvousNameError);
  await expect(rdv.rendezvous.signal('a/b')).rejects.toThrow(RendezvousNameError);
  await expect(rdv.rendezvous.publish('ok', 42 as unknown as string)).rejects.toThrow(/must be a Buffer or a string/);
  expect(names()).toEqual(['ev@r1', 's@r1']);
  expect(readdirSync(dir).sort()).toEqual(['.staging', 'barriers', 'done', 'handles', 'signals']);
});

test('a refused value does not use up the file it could have reused (it is still removed at the end)', async () => {
  const rdv = roundRendezvous(new Rendezvous(dir, 'producer'));
  rdv.setRound(1);
  await rdv.rendezvous.publish('ev', 'x');
  rdv.removeRoundNames();
  rdv.setRound(2);
  await expect(rdv.rendezvous.publish('ev', 42 as unknown as string)).rejects.toThrow(/must be a Buffer or a string/);
  await rdv.rendezvous.publish('ev', 'y');
  expect(names()).toEqual(['ev@r2']);
  rdv.removeRoundNames(true);
  expect(names()).toEqual([]);
});
