/**
 * ACL error codes, their names, and the AclError every failing binding call throws.
 * Pure TypeScript: safe to import anywhere (Jest, the orchestrator), it never loads koffi.
 */

/** Every code in docs/acl-contract.md section 1.4, by name. */
export const AclErrorCode = {
  ACL_SUCCESS: 0,
  ACL_ERROR_INVALID_PARAM: 100000,
  ACL_ERROR_UNINITIALIZE: 100001,
  ACL_ERROR_REPEAT_INITIALIZE: 100002,
  ACL_ERROR_INVALID_FILE: 100003,
  ACL_ERROR_PARSE_FILE: 100006,
  ACL_ERROR_REPEAT_FINALIZE: 100037,
  ACL_ERROR_FEATURE_UNSUPPORTED: 200006,
  ACL_ERROR_INTERNAL_ERROR: 500000,
  ACL_ERROR_RT_PARAM_INVALID: 107000,
  ACL_ERROR_RT_INVALID_DEVICEID: 107001,
  ACL_ERROR_RT_CONTEXT_NULL: 107002,
  ACL_ERROR_RT_STREAM_CONTEXT: 107003,
  ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID: 107006,
  ACL_ERROR_RT_INVALID_HANDLE: 107017,
  ACL_ERROR_RT_WAIT_TIMEOUT: 107019,
  ACL_ERROR_RT_TASK_TIMEOUT: 107020,
  ACL_ERROR_RT_FEATURE_NOT_SUPPORT: 207000,
  ACL_ERROR_RT_MEMORY_ALLOCATION: 207001,
  ACL_ERROR_RT_NO_PERMISSION: 207006,
  ACL_ERROR_RT_INTERNAL_ERROR: 507000,
  ACL_ERROR_RT_CONTEXT_RELEASE_ERROR: 507007,
  ACL_ERROR_RT_STREAM_SYNC_TIMEOUT: 507046,
  ACL_ERROR_RT_EVENT_SYNC_TIMEOUT: 507047,
} as const;

export type AclErrorName = keyof typeof AclErrorCode;

const namesByCode = new Map<number, string>(
  Object.entries(AclErrorCode).map(([name, code]) => [code, name]),
);

/** 107017 -> 'ACL_ERROR_RT_INVALID_HANDLE'; a code outside the contract -> 'ACL_ERROR_UNKNOWN(<n>)'. */
export function aclErrorName(code: number): string {
  return namesByCode.get(code) ?? `ACL_ERROR_UNKNOWN(${code})`;
}

export interface AclErrorInit {
  code: number;
  /** The C function that failed, e.g. 'aclrtIpcOpenEventHandle'. */
  call: string;
  /** Short human summary of the arguments, e.g. 'handle=cf2c1086d9b8825c, event=&out'. */
  args?: string;
  /** aclGetRecentErrMsg() right after the failure (null when the runtime had none). */
  recentErrMsg?: string | null;
  /** Set when the binding itself refused the call (the runtime was not called). */
  detail?: string;
}

/** An AclError as plain JSON (toJSON()), as it crosses processes in RoleResult.error.acl. */
export interface AclErrorInfo {
  code: number;
  /** The code's name, e.g. 'ACL_ERROR_RT_INVALID_HANDLE'. */
  name: string;
  call: string;
  args: string;
  recentErrMsg: string | null;
  /** Present when the binding refused the call without calling C. */
  detail?: string;
}

export class AclError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly call: string;
  readonly args: string;
  readonly recentErrMsg: string | null;
  /** Why the binding refused the call without calling C (use after destroy, bad argument), else null. */
  readonly detail: string | null;

  constructor(init: AclErrorInit) {
    const codeName = aclErrorName(init.code);
    const args = init.args ?? '';
    const explanation = init.detail ?? init.recentErrMsg ?? 'no message from aclGetRecentErrMsg()';
    super(`${init.call}(${args}) failed: ${codeName} (${init.code}): ${explanation}`);
    this.name = 'AclError';
    this.code = init.code;
    this.codeName = codeName;
    this.call = init.call;
    this.args = args;
    this.recentErrMsg = init.recentErrMsg ?? null;
    this.detail = init.detail ?? null;
  }

  /** Plain JSON form, for sending across processes (see RoleResult.error.acl). */
  toJSON(): AclErrorInfo {
    const info: AclErrorInfo = { code: this.code, name: this.codeName, call: this.call, args: this.args, recentErrMsg: this.recentErrMsg };
    if (this.detail !== null) info.detail = this.detail;
    return info;
  }
}

export type AttemptResult<T> =
  | { ok: true; code: 0; value: T }
  | { ok: false; code: number; name: string; error: AclError };

/**
 * Non-throwing form for tests of expected failures:
 * `expect(attempt(() => ev.queryStatus()).code).toBe(207000)`.
 * Only AclError is turned into a result; any other exception is a bug and is re-thrown.
 */
export function attempt<T>(fn: () => T): AttemptResult<T> {
  try {
    return { ok: true, code: 0, value: fn() };
  } catch (err) {
    if (err instanceof AclError) return { ok: false, code: err.code, name: err.codeName, error: err };
    throw err;
  }
}
