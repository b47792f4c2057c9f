/**
 * CANN samples memory/10_ipc_memory_withpid and 11_ipc_memory_withoutpid, step for step: A and B
 * both on device 0. The AscendC kernels become stream tasks: WriteDo(p, 123) is an
 * aclrtMemcpyAsync of the value from a staging buffer on A's stream, ReadDo(p) an aclrtMemcpyAsync
 * out of the import on B's stream. The samples' file exchange (pid.bin, memName.bin, flag.bin) is
 * the harness's: shareMemory waits for B's pid (aclrtDeviceGetBareTgid) before
 * aclrtIpcMemSetImportPid when the whitelist is on. Unlike the samples, A synchronizes its write
 * before the export, B synchronizes its read and closes its import before it raises the flag, and A
 * closes the export only then (the documented order, which the samples race). CANN's own code runs
 * unchanged in specs/cann-samples.spec.ts.
 */
import * as assert from 'node:assert/strict';
import { scenario } from '../src';

const MIB = 1 << 20;
const int32 = (n: number) => new Uint8Array(new Int32Array([n]).buffer);
const asInt32 = (b: Uint8Array) => new Int32Array(b.slice(0, 4).buffer)[0];

for (const withPid of [true, false]) {
  const name = withPid ? '10_ipc_memory_withpid' : '11_ipc_memory_withoutpid';
  scenario(`CANN ${name}: B reads the value A wrote into shared device memory`, {
    devices: 1,
    audit: {
      expectSurvive: ['wait-noop', 'record-instant', 'wait-latest'],
      reason: `faithful copy of CANN's ${name}: no stream waits on an event or notify; A and B order their work by host synchronize and the file exchange (handoff.spec.ts proves a wait with data)`,
    },
    roles: {
      A: {
        device: 0,
        run: async (ctx) => {
          const p = ctx.alloc(MIB);
          const staging = ctx.alloc(4);
          staging.write(int32(123));
          p.copyFrom(staging, ctx.stream, 4); // WriteDo(p, 123)
          // The sample exports without synchronizing and lets B read without a wait: a race that its
          // file exchange (polled once a second) hides on an NPU. The harness's exchange takes
          // microseconds, so B could read before the write ran (seen once in CI): synchronize first.
          ctx.stream.synchronize();
          ctx.log('Source data: 123');
          const key = await ctx.shareMemory('memName.bin', p, withPid ? { importers: ['B'] } : { pidValidation: false });
          assert.ok(key.length > 0 && key.length <= 64);
          await ctx.awaitSignal('flag.bin', { from: 'B' });
          p.closeExport(); // aclrtIpcMemClose(memName): destroys the export
          ctx.stream.synchronize();
          p.free();
          return { source: 123 };
        },
      },
      B: {
        device: 0,
        run: async (ctx) => {
          const p = await ctx.openSharedMemory('memName.bin', { from: 'A' });
          const local = ctx.alloc(4);
          local.copyFrom(p, ctx.stream, 4); // ReadDo(p)
          ctx.stream.synchronize();
          const destination = asInt32(local.read());
          ctx.log(`Destination data: ${destination}`);
          p.free(); // aclrtIpcMemClose(memName) in the importer: unmaps this import
          await ctx.signal('flag.bin');
          return { destination };
        },
      },
    },
    verify: (result) => {
      // run.sh compares A's "Source data" with B's "Destination data"; here also both exit codes.
      expect(result).toHaveAllRolesSucceeded();
      expect(result.role('B').value).toEqual({ destination: (result.role('A').value as { source: number }).source });
    },
  });
}
