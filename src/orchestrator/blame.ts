/**
 * Which failure came first. Processes report in whatever order the OS delivers their messages, so
 * the first failure to *arrive* is not necessarily the first to *happen*: a producer that throws
 * right after sharing its event is often heard of after the consumers that then fail to open it.
 * Every failure carries a CLOCK_MONOTONIC time (the device process's own, when it reported an
 * error), the same clock in every process, and the earliest one is blamed. Failures after it, and
 * roles stopped by fail-fast, are marked as its consequences.
 */
import type { FirstFailure, RoleResult } from './types';

const FAILURES: ReadonlySet<RoleResult['status']> = new Set(['failed', 'crashed', 'timeout']);

export function firstFailure(roles: readonly RoleResult[]): FirstFailure | undefined {
  let first: RoleResult | undefined;
  for (const r of roles) {
    if (!FAILURES.has(r.status) || r.failedAtNs === undefined) continue;
    if (!first || BigInt(r.failedAtNs) < BigInt(first.failedAtNs!)) first = r;
  }
  return first && { role: first.name, status: first.status, atNs: first.failedAtNs! };
}

/**
 * Sets `consequenceOf` (and the stop reason of fail-fast stops) relative to the first failure.
 * `stoppedByFailFast` names the roles that were stopped because some role failed.
 */
export function assignBlame(roles: RoleResult[], stoppedByFailFast: ReadonlySet<string>): FirstFailure | undefined {
  const first = firstFailure(roles);
  if (!first) return undefined;
  const why = `role "${first.role}" ${first.status === 'timeout' ? 'timed out' : first.status} first`;
  for (const r of roles) {
    if (r.name === first.role) continue;
    if (r.status === 'stopped' && stoppedByFailFast.has(r.name)) {
      r.consequenceOf = first.role;
      // The role that was heard of first may not be the one that failed first: say the latter.
      if (r.error) r.error = { ...r.error, message: `stopped because ${why}` };
    } else if ((r.status === 'failed' || r.status === 'crashed') && r.failedAtNs !== undefined && BigInt(r.failedAtNs) > BigInt(first.atNs)) {
      r.consequenceOf = first.role;
    }
  }
  return first;
}
