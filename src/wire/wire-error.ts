/**
 * The one wire format of an error crossing a process or thread boundary (device process ->
 * orchestrator, worker thread -> its role's main thread): RoleError, plain JSON. One serializer
 * (toRoleError), one validating parser (parseRoleError) used where the error arrives, and
 * reviveError to throw it again on the receiving side.
 *
 * ACL failures are recognised by shape (numeric `code` and string `call`), not by class, so this
 * never needs to load src/acl (or koffi); the `acl` part is AclError.toJSON()'s AclErrorInfo.
 */
import { inspect, types } from 'node:util';
import type { AclErrorInfo, RoleError } from './types';

/** A thrown value that is not an Error, in full (inspect: bigints, cycles and undefined survive, unlike JSON). */
const shown = (v: unknown): string => inspect(v, { depth: 6, breakLength: Infinity, maxStringLength: 2000 });

function aclFields(e: Record<string, unknown>): AclErrorInfo | undefined {
  if (typeof e.code !== 'number' || typeof e.call !== 'string') return undefined;
  const info: AclErrorInfo = {
    code: e.code,
    name: typeof e.codeName === 'string' ? e.codeName : String(e.code),
    call: e.call,
    args: typeof e.args === 'string' ? e.args : '',
    recentErrMsg: typeof e.recentErrMsg === 'string' ? e.recentErrMsg : null,
  };
  if (typeof e.detail === 'string') info.detail = e.detail;
  return info;
}

/** Anything thrown -> RoleError (`prefix` goes before the message: "loading role "x": ..."). */
export function toRoleError(thrown: unknown, prefix?: string): RoleError {
  const withPrefix = (m: string) => (prefix ? `${prefix}: ${m}` : m);
  if (thrown instanceof Error || (typeof thrown === 'object' && thrown !== null && 'message' in thrown)) {
    const e = thrown as Error & Record<string, unknown>;
    // `throw { message, status }`: the object's other fields are part of what the role said.
    const isError = thrown instanceof Error || types.isNativeError(thrown);
    const out: RoleError = { message: withPrefix(isError ? String(e.message) : `${String(e.message)} (a non-Error object was thrown: ${shown(thrown)})`) };
    if (typeof e.stack === 'string') out.stack = e.stack;
    if (typeof e.name === 'string' && e.name !== 'Error') out.name = e.name;
    const acl = aclFields(e);
    if (acl) out.acl = acl;
    return out;
  }
  return { message: withPrefix(`non-Error value thrown: ${typeof thrown === 'string' ? thrown : shown(thrown)}`) };
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

const optional = (v: unknown, type: 'string' | 'number'): boolean => v === undefined || typeof v === type;

/** What is wrong with an acl part, or null. */
function aclProblem(a: unknown): string | null {
  if (typeof a !== 'object' || a === null) return `"acl" is ${JSON.stringify(a)}, not an object`;
  const x = a as Record<string, unknown>;
  if (!Number.isInteger(x.code)) return `acl.code is ${JSON.stringify(x.code)}, not an integer`;
  for (const key of ['name', 'call', 'args'] as const) {
    if (typeof x[key] !== 'string') return `acl.${key} is ${JSON.stringify(x[key])}, not a string`;
  }
  if (x.recentErrMsg !== null && typeof x.recentErrMsg !== 'string') return 'acl.recentErrMsg is neither a string nor null';
  if (!optional(x.detail, 'string')) return 'acl.detail is not a string';
  return null;
}

/** Checks a RoleError that arrived over a boundary; the problem says what is wrong with it. */
export function parseRoleError(raw: unknown): Parsed<RoleError> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, problem: `the error is ${JSON.stringify(raw) ?? String(raw)}, not an object` };
  const e = raw as Record<string, unknown>;
  if (typeof e.message !== 'string') return { ok: false, problem: `error.message is ${JSON.stringify(e.message) ?? 'missing'}, not a string` };
  if (!optional(e.stack, 'string')) return { ok: false, problem: 'error.stack is not a string' };
  if (!optional(e.name, 'string')) return { ok: false, problem: 'error.name is not a string' };
  if (e.tNs !== undefined && !(typeof e.tNs === 'string' && /^\d+$/.test(e.tNs))) {
    return { ok: false, problem: `error.tNs is ${JSON.stringify(e.tNs)}, not a decimal string of nanoseconds` };
  }
  if (e.acl !== undefined) {
    const problem = aclProblem(e.acl);
    if (problem) return { ok: false, problem: `error.${problem}` };
  }
  return { ok: true, value: raw as RoleError };
}

/** The RoleError a malformed message turns into: names who sent it and what was wrong. */
export function protocolError(who: string, problem: string): RoleError {
  return { message: `protocol error: ${who} sent a malformed message (${problem}); this is a harness bug, please report it` };
}

/**
 * A RoleError thrown again on the receiving side (a worker thread's failure in its role's main
 * thread): message prefixed, class name and ACL fields kept, so toRoleError recognises it again.
 */
export function reviveError(wire: RoleError, prefix: string): Error {
  const e = new Error(`${prefix}: ${wire.message}`);
  if (wire.acl) {
    const { code, name: codeName, call, args, recentErrMsg, detail } = wire.acl;
    Object.assign(e, { code, codeName, call, args, recentErrMsg, detail: detail ?? null });
  }
  e.name = wire.name ?? 'Error';
  if (wire.stack) e.stack = `${e.name}: ${prefix}: ${wire.stack.replace(/^[^\n]*\n?/, '')}`;
  return e;
}
