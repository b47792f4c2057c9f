/**
 * CANN sample 0_ipcevent, step for step: process A (creator) and B (importer) on device 0.
 * Faithful means it inherits the sample's blind spot: A records and synchronizes *before*
 * exporting, so B's wait is a no-op (see real-blocking.spec.ts for the version that blocks).
 * The sample's 2 s sleep is shortened; its file polling and clean-up are the harness's job.
 */
import * as assert from 'node:assert/strict';
import { EventRecordedStatus, scenario } from '../src';

scenario('CANN 0_ipcevent: creator records, importer waits then records', {
  devices: 1,
  params: { importerSleepMs: 200 },
  audit: {
    expectSurvive: ['wait-noop', 'record-instant', 'wait-latest'],
    reason: "faithful copy of CANN's 0_ipcevent: A's record has completed before B waits, so B's wait is a no-op (real-blocking.spec.ts tests a wait that blocks)",
  },
  roles: {
    A: {
      device: 0,
      run: async (ctx) => {
        const event = ctx.createIpcEvent();
        event.record(ctx.stream);
        ctx.stream.synchronize();
        assert.equal(event.queryStatus(), EventRecordedStatus.COMPLETE, 'A: event should be complete after synchronize');
        await ctx.shareEvent('event_handle.bin', event);
        ctx.log('A: handle exported, waiting for the consumer');
        await ctx.awaitSignal('consumer_done.flag', { from: 'B' });
        event.destroy();
        ctx.log('A: cleanup completed');
      },
    },
    B: {
      device: 0,
      run: async (ctx) => {
        const event = await ctx.openSharedEvent('event_handle.bin', { from: 'A' });
        ctx.stream.waitEvent(event);
        ctx.stream.synchronize();
        await ctx.sleep(ctx.params.importerSleepMs);
        event.record(ctx.stream);
        ctx.stream.synchronize();
        const status = event.queryStatus();
        ctx.log(`B: query after record -> ${EventRecordedStatus[status]}`);
        await ctx.signal('consumer_done.flag');
        return { status };
      },
    },
  },
  verify: (result) => {
    // run.sh's check, plus what it cannot see: B's own status and exit code.
    expect(result.role('A').stdout).toContain('cleanup completed');
    expect(result.role('B').value).toEqual({ status: EventRecordedStatus.COMPLETE });
    expect(result).toHaveAllRolesSucceeded();
  },
});
