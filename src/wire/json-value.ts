/**
 * A role's returned value travels to the parent as JSON. JSON.stringify silently drops functions
 * and symbols (a role returning a function would "return" undefined): find them first and name
 * where they are, so the role fails with a clear message instead.
 */
export function unsendablePart(value: unknown, at = 'the value', seen = new Set<object>()): string | null {
  if (typeof value === 'function') return `${at} is a function`;
  if (typeof value === 'symbol') return `${at} is a symbol`;
  if (typeof value !== 'object' || value === null || seen.has(value)) return null;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return null; // e.g. Date, Buffer: JSON knows them
  seen.add(value);
  for (const [k, v] of Object.entries(value)) {
    const found = unsendablePart(v, Array.isArray(value) ? `${at}[${k}]` : `${at}.${k}`, seen);
    if (found) return found;
  }
  return null;
}

/** Throws when JSON cannot carry `value` to the parent process (`what`: which value, for the message). */
export function assertSendable(value: unknown, what: string): void {
  const unsendable = unsendablePart(value, what);
  if (unsendable) {
    throw new Error(`${unsendable}, which JSON cannot carry to the parent: return plain data (numbers, strings, arrays, objects)`);
  }
}
