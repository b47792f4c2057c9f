/**
 * Notify semantics across processes: a notify is a one-shot flag. One record releases one
 * aclrtWaitAndResetNotify, so two queued waits need two records; a record made before the wait
 * is remembered. The waiter owns the notify (waits run only on the creator's device); the
 * recorder imports it on another device.
 */
import { scenario } from '../src';

scenario('notify: two waits need two records; a record before the wait is remembered', {
  devices: 2,
  roles: {
    waiter: {
      device: 0,
      run: async (ctx) => {
        const n = ctx.createNotify();
        await ctx.shareNotify('n', n, { importers: ['recorder'] });
        // remembered: the recorder records first, the wait comes later and passes at once
        await ctx.awaitSignal('recorded-0', { from: 'recorder' });
        n.waitAndReset(ctx.stream);
        ctx.stream.synchronize(5000);
        // two waits, one record: the second wait still holds the stream
        n.waitAndReset(ctx.stream);
        n.waitAndReset(ctx.stream);
        ctx.assertBlocked();
        await ctx.signal('waiting');
        await ctx.awaitSignal('recorded-1', { from: 'recorder' });
        ctx.assertBlocked();
        ctx.mark('still-blocked-after-one-record');
        await ctx.signal('need-another');
        ctx.stream.synchronize();
        ctx.mark('after-second-wait');
      },
    },
    recorder: {
      device: 1,
      run: async (ctx) => {
        const n = await ctx.openSharedNotify('n', { from: 'waiter' });
        n.record(ctx.stream);
        ctx.stream.synchronize();
        await ctx.signal('recorded-0');
        await ctx.awaitSignal('waiting', { from: 'waiter' });
        n.record(ctx.stream);
        ctx.stream.synchronize();
        await ctx.signal('recorded-1');
        await ctx.awaitSignal('need-another', { from: 'waiter' });
        ctx.mark('second-record');
        n.record(ctx.stream);
        ctx.stream.synchronize();
      },
    },
  },
  verify: (result) => {
    expect(result).toHaveAllRolesSucceeded();
    expect(result).toHaveMarkOrder('waiter:still-blocked-after-one-record', 'recorder:second-record');
    expect(result).toHaveMarkOrder('recorder:second-record', 'waiter:after-second-wait');
  },
});
