/**
 * The data part of the scenario context (harness/scenario/context/data-context.ts) without native code: the
 * ACL objects are fakes, the rendezvous is real. Checks the pid exchange for whitelists and the
 * errors for bad declarations.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Acl, DeviceBuffer, MappedBuffer } from '../../src/acl';
import { Rendezvous } from '../../src/rendezvous';
import { planScenario } from '../../src/scenario';
import { createScenarioContext } from '../../harness/scenario/context/context';

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

/** A fake VMM buffer of this process, and a fake acl.vmm whose importMapped records its arguments. */
function fakeMapped(freed: string[], name = 'own'): MappedBuffer & { allowed: number[][]; exportedWith: unknown[] } {
  const allowed: number[][] = [];
  const exportedWith: unknown[] = [];
  let shareable: bigint | null = null;
  return {
    allowed,
    exportedWith,
    bytes: 3 * 1024 * 1024 + 5,
    imported: name !== 'own',
    destroyed: false,
    get shareableHandle() {
      return shareable;
    },
    exportHandle: (opts: unknown) => {
      exportedWith.push(opts);
      shareable = 18446744073709551557n; // the largest prime below 2^64: kept exactly in the record
      return shareable;
    },
    allowImporters: (pids: number[]) => void allowed.push(pids),
    free: () => void freed.push(name),
  } as unknown as MappedBuffer & { allowed: number[][]; exportedWith: unknown[] };
}

test('sharePhysical whitelists the importers before publishing; openSharedPhysical imports the exact uint64 handle', async () => {
  const freed: string[] = [];
  const imports: [bigint, number][] = [];
  const producer = contextFor('producer', {});
  const consumer = contextFor('consumer', {
    bareTgid: () => 4242,
    vmm: {
      importMapped: (sh: bigint, bytes: number) => {
        imports.push([sh, bytes]);
        return fakeMapped(freed, 'import');
      },
      allocMapped: () => fakeMapped(freed, 'own'),
    } as unknown as Acl['vmm'],
  });
  const buf = fakeMapped(freed);
  const [sh] = await Promise.all([
    producer.ctx.sharePhysical('weights', buf, { importers: ['consumer'] }),
    consumer.ctx.openSharedPhysical('weights', { from: 'producer' }),
  ]);
  expect(sh).toBe(18446744073709551557n);
  expect(buf.exportedWith).toEqual([{ pidValidation: true }]);
  expect(buf.allowed).toEqual([[4242]]);
  expect(imports).toEqual([[18446744073709551557n, 3 * 1024 * 1024 + 5]]);
  // The record is the documented line format (docs/guide/vmm.md), which a C role writes and reads.
  const rec = (await new Rendezvous(dir, 'x').await('weights', { timeoutMs: 1000 })).toString();
  expect(rec).toBe('cann-harness shared 1\nkind physical\nkey 18446744073709551557\nbytes 3145733\nfrom producer\n');
  // Clean-up: the import is unmapped and freed before the role's own physical memory.
  consumer.ctx.allocPhysical(1);
  consumer.cleanup();
  expect(freed).toEqual(['import', 'own']);
});

test('sharePhysical with pidValidation false exports with the whitelist off and waits for no pid', async () => {
  const { ctx } = contextFor('producer', {});
  const buf = fakeMapped([]);
  await ctx.sharePhysical('weights', buf, { pidValidation: false });
  expect(buf.exportedWith).toEqual([{ pidValidation: false }]);
  expect(buf.allowed).toEqual([]);
});

test('openSharedPhysical refuses shared IPC memory and a key that is no uint64, naming the fix', async () => {
  const { ctx } = contextFor('consumer', { bareTgid: () => 1 });
  const producer = new Rendezvous(dir, 'producer');
  await producer.publish('ipc', 'cann-harness shared 1\nkind memory\nkey k\nbytes 4\nfrom producer\n');
  await expect(ctx.openSharedPhysical('ipc', { from: 'producer' })).rejects.toThrow(
    'consumer: openSharedPhysical("ipc"): what was published under "ipc" is not shared physical; publish it with ctx.sharePhysical(name, ...) or, from C, the record of docs/guide/vmm.md',
  );
  await producer.publish('big', 'cann-harness shared 1\nkind physical\nkey 18446744073709551616\nbytes 4\nfrom producer\n');
  await expect(ctx.openSharedPhysical('big', { from: 'producer' })).rejects.toThrow(
    'consumer: openSharedPhysical("big"): key "18446744073709551616" is not a shareable handle (a uint64 in decimal, docs/guide/vmm.md)',
  );
});

test('sharePhysical refuses an import: only the allocating role exports', async () => {
  const { ctx } = contextFor('consumer', {});
  await expect(ctx.sharePhysical('again', fakeMapped([], 'import'))).rejects.toThrow(
    'consumer: sharePhysical("again"): the buffer is an import; only the role that allocated it (ctx.allocPhysical) exports it',
  );
});
