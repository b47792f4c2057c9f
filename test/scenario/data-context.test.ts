/**
 * The data part of the scenario context (harness/scenario/data-context.ts) without native code: the
 * ACL objects are fakes, the rendezvous is real. Checks the pid exchange for whitelists and the
 * errors for bad declarations.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Acl, DeviceBuffer } from '../../src/acl';
import { Rendezvous } from '../../src/rendezvous';
import { planScenario } from '../../src/scenario';
import { createScenarioContext } from '../../harness/scenario/context';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'data-context-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const plan = planScenario('demo', {
  roles: { producer: { device: 0, run: () => {} }, consumer: { device: 1, run: () => {} }, other: { device: 0, run: () => {} } },
});

function fakeBuffer(): DeviceBuffer & { allowed: number[][] } {
  const allowed: number[][] = [];
  return {
    allowed,
    bytes: 16,
    exportedKey: null,
    exportKey: () => 'key-1',
    allowImporters: (pids: number[]) => void allowed.push(pids),
    imported: false,
    destroyed: false,
    free: () => {},
  } as unknown as DeviceBuffer & { allowed: number[][] };
}

function contextFor(role: string, acl: Partial<Acl>) {
  const base = {
    acl: acl as Acl,
    device: 0,
    role,
    index: 0,
    dir,
    rendezvous: new Rendezvous(dir, role),
    log: () => {},
    mark: () => {},
  };
  return createScenarioContext(base, plan, plan.roles.find((r) => r.name === role)!, Date.now() + 10_000);
}

test('shareMemory puts the pids of the listed importers on the whitelist before publishing the key', async () => {
  const imported: [string, number][] = [];
  const producer = contextFor('producer', {});
  const consumer = contextFor('consumer', {
    bareTgid: () => 4242,
    importMemory: (key: string, bytes: number) => {
      imported.push([key, bytes]);
      return { imported: true, destroyed: true } as unknown as DeviceBuffer;
    },
  });
  const buf = fakeBuffer();
  await Promise.all([
    producer.ctx.shareMemory('mem', buf, { importers: ['consumer'] }),
    consumer.ctx.openSharedMemory('mem', { from: 'producer' }),
  ]);
  expect(buf.allowed).toEqual([[4242]]);
  expect(imported).toEqual([['key-1', 16]]);
});

test('an importer that is neither a role nor a group is refused with the list of roles', async () => {
  const { ctx } = contextFor('producer', {});
  await expect(ctx.shareMemory('mem', fakeBuffer(), { importers: ['nobody'] })).rejects.toThrow(
    'producer: shareMemory: importer "nobody" is neither a role nor a group of this scenario (roles: producer, consumer, other)',
  );
});

test('an exporter whose importer never opens times out naming the role, why, and the fix', async () => {
  const { ctx } = contextFor('producer', {});
  await expect(ctx.shareMemory('mem', fakeBuffer(), { importers: ['other'], timeoutMs: 200 })).rejects.toThrow(
    /producer: shareMemory\("mem"\) waits for role other's pid for the whitelist; a role publishes it when it calls openSharedMemory\/openSharedNotify\/openSharedPhysical\. Pass \{ importers: \[\.\.\.\] \}/,
  );
});

test('opening memory where a notify (or anything else) was published names the right share call', async () => {
  const { ctx } = contextFor('consumer', { bareTgid: () => 1 });
  await new Rendezvous(dir, 'producer').publish('thing', JSON.stringify({ kind: 'notify', key: 'k', from: 'producer' }));
  await expect(ctx.openSharedMemory('thing', { from: 'producer' })).rejects.toThrow(
    'consumer: openSharedMemory("thing"): what was published under "thing" is not shared memory; publish it with ctx.shareMemory(name, ...)',
  );
});

test('without the whitelist nothing waits for pids', async () => {
  const { ctx } = contextFor('producer', {});
  const buf = fakeBuffer();
  await ctx.shareMemory('mem', buf, { pidValidation: false });
  expect(buf.allowed).toEqual([]);
});
