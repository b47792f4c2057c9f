/**
 * A stand-in ChildProcess whose events a test fires by hand, so event orders are forced rather
 * than hoped for. Its default pid is above pid_max on most systems: group signals to -pid fail
 * with ESRCH (ignored by the harness). Pass null for a spawn that got no pid.
 */
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { ChildProcess } from 'node:child_process';

export type ScriptedChild = EventEmitter & { pid?: number; stdout: PassThrough; stderr: PassThrough; connected: boolean; send: ChildProcess['send'] };

export function scriptedChild(pid: number | null = 2 ** 22 + 4242): ScriptedChild {
  const child = new EventEmitter() as ScriptedChild;
  child.pid = pid ?? undefined;
  child.connected = true;
  child.stdout = new PassThrough();
  child.stderr = new PassThrough();
  child.send = ((_m: unknown, cb?: (e: Error | null) => void) => {
    cb?.(null);
    return true;
  }) as ChildProcess['send'];
  return child;
}

export const asChildProcess = (child: ScriptedChild): ChildProcess => child as unknown as ChildProcess;
