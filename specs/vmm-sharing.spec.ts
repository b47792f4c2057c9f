/**
 * VMM physical memory shared between processes (docs/guide/vmm.md, "In a scenario"): a producer
 * allocates and maps physical memory (ctx.allocPhysical), writes a pattern and exports it
 * (ctx.sharePhysical); consumers on other devices import and map it at addresses of their own
 * (ctx.openSharedPhysical) and read it back byte for byte. With the whitelist on (the default) the
 * harness lists the consumers' bare tgids before it publishes the handle; with
 * `pidValidation: false` it exports with the flag that turns the whitelist off.
 * Then the handoff template on VMM memory (its consumers' waits are what makes them read the
 * fresh bytes: the audit's wait-noop kills it), and C roles exporting to and importing from
 * TypeScript roles (specs/native/vmm_exporter.c, vmm_importer.c).
 */
import { handoff, replicate, scenario } from '../src';

const BYTES = 3 * 1024 * 1024 + 5; // not a whole number of 2 MiB granules: the mapping is 4 MiB
/** The same pattern as specs/native/vmm_exporter.c. */
const pattern = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 131 + 7) & 0xff);

/** Where `data` first differs from the pattern (-1: nowhere), and what it holds there. */
function firstDifference(data: Uint8Array): { at: number; got?: number; want?: number } {
  const want = pattern(data.length);
  const at = data.findIndex((b, i) => b !== want[i]);
  return at < 0 ? { at } : { at, got: data[at], want: want[at] };
}

for (const pidValidation of [true, false]) {
  scenario(`VMM memory read byte for byte by 2 consumers on other devices, ${pidValidation ? 'with' : 'without'} the pid whitelist`, {
    devices: 3,
    audit: {
      expectSurvive: ['wait-noop', 'record-instant', 'wait-latest'],
      reason:
        'data sharing only: the producer writes synchronously before it exports, no stream waits on an event ' +
        '(the handoff scenarios below prove a wait)',
    },
    roles: {
      producer: {
        device: 0,
        run: async (ctx) => {
          const mem = ctx.allocPhysical(BYTES);
          mem.write(pattern(BYTES));
          const shareable = await ctx.sharePhysical('weights', mem, { pidValidation });
          await ctx.awaitSignals(ctx.rolesIn('consumer').map((c) => `${c.name}.done`));
          return { mappedBytes: mem.mappedBytes, shareable: shareable.toString() };
        },
      },
      consumer: replicate(2, (i) => ({
        device: i + 1,
        run: async (ctx) => {
          const mem = await ctx.openSharedPhysical('weights', { from: 'producer' });
          // Copy into this role's own memory on its stream, as a kernel would read it, then check.
          const local = ctx.alloc(mem.bytes);
          local.copyFrom(mem, ctx.stream);
          ctx.stream.synchronize();
          const diff = firstDifference(local.read());
          mem.free(); // unmap, release and free the import before the producer frees its memory
          await ctx.signal(`${ctx.role}.done`);
          return { bytes: mem.bytes, mappedBytes: mem.mappedBytes, diff, importedFrom: String(mem.importedFrom) };
        },
      })),
    },
    verify: (result) => {
      const producer = result.role('producer').value as { mappedBytes: number; shareable: string };
      expect(producer.mappedBytes).toBe(4 * 1024 * 1024);
      for (const c of result.group('consumer')) {
        expect(c.value).toEqual({ bytes: BYTES, mappedBytes: 4 * 1024 * 1024, diff: { at: -1 }, importedFrom: producer.shareable });
      }
    },
  });
}

scenario('VMM handoff: 2 consumers wait on an IPC event, then read the fresh bytes', handoff({ consumers: 2, memory: 'vmm' }));
scenario(
  'VMM handoff through notifies, without the pid whitelist',
  handoff({ consumers: 2, memory: 'vmm', sync: 'notify', pidValidation: false }),
);
scenario('VMM data-race control: consumers that skip the wait read the stale bytes', {
  ...handoff({ consumers: 1, memory: 'vmm', wait: false }),
  audit: {
    expectSurvive: ['wait-noop', 'wait-latest'],
    reason: 'control: its consumer skips the wait on purpose, to show that the byte check sees a missing wait',
  },
});

for (const whitelist of ['pid', 'nopid'] as const) {
  scenario(`VMM memory from a C exporter, imported by a TypeScript role (${whitelist === 'pid' ? 'with' : 'without'} the whitelist)`, {
    build: 'make -s -C native',
    audit: {
      expectSurvive: ['wait-noop', 'record-instant', 'wait-latest'],
      reason: 'data sharing only: no stream waits on an event',
    },
    roles: {
      producer: {
        device: 0,
        exec: ['native/build/vmm_exporter', 'consumer', String(BYTES), whitelist],
        expectOutput: /vmm_exporter finished successfully/,
      },
      consumer: {
        device: 1,
        run: async (ctx) => {
          const mem = await ctx.openSharedPhysical('buffer', { from: 'producer' });
          const local = ctx.alloc(mem.bytes);
          local.copyFrom(mem, ctx.stream);
          ctx.stream.synchronize();
          const diff = firstDifference(local.read());
          mem.free();
          await ctx.signal(`${ctx.role}.done`);
          return { bytes: mem.bytes, diff };
        },
      },
    },
    verify: (result) => {
      expect(result.role('consumer').value).toEqual({ bytes: BYTES, diff: { at: -1 } });
      if (whitelist === 'pid') expect(result.role('producer').stdout).toMatch(/whitelisted consumer \(bare tgid \d+\)/);
    },
  });
}

scenario('VMM memory from a TypeScript exporter, imported by a C role (whitelisted by the harness)', {
  build: 'make -s -C native',
  audit: {
    expectSurvive: ['wait-noop', 'record-instant', 'wait-latest'],
    reason: 'data sharing only: no stream waits on an event',
  },
  roles: {
    producer: {
      device: 0,
      run: async (ctx) => {
        const mem = ctx.allocPhysical(BYTES);
        mem.write(pattern(BYTES));
        // Waits for the C role's "@pid.consumer" (aclrtDeviceGetBareTgid) and whitelists it.
        await ctx.sharePhysical('buffer', mem, { importers: ['consumer'] });
        await ctx.awaitSignal('consumer.done', { from: 'consumer' });
      },
    },
    consumer: {
      device: 1,
      exec: ['native/build/vmm_importer'],
      expectOutput: /read 3145733 bytes of shareable handle \d+ \(bare tgid \d+\): all match/,
    },
  },
});
