/** AclError, code names and attempt(): pure TypeScript, runs inside Jest (no koffi). */
import { AclError, AclErrorCode, aclErrorName, attempt } from '../../src/acl';

describe('aclErrorName', () => {
  test('names every code of the contract', () => {
    const table: [number, string][] = [
      [0, 'ACL_SUCCESS'],
      [100000, 'ACL_ERROR_INVALID_PARAM'],
      [100001, 'ACL_ERROR_UNINITIALIZE'],
      [100002, 'ACL_ERROR_REPEAT_INITIALIZE'],
      [100003, 'ACL_ERROR_INVALID_FILE'],
      [100006, 'ACL_ERROR_PARSE_FILE'],
      [100037, 'ACL_ERROR_REPEAT_FINALIZE'],
      [200006, 'ACL_ERROR_FEATURE_UNSUPPORTED'],
      [500000, 'ACL_ERROR_INTERNAL_ERROR'],
      [107000, 'ACL_ERROR_RT_PARAM_INVALID'],
      [107001, 'ACL_ERROR_RT_INVALID_DEVICEID'],
      [107002, 'ACL_ERROR_RT_CONTEXT_NULL'],
      [107003, 'ACL_ERROR_RT_STREAM_CONTEXT'],
      [107006, 'ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID'],
      [107017, 'ACL_ERROR_RT_INVALID_HANDLE'],
      [107019, 'ACL_ERROR_RT_WAIT_TIMEOUT'],
      [107020, 'ACL_ERROR_RT_TASK_TIMEOUT'],
      [207000, 'ACL_ERROR_RT_FEATURE_NOT_SUPPORT'],
      [207001, 'ACL_ERROR_RT_MEMORY_ALLOCATION'],
      [207006, 'ACL_ERROR_RT_NO_PERMISSION'],
      [507000, 'ACL_ERROR_RT_INTERNAL_ERROR'],
      [507007, 'ACL_ERROR_RT_CONTEXT_RELEASE_ERROR'],
      [507046, 'ACL_ERROR_RT_STREAM_SYNC_TIMEOUT'],
      [507047, 'ACL_ERROR_RT_EVENT_SYNC_TIMEOUT'],
    ];
    for (const [code, name] of table) expect(aclErrorName(code)).toBe(name);
    expect(Object.keys(AclErrorCode)).toHaveLength(table.length);
  });

  test('unknown codes keep their number', () => {
    expect(aclErrorName(123456)).toBe('ACL_ERROR_UNKNOWN(123456)');
    expect(aclErrorName(-1)).toBe('ACL_ERROR_UNKNOWN(-1)');
  });
});

describe('AclError', () => {
  test('message reads call(args) failed: NAME (code): recent message', () => {
    const e = new AclError({
      code: 107017,
      call: 'aclrtIpcOpenEventHandle',
      args: 'handle=3f2a…',
      recentErrMsg: 'aclrtIpcOpenEventHandle: no such IPC event',
    });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('AclError');
    expect(e.message).toBe(
      'aclrtIpcOpenEventHandle(handle=3f2a…) failed: ACL_ERROR_RT_INVALID_HANDLE (107017): aclrtIpcOpenEventHandle: no such IPC event',
    );
    expect(e).toMatchObject({ code: 107017, codeName: 'ACL_ERROR_RT_INVALID_HANDLE', call: 'aclrtIpcOpenEventHandle', args: 'handle=3f2a…' });
    expect(e.toJSON()).toEqual({
      code: 107017,
      name: 'ACL_ERROR_RT_INVALID_HANDLE',
      call: 'aclrtIpcOpenEventHandle',
      args: 'handle=3f2a…',
      recentErrMsg: 'aclrtIpcOpenEventHandle: no such IPC event',
    });
  });

  test('a binding-side refusal shows its detail and has no runtime message', () => {
    const e = new AclError({ code: 107017, call: 'aclrtDestroyStream', args: 'stream=0x1', detail: 'stream was destroyed' });
    expect(e.message).toBe('aclrtDestroyStream(stream=0x1) failed: ACL_ERROR_RT_INVALID_HANDLE (107017): stream was destroyed');
    expect(e.recentErrMsg).toBeNull();
    expect(e.detail).toBe('stream was destroyed');
  });

  test('says so when the runtime gave no message', () => {
    expect(new AclError({ code: 999, call: 'aclInit' }).message).toBe(
      'aclInit() failed: ACL_ERROR_UNKNOWN(999) (999): no message from aclGetRecentErrMsg()',
    );
  });
});

describe('attempt', () => {
  test('returns the value on success', () => {
    expect(attempt(() => 42)).toEqual({ ok: true, code: 0, value: 42 });
  });

  test('returns code and name of an AclError', () => {
    const r = attempt(() => {
      throw new AclError({ code: 507047, call: 'aclrtSynchronizeEventWithTimeout' });
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe(507047);
    expect(r.name).toBe('ACL_ERROR_RT_EVENT_SYNC_TIMEOUT');
    expect(r.error).toBeInstanceOf(AclError);
  });

  test('re-throws anything that is not an AclError (a bug, not an ACL failure)', () => {
    expect(() =>
      attempt(() => {
        throw new TypeError('bad argument');
      }),
    ).toThrow(TypeError);
  });
});
