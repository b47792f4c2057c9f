/**
 * What happens to device work a role queued when its body returns. The harness releases the
 * role's latches and lets its streams drain (up to 2 s, never past the deadline) before
 * aclFinalize, so a record behind a latch the body just released always runs: a creator may
 * return right after the release, and its consumers still get the record.
 */
import { replicate, scenario } from '../src';

scenario('a creator that returns while its record is still queued (released latch, 300 ms host function) still delivers it', {
  roles: {
    creator: {
      device: 0,
      run: async (ctx) => {
        const ev = ctx.createIpcEvent();
        const latch = ctx.latch();
        ctx.stream.hold(300); // after the release, the record still waits 300 ms in the queue
        ev.record(ctx.stream); // pending behind the latch
        await ctx.shareEvent('ev', ev);
        await ctx.awaitSignals(ctx.rolesIn('consumer').map((c) => `${c.name}.waiting`));
        ctx.mark('release');
        latch.release();
        // returns at once: no synchronize, the record may not have run yet
      },
    },
    consumer: replicate(3, (i) => ({
      device: i + 1,
      run: async (ctx) => {
        ctx.stream.waitEvent(await ctx.openSharedEvent('ev', { from: 'creator' }));
        ctx.assertBlocked();
        await ctx.signal(`${ctx.role}.waiting`);
        ctx.stream.synchronize();
        ctx.mark('after-wait');
      },
    })),
  },
  verify: (result) => {
    expect(result).toHaveAllRolesSucceeded();
    expect(result).toHaveMarkOrder('creator:release', 'consumer:after-wait');
    for (const r of result.roles) expect(r.cancelledTasks).toBeUndefined();
  },
});
