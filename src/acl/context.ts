/**
 * A context of the binding (aclrtContext). As in CANN, each thread has one current context: the
 * primary context of the device it last set (setDevice), or one made current by createContext /
 * setCurrentContext. A stream belongs to the context current when it was created; calls on it from
 * another context fail with 107003, and a thread with no current context gets 107002.
 */
import type { Ptr } from './native';
import { Owned } from './owned';
import type { RuntimeCore } from './core';
import type { AclContext } from './types';

/** The binding's AclContext: owns the aclrtContext handle and destroys it once. */
export class AclContextImpl extends Owned<RuntimeCore> implements AclContext {
  readonly kind = 'context';

  constructor(
    rt: RuntimeCore,
    ptr: Ptr,
    readonly device: number,
  ) {
    super(rt, ptr);
  }

  destroy(): void {
    const c = this.handleFor('aclrtDestroyContext');
    this.rt.check(this.rt.raw.aclrtDestroyContext(c), 'aclrtDestroyContext', this.describe());
    this.retire(this.destroyedBy('aclrtDestroyContext'));
    this.rt.forgetContext(this.ptr, this);
  }
}
