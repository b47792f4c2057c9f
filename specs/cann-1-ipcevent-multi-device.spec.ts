/**
 * CANN sample 1_ipcevent_multi_device: proc_a on device 0 creates, records and exports an IPC
 * event; proc_b i on device i opens it, waits, synchronizes and writes consumer_<i>.done; proc_a
 * finishes once every consumer is done. The sample's `precheck N` becomes the harness's skip:
 * 8 consumers need 9 devices, more than the stub's default 8, so that one is reported skipped.
 * Faithful, so the consumers' waits are no-ops (see real-blocking.spec.ts).
 */
import * as assert from 'node:assert/strict';
import { EventRecordedStatus, replicate, scenario } from '../src';

for (const consumers of [1, 3, 7, 8]) {
  scenario(`CANN 1_ipcevent_multi_device: ${consumers} consumer(s) on devices 1..${consumers}`, {
    devices: consumers + 1,
    audit: {
      expectSurvive: ['wait-noop', 'record-instant', 'wait-latest'],
      reason: "faithful copy of CANN's 1_ipcevent_multi_device: proc_a's record has completed before the consumers wait, so their waits are no-ops (real-blocking.spec.ts tests waits that block)",
    },
    roles: {
      proc_a: {
        device: 0,
        run: async (ctx) => {
          const event = ctx.createIpcEvent();
          event.record(ctx.stream);
          ctx.stream.synchronize();
          assert.equal(event.queryStatus(), EventRecordedStatus.COMPLETE);
          await ctx.shareEvent('event_handle.bin', event);
          await ctx.awaitSignals(ctx.rolesIn('proc_b').map((b) => `consumer_${b.device}.done`));
          ctx.log(`proc_a: all ${consumers} consumers done, finished successfully`);
        },
      },
      proc_b: replicate(consumers, (i) => ({
        device: i + 1,
        run: async (ctx) => {
          const event = await ctx.openSharedEvent('event_handle.bin', { from: 'proc_a' });
          ctx.stream.waitEvent(event);
          ctx.stream.synchronize();
          await ctx.signal(`consumer_${ctx.device}.done`);
          return { device: ctx.acl.getDevice() };
        },
      })),
    },
    verify: (result) => {
      expect(result.role('proc_a').stdout).toContain('finished successfully');
      // Every consumer's exit status is reported (the sample lost them behind `tee`).
      expect(result.group('proc_b').map((b) => [b.status, b.exitCode, b.value])).toEqual(
        Array.from({ length: consumers }, (_, i) => ['passed', 0, { device: i + 1 }]),
      );
    },
  });
}
