/**
 * The current context is per thread, as on CANN (native-stub/test/cases_contexts.c has the C
 * rules): a worker thread that never set a device gets 107002 from the harness's own host functions
 * (hold, latch) as an AclError that names it, and the binding's context API switches contexts.
 */
import { runFixture, valueOf } from './helpers';

const failed = (code: number, name: string, call: string) => ({ code, name, call, message: expect.stringContaining(`${call}(`) });
const contextNull = (call: string) => failed(107002, 'ACL_ERROR_RT_CONTEXT_NULL', call);

test('a worker thread without a device gets ACL_ERROR_RT_CONTEXT_NULL, and the context API switches contexts', async () => {
  const r = valueOf(await runFixture<{ main: Record<string, unknown>; worker: Record<string, unknown> }>('worker-thread-context'));
  expect(r.worker).toEqual({
    withoutDevice: {
      hold: contextNull('aclrtLaunchHostFunc'),
      latch: contextNull('aclrtLaunchHostFunc'),
      synchronize: contextNull('aclrtSynchronizeStreamWithTimeout'),
      currentContext: contextNull('aclrtGetCurrentContext'),
    },
    afterContextDestroyed: {
      hold: contextNull('aclrtLaunchHostFunc'),
      synchronize: contextNull('aclrtSynchronizeStreamWithTimeout'),
      destroy: contextNull('aclrtDestroyStream'),
    },
    afterSetDevice: { held: true, device: 0 },
  });
  expect(r.main).toEqual({
    deviceInCreated: 1,
    currentIsCreated: true,
    holdOtherContext: failed(107003, 'ACL_ERROR_RT_STREAM_CONTEXT', 'aclrtLaunchHostFunc'),
    destroyOtherContext: failed(107003, 'ACL_ERROR_RT_STREAM_CONTEXT', 'aclrtDestroyStream'),
    destroyPrimary: contextNull('aclrtDestroyContext'),
    deviceBack: 0,
    deviceAfterDestroy: contextNull('aclrtGetDevice'),
  });
});
