/**
 * Turns anything a role throws into a JSON-safe RoleError. ACL failures are recognised by shape
 * (numeric `code` and string `call`), not by class, so this never needs to load src/acl.
 */
import type { AclErrorInfo, RoleError } from './types';

function aclFields(e: Record<string, unknown>): AclErrorInfo | undefined {
  if (typeof e.code !== 'number' || typeof e.call !== 'string') return undefined;
  return {
    code: e.code,
    name: typeof e.codeName === 'string' ? e.codeName : String(e.code),
    call: e.call,
    args: typeof e.args === 'string' ? e.args : '',
    recentErrMsg: typeof e.recentErrMsg === 'string' ? e.recentErrMsg : null,
  };
}

export function toRoleError(thrown: unknown, prefix?: string): RoleError {
  const withPrefix = (m: string) => (prefix ? `${prefix}: ${m}` : m);
  if (thrown instanceof Error || (typeof thrown === 'object' && thrown !== null && 'message' in thrown)) {
    const e = thrown as Error & Record<string, unknown>;
    const out: RoleError = { message: withPrefix(String(e.message)) };
    if (typeof e.stack === 'string') out.stack = e.stack;
    const acl = aclFields(e);
    if (acl) out.acl = acl;
    return out;
  }
  let text: string;
  try {
    text = typeof thrown === 'string' ? thrown : JSON.stringify(thrown) ?? String(thrown);
  } catch {
    text = String(thrown);
  }
  return { message: withPrefix(`non-Error value thrown: ${text}`) };
}
