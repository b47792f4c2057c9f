/**
 * The other direction: the importer records the IPC event while the creator waits on it. The
 * importer's record is pending behind its latch, so the creator's stream must stay blocked until
 * the importer releases it.
 */
import * as assert from 'node:assert/strict';
import { EventRecordedStatus, scenario } from '../src';

for (const importerDevice of [0, 1]) {
  scenario(`importer on device ${importerDevice} records while the creator on device 0 waits`, {
    devices: importerDevice + 1,
    roles: {
      creator: {
        device: 0,
        run: async (ctx) => {
          const event = ctx.createIpcEvent();
          await ctx.shareEvent('event', event);
          await ctx.awaitSignal('importer.recorded', { from: 'importer' });
          ctx.stream.waitEvent(event); // binds to the importer's pending record
          ctx.assertBlocked();
          assert.equal(event.queryStatus(), EventRecordedStatus.NOT_READY);
          ctx.mark('blocked');
          await ctx.signal('creator.blocked');
          ctx.stream.synchronize();
          ctx.mark('after-wait');
          assert.equal(event.queryStatus(), EventRecordedStatus.COMPLETE);
        },
      },
      importer: {
        device: importerDevice,
        run: async (ctx) => {
          const event = await ctx.openSharedEvent('event', { from: 'creator' });
          const latch = ctx.latch();
          event.record(ctx.stream);
          await ctx.signal('importer.recorded');
          await ctx.awaitSignal('creator.blocked', { from: 'creator' });
          ctx.mark('release');
          latch.release();
          ctx.stream.synchronize();
        },
      },
    },
    verify: (result) => {
      expect(result).toHaveMarkOrder('creator:blocked', 'importer:release');
      expect(result).toHaveMarkOrder('importer:release', 'creator:after-wait');
    },
  });
}
