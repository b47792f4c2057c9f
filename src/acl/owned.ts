/**
 * Owned: a C object held by the binding (stream, event, device buffer, notify). It refuses any use
 * after destroy, free or finalize *before* calling C, so a stale pointer never reaches the runtime.
 */
import { AclError, AclErrorCode } from './errors';
import type { Ptr } from './native';

/** Why an object can no longer be used; checked before any call into C. */
export interface Dead {
  code: number;
  detail: string;
}

export const hex = (p: Ptr): string => (p === null || p === 0n ? 'NULL' : `0x${p.toString(16)}`);

export abstract class Owned<R = unknown> {
  abstract readonly kind: 'stream' | 'event' | 'buffer' | 'notify' | 'context';
  #dead: Dead | null = null;

  constructor(
    protected readonly rt: R,
    protected readonly ptr: Ptr,
  ) {}

  get destroyed(): boolean {
    return this.#dead !== null;
  }

  /** Summary for error messages, e.g. `stream=0x55d0c8a0` or `event=0x...(destroyed)`. */
  describe(): string {
    return `${this.kind}=${hex(this.ptr)}${this.#dead ? '(destroyed)' : ''}`;
  }

  /** The C handle, or an AclError without calling C when the object was destroyed. */
  handleFor(call: string, args?: string): Ptr {
    if (this.#dead) {
      throw new AclError({ code: this.#dead.code, call, args: args ?? this.describe(), detail: this.#dead.detail });
    }
    return this.ptr;
  }

  retire(dead: Dead): void {
    this.#dead ??= dead;
  }

  protected destroyedBy(call: string): Dead {
    return {
      code: AclErrorCode.ACL_ERROR_RT_INVALID_HANDLE,
      detail: `${this.kind} was destroyed (by ${call} in this process; the binding refused the call and did not pass the freed handle to the runtime)`,
    };
  }

  [Symbol.dispose](): void {
    if (!this.destroyed) this.destroy();
  }

  abstract destroy(): void;
}

