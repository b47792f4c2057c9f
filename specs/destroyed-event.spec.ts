/**
 * After the creator destroys its IPC event, new opens of the handle fail with
 * ACL_ERROR_RT_INVALID_HANDLE (107017); a process that opened it before keeps working: its
 * record still holds back a wait on it.
 */
import { AclErrorCode, IpcEventHandle, attempt, scenario } from '../src';

scenario('opening a handle after the creator destroyed the event fails with ACL_ERROR_RT_INVALID_HANDLE', {
  devices: 3,
  roles: {
    creator: {
      device: 0,
      run: async (ctx) => {
        const event = ctx.createIpcEvent();
        await ctx.shareEvent('event', event);
        await ctx.awaitSignal('early.opened', { from: 'early' });
        event.destroy();
        await ctx.signal('destroyed');
        await ctx.awaitSignals(['early.done', 'late.done']);
      },
    },
    early: {
      device: 1,
      run: async (ctx) => {
        const event = await ctx.openSharedEvent('event', { from: 'creator' });
        await ctx.signal('early.opened');
        await ctx.awaitSignal('destroyed', { from: 'creator' });
        // Still fully usable here: a record held behind a latch blocks a wait on another stream.
        const latch = ctx.latch();
        event.record(ctx.stream);
        const waiter = ctx.acl.createStream();
        waiter.waitEvent(event);
        ctx.assertBlocked(waiter);
        latch.release();
        const sync = attempt(() => waiter.synchronize(5_000));
        waiter.destroy();
        await ctx.signal('early.done');
        return { syncCode: sync.code };
      },
    },
    late: {
      device: 2,
      run: async (ctx) => {
        await ctx.awaitSignal('destroyed', { from: 'creator' });
        const bytes = await ctx.rendezvous.await('event', { timeoutMs: ctx.timeLeftMs(), from: 'creator' });
        const open = attempt(() => ctx.acl.openIpcEvent(IpcEventHandle.fromBuffer(bytes)));
        await ctx.signal('late.done');
        return open.ok ? { code: 0 } : { code: open.code, name: open.name, call: open.error.call };
      },
    },
  },
  verify: (result) => {
    expect(result.role('late').value).toEqual({
      code: AclErrorCode.ACL_ERROR_RT_INVALID_HANDLE,
      name: 'ACL_ERROR_RT_INVALID_HANDLE',
      call: 'aclrtIpcOpenEventHandle',
    });
    expect(result.role('early').value).toEqual({ syncCode: 0 });
  },
});
