/**
 * Marks as data: selectors (`<role>:<mark>`, where <role> is a role, a replicated group's key or
 * `*`), and intervals between marks in milliseconds. Marks from worker threads count for their role.
 */
import type { ScenarioMark } from './types';

export interface MarkedRole {
  name: string;
  group?: string;
  status?: string;
  marks: ScenarioMark[];
}

export interface FoundMark extends ScenarioMark {
  role: string;
  t: bigint;
}

export function parseSelector(selector: string): { role: string; mark: string } {
  const i = typeof selector === 'string' ? selector.indexOf(':') : -1;
  if (i <= 0 || i === selector.length - 1) {
    throw new Error(`mark selector ${JSON.stringify(selector)} must look like "<role>:<mark>", e.g. "producer:record-done" or "consumer:after-wait"`);
  }
  return { role: selector.slice(0, i), mark: selector.slice(i + 1) };
}

export function selectMarks(result: { roles: MarkedRole[] }, selector: string): FoundMark[] {
  const { role, mark } = parseSelector(selector);
  const found: FoundMark[] = [];
  for (const r of result.roles) {
    if (role !== '*' && r.name !== role && r.group !== role) continue;
    for (const m of r.marks) if (m.name === mark) found.push({ ...m, role: r.name, t: BigInt(m.tNs) });
  }
  return found;
}

/** One interval per role of `to`: from the `from` mark to that role's first `to` mark, in ms (CLOCK_MONOTONIC). */
export interface MarkInterval {
  role: string;
  ms: number;
}

/**
 * `result.between('producer:release', 'consumer:after-wait')`: for each role selected by `to`, the
 * milliseconds from the `from` mark to its first `to` mark. `from` must select exactly one mark
 * (one role, marked once), so that every interval starts at the same instant.
 */
export function marksBetween(result: { roles: MarkedRole[] }, from: string, to: string): MarkInterval[] {
  const start = selectMarks(result, from);
  if (start.length !== 1) {
    throw new Error(`between(${JSON.stringify(from)}, …): "${from}" must select exactly one mark, found ${start.length}: name one role that marks it once`);
  }
  const firstByRole = new Map<string, FoundMark>();
  for (const m of selectMarks(result, to)) if (!firstByRole.has(m.role) || m.t < firstByRole.get(m.role)!.t) firstByRole.set(m.role, m);
  if (firstByRole.size === 0) throw new Error(`between(…, ${JSON.stringify(to)}): no role has the mark "${to}"`);
  return [...firstByRole.values()].map((m) => ({ role: m.role, ms: Number(m.t - start[0].t) / 1e6 }));
}
