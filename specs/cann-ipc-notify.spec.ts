/**
 * CANN samples notify/0_ipc_notify_withpid and 1_ipc_notify_withoutpid, step for step: A on
 * device 2 owns the memory and the notify and waits; B on device 3 imports both, writes 123 into
 * A's memory (WriteDo becomes an aclrtMemcpyAsync) and records the notify. The memory export has
 * no whitelist in both samples; the notify export has one in the withpid sample (the harness
 * passes B's pid). The sample's 5 s sleep in B becomes: A proves its stream is blocked on the
 * notify before B writes, so the value A reads can only come after B's record.
 */
import * as assert from 'node:assert/strict';
import { scenario } from '../src';

const MIB = 1 << 20;
const int32 = (n: number) => new Uint8Array(new Int32Array([n]).buffer);
const asInt32 = (b: Uint8Array) => new Int32Array(b.slice(0, 4).buffer)[0];

for (const withPid of [true, false]) {
  const name = withPid ? '0_ipc_notify_withpid' : '1_ipc_notify_withoutpid';
  scenario(`CANN ${name}: A waits on its notify until B wrote the memory and recorded`, {
    devices: 4,
    roles: {
      A: {
        device: 2,
        run: async (ctx) => {
          assert.equal(ctx.acl.canAccessPeer(2, 3), true);
          ctx.acl.enablePeerAccess(3);
          const p = ctx.alloc(MIB);
          await ctx.shareMemory('memName.bin', p, { pidValidation: false }); // flags 1, as in both samples
          const n = ctx.createNotify();
          await ctx.shareNotify('notifyName.bin', n, withPid ? { importers: ['B'] } : { pidValidation: false });
          n.waitAndReset(ctx.stream, 0);
          const local = ctx.alloc(4);
          local.copyFrom(p, ctx.stream, 4); // ReadDo(p), queued behind the wait
          ctx.assertBlocked();
          ctx.mark('blocked');
          await ctx.signal('A.waiting');
          ctx.stream.synchronize();
          ctx.mark('after-wait');
          const destination = asInt32(local.read());
          ctx.log(`Destination data: ${destination}`);
          await ctx.awaitSignal('B.closed', { from: 'B' }); // importers close first
          p.closeExport();
          return { destination };
        },
      },
      B: {
        device: 3,
        run: async (ctx) => {
          assert.equal(ctx.acl.canAccessPeer(3, 2), true);
          ctx.acl.enablePeerAccess(2);
          const p = await ctx.openSharedMemory('memName.bin', { from: 'A' });
          const n = await ctx.openSharedNotify('notifyName.bin', { from: 'A' });
          await ctx.awaitSignal('A.waiting', { from: 'A' });
          const staging = ctx.alloc(4);
          staging.write(int32(123));
          ctx.mark('write');
          p.copyFrom(staging, ctx.stream, 4); // WriteDo(p, 123)
          n.record(ctx.stream);
          ctx.stream.synchronize();
          ctx.log('Source data: 123');
          p.free();
          n.destroy();
          await ctx.signal('B.closed');
          return { source: 123 };
        },
      },
    },
    verify: (result) => {
      expect(result).toHaveAllRolesSucceeded();
      expect(result.role('A').value).toEqual({ destination: (result.role('B').value as { source: number }).source });
      expect(result).toHaveMarkOrder('A:blocked', 'B:write');
      expect(result).toHaveMarkOrder('B:write', 'A:after-wait');
    },
  });
}
