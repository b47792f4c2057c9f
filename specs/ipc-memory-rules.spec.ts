/**
 * IPC memory and notify rules that the CANN samples never exercise: the pid whitelist refuses an
 * importer the exporter did not list (ACL_ERROR_RT_NO_PERMISSION, with a message that names the
 * fix), and the close order: once the exporter closes its export, new imports fail while an
 * import made before keeps reading and writing the same memory.
 */
import * as assert from 'node:assert/strict';
import { AclErrorCode, scenario, type DeviceBuffer, type ScenarioContext, type ScenarioDeclaration } from '../src';

/** Memory imported from another device is read and written only by async device-to-device copies. */
function readByte(ctx: ScenarioContext, mem: DeviceBuffer): number {
  const local = ctx.alloc(1);
  local.copyFrom(mem, ctx.stream, 1);
  ctx.stream.synchronize();
  return local.read(1)[0];
}
function writeByte(ctx: ScenarioContext, mem: DeviceBuffer, value: number): void {
  const local = ctx.alloc(1);
  local.write(Uint8Array.of(value));
  mem.copyFrom(local, ctx.stream, 1);
  ctx.stream.synchronize();
}

// Both scenarios test rules of host-side calls: there is no stream wait for the mutant audit to break.
const HOST_CALLS_ONLY: ScenarioDeclaration['audit'] = {
  expectSurvive: ['wait-noop', 'record-instant', 'wait-latest'],
  reason: 'tests IPC memory rules (whitelist, close order) with host-side calls only: it has no stream wait to prove',
};

scenario('whitelist: an importer not on the list is refused, a listed one imports', {
  devices: 3,
  audit: HOST_CALLS_ONLY,
  roles: {
    exporter: {
      device: 0,
      run: async (ctx) => {
        const buf = ctx.alloc(4096);
        buf.write(new Uint8Array(4096).fill(7));
        await ctx.shareMemory('mem', buf, { importers: ['listed'] });
        const n = ctx.createNotify();
        await ctx.shareNotify('notify', n, { importers: ['listed'] });
        await ctx.awaitSignals(['listed.done', 'intruder.done']);
      },
    },
    listed: {
      device: 1,
      run: async (ctx) => {
        const mem = await ctx.openSharedMemory('mem', { from: 'exporter' });
        assert.equal(readByte(ctx, mem), 7);
        await ctx.openSharedNotify('notify', { from: 'exporter' });
        await ctx.signal('listed.done');
      },
    },
    intruder: {
      device: 2,
      run: async (ctx) => {
        const memRefusal = await ctx.openSharedMemory('mem', { from: 'exporter' }).then(
          () => null,
          (e: { code: number; message: string }) => e,
        );
        const notifyRefusal = await ctx.openSharedNotify('notify', { from: 'exporter' }).then(
          () => null,
          (e: { code: number; message: string }) => e,
        );
        await ctx.signal('intruder.done');
        return { mem: memRefusal && { code: memRefusal.code, message: memRefusal.message }, notify: notifyRefusal && { code: notifyRefusal.code, message: notifyRefusal.message } };
      },
    },
  },
  verify: (result) => {
    const v = result.role('intruder').value as { mem: { code: number; message: string }; notify: { code: number; message: string } };
    expect(v.mem.code).toBe(AclErrorCode.ACL_ERROR_RT_NO_PERMISSION);
    expect(v.mem.message).toMatch(/aclrtIpcMemImportByKey.*ACL_ERROR_RT_NO_PERMISSION.*not on the whitelist.*aclrtIpcMemSetImportPid/);
    expect(v.notify.code).toBe(AclErrorCode.ACL_ERROR_RT_NO_PERMISSION);
    expect(v.notify.message).toMatch(/aclrtNotifyImportByKey.*not on the whitelist.*aclrtNotifySetImportPid/);
  },
});

scenario('close order: after the exporter closes, new imports fail and an earlier import keeps working', {
  devices: 3,
  audit: HOST_CALLS_ONLY,
  roles: {
    exporter: {
      device: 0,
      run: async (ctx) => {
        const buf = ctx.alloc(4096);
        buf.write(Uint8Array.of(1));
        await ctx.shareMemory('mem', buf, { pidValidation: false });
        await ctx.awaitSignal('early.imported', { from: 'early' });
        buf.closeExport();
        await ctx.signal('closed');
        await ctx.awaitSignal('early.wrote', { from: 'early' });
        const seen = buf.read(1)[0];
        await ctx.awaitSignal('late.done', { from: 'late' });
        return { seen };
      },
    },
    early: {
      device: 1,
      run: async (ctx) => {
        const mem = await ctx.openSharedMemory('mem', { from: 'exporter' });
        await ctx.signal('early.imported');
        await ctx.awaitSignal('closed', { from: 'exporter' });
        assert.equal(readByte(ctx, mem), 1);
        writeByte(ctx, mem, 42);
        await ctx.signal('early.wrote');
      },
    },
    late: {
      device: 2,
      run: async (ctx) => {
        await ctx.awaitSignal('closed', { from: 'exporter' });
        const r = await ctx.openSharedMemory('mem', { from: 'exporter' }).then(
          () => null,
          (e: { code: number; message: string }) => ({ code: e.code, message: e.message }),
        );
        await ctx.signal('late.done');
        return r;
      },
    },
  },
  verify: (result) => {
    expect(result.role('exporter').value).toEqual({ seen: 42 });
    const late = result.role('late').value as { code: number; message: string };
    expect(late.code).toBe(AclErrorCode.ACL_ERROR_RT_PARAM_INVALID);
    expect(late.message).toMatch(/closed by its exporter/);
  },
});
