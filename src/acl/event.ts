/** An event of the binding (aclrtEvent): record, reset, query, synchronize, time, IPC handle, destroy. */
import type { EventRecordedStatus, EventStatus, EventWaitStatus } from './enums';
import { IpcEventHandle } from './ipc-handle';
import type { Ptr } from './native';
import { Owned } from './owned';
import { recordCall } from './call-record';
import { checkInt, INT32_MAX, INT32_MIN, type RuntimeCore } from './core';
import type { Event, Stream } from './types';

export class EventImpl extends Owned<RuntimeCore> implements Event {
  readonly kind = 'event';

  constructor(
    rt: RuntimeCore,
    ptr: Ptr,
    readonly isIpc: boolean,
    readonly device: number,
  ) {
    super(rt, ptr);
  }

  record(stream?: Stream): void {
    this.onStream('aclrtRecordEvent', stream, (e, s) => this.rt.raw.aclrtRecordEvent(e, s));
  }

  reset(stream?: Stream): void {
    this.onStream('aclrtResetEvent', stream, (e, s) => this.rt.raw.aclrtResetEvent(e, s));
  }

  private onStream(call: string, stream: Stream | undefined, fn: (e: Ptr, s: Ptr) => number): void {
    const st = stream === undefined ? null : this.rt.ownStream(stream, call);
    const args = `${this.describe()}, ${st ? st.describe() : 'stream=NULL(default)'}`;
    const e = this.handleFor(call, args);
    const s = st ? st.handleFor(call, args) : null;
    this.rt.check(fn(e, s), call, args);
  }

  queryStatus(): EventRecordedStatus {
    return this.queryOut('aclrtQueryEventStatus', (e, o) => this.rt.raw.aclrtQueryEventStatus(e, o));
  }

  query(): EventStatus {
    return this.queryOut('aclrtQueryEvent', (e, o) => this.rt.raw.aclrtQueryEvent(e, o));
  }

  queryWaitStatus(): EventWaitStatus {
    return this.queryOut('aclrtQueryEventWaitStatus', (e, o) => this.rt.raw.aclrtQueryEventWaitStatus(e, o));
  }

  private queryOut(call: string, fn: (e: Ptr, out: [number]) => number): number {
    const args = `${this.describe()}, status=&out`;
    const e = this.handleFor(call, args);
    const out: [number] = [-1];
    this.rt.check(fn(e, out), call, args);
    return out[0];
  }

  synchronize(timeoutMs?: number): void {
    if (timeoutMs === undefined) {
      const e = this.handleFor('aclrtSynchronizeEvent');
      const args = this.describe();
      this.rt.check(recordCall('aclrtSynchronizeEvent', args, () => this.rt.raw.aclrtSynchronizeEvent(e)), 'aclrtSynchronizeEvent', args);
    } else {
      const args = `${this.describe()}, timeout=${timeoutMs}`;
      const e = this.handleFor('aclrtSynchronizeEventWithTimeout', args);
      checkInt(timeoutMs, 'event synchronize timeout (ms)', INT32_MIN, INT32_MAX);
      const rc = recordCall('aclrtSynchronizeEventWithTimeout', args, () => this.rt.raw.aclrtSynchronizeEventWithTimeout(e, timeoutMs));
      this.rt.check(rc, 'aclrtSynchronizeEventWithTimeout', args);
    }
  }

  elapsedTime(end: Event): number {
    const endEvent = this.rt.ownEvent(end, 'elapsedTime');
    const args = `ms=&out, start${this.describe()}, end${endEvent.describe()}`.replace(/(start|end)event=/g, '$1Event=');
    const s = this.handleFor('aclrtEventElapsedTime', args);
    const e = endEvent.handleFor('aclrtEventElapsedTime', args);
    const ms: [number] = [0];
    this.rt.check(this.rt.raw.aclrtEventElapsedTime(ms, s, e), 'aclrtEventElapsedTime', args);
    return ms[0];
  }

  timestamp(): bigint {
    const args = `${this.describe()}, timestamp=&out`;
    const e = this.handleFor('aclrtEventGetTimestamp', args);
    const out = new BigUint64Array(1);
    this.rt.check(this.rt.raw.aclrtEventGetTimestamp(e, out), 'aclrtEventGetTimestamp', args);
    return out[0];
  }

  id(): number {
    const args = `${this.describe()}, eventId=&out`;
    const e = this.handleFor('aclrtGetEventId', args);
    const out: [number] = [0];
    this.rt.check(this.rt.raw.aclrtGetEventId(e, out), 'aclrtGetEventId', args);
    return out[0];
  }

  ipcHandle(): IpcEventHandle {
    const args = `${this.describe()}, handle=&out`;
    const e = this.handleFor('aclrtIpcGetEventHandle', args);
    const out: { reserved?: Uint8Array } = {};
    this.rt.check(this.rt.raw.aclrtIpcGetEventHandle(e, out), 'aclrtIpcGetEventHandle', args);
    if (!out.reserved) throw new Error('aclrtIpcGetEventHandle succeeded but koffi returned no handle bytes');
    return IpcEventHandle.fromBuffer(out.reserved);
  }

  destroy(): void {
    const e = this.handleFor('aclrtDestroyEvent');
    this.rt.check(this.rt.raw.aclrtDestroyEvent(e), 'aclrtDestroyEvent', this.describe());
    this.retire(this.destroyedBy('aclrtDestroyEvent'));
    this.rt.untrack(this);
  }
}
