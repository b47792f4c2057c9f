/**
 * Host arrays that a queued copy may still write (DeviceBuffer.readAsync). With a driver that keeps
 * pageable copies asynchronous (ACL_STUB_PAGEABLE=async on the stub) the copy can still be queued
 * when the call returns, so the binding keeps each array alive until its stream is synchronized,
 * or until aclFinalize, after which no stream runs.
 */
import type { Ptr } from './native';

const byStream = new Map<string, Uint8Array[]>();

/** The default stream (NULL) is the current device's own: keyed by device. */
function keyOf(stream: Ptr, device: number): string {
  return stream === null ? `default@${device}` : String(stream);
}

export function retainHostCopyTarget(stream: Ptr, device: number, target: Uint8Array): void {
  const key = keyOf(stream, device);
  const list = byStream.get(key);
  if (list) list.push(target);
  else byStream.set(key, [target]);
}

/** After a successful synchronize of the stream: its copies have run. */
export function releaseHostCopyTargetsOf(stream: Ptr, device: number): void {
  byStream.delete(keyOf(stream, device));
}

/** After aclFinalize: no queued copy can write host memory any more. */
export function releaseAllHostCopyTargets(): void {
  byStream.clear();
}

/** How many arrays are kept (tests). */
export function retainedHostCopyTargets(): number {
  let n = 0;
  for (const list of byStream.values()) n += list.length;
  return n;
}
