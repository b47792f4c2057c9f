/**
 * AfterReturnGuard: a body's ctx behind a proxy, with the ctx calls still in flight and the switch
 * that closes it. A role's process ends soon after its body returns. A ctx call the body started
 * but did not await (`ctx.signal('x')` without await, a handle shared from a timer) may then never
 * happen, and the scenario would pass without it. This wrapper makes that visible:
 *  - when the body returns, every ctx call still in flight is listed, and the role fails;
 *  - any ctx use after the body returned throws, naming the call.
 */
export interface AfterReturnGuard<C extends object> {
  ctx: C;
  /** Descriptions of ctx calls whose promises have not settled yet. */
  pending(): string[];
  /** From now on every use of ctx throws. */
  close(): void;
}

export function guardAfterReturn<C extends object>(inner: C, role: string): AfterReturnGuard<C> {
  // The call and its arguments, described only when a body returned with calls in flight (rare):
  // a soak round makes several ctx calls a round.
  const inFlight = new Map<number, { prop: string; args: unknown[] }>();
  let next = 0;
  let closed = false;
  const refuse = (what: string): never => {
    throw new Error(`${role}: ctx.${what} was used after the role body returned; await every ctx call inside the body`);
  };
  const ctx = new Proxy(inner, {
    get(target, prop, receiver) {
      if (closed && typeof prop === 'string') refuse(prop);
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]) => {
        if (closed) refuse(`${prop}()`);
        const out = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (out && typeof (out as Promise<unknown>).then === 'function') {
          const id = next++;
          inFlight.set(id, { prop, args });
          const done = () => inFlight.delete(id);
          (out as Promise<unknown>).then(done, done);
        }
        return out;
      };
    },
  });
  const pending = () => [...inFlight.values()].map(({ prop, args }) => `ctx.${prop}(${args.map(describeArg).join(', ')})`);
  return { ctx, pending, close: () => (closed = true) };
}

function describeArg(a: unknown): string {
  if (typeof a === 'string') return JSON.stringify(a.length > 40 ? `${a.slice(0, 37)}...` : a);
  if (typeof a === 'number' || typeof a === 'boolean') return String(a);
  if (Array.isArray(a)) return `[${a.length}]`;
  return typeof a === 'object' && a !== null ? '{…}' : String(a);
}
