/**
 * A stand-in ChildProcess whose events a test fires by hand, so event orders are forced rather
 * than hoped for. Its default pid is above pid_max on most systems: group signals to -pid fail
 * with ESRCH (ignored by the harness). Pass null for a spawn that got no pid.
 * Its message pipe (stdio[MESSAGE_FD]) records what the parent wrote; says() delivers a message
 * from the child at once (a synchronous 'data' event), so a test orders it against 'exit'/'close'.
 */
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import { MESSAGE_FD } from '../../src/wire/protocol';

export type ScriptedChild = EventEmitter & {
  pid?: number;
  stdout: PassThrough;
  stderr: PassThrough;
  stdio: (PassThrough | null)[];
  /** The lines the parent wrote to the message pipe. */
  written: string[];
};

export function scriptedChild(pid: number | null = 2 ** 22 + 4242): ScriptedChild {
  const child = new EventEmitter() as ScriptedChild;
  child.pid = pid ?? undefined;
  child.stdout = new PassThrough();
  child.stderr = new PassThrough();
  const messages = new PassThrough();
  child.written = [];
  messages.write = ((chunk: string, cb?: (e?: Error | null) => void) => {
    child.written.push(String(chunk));
    cb?.(null);
    return true;
  }) as PassThrough['write'];
  child.stdio = [null, child.stdout, child.stderr];
  child.stdio[MESSAGE_FD] = messages;
  return child;
}

/** The child writes a line to its message pipe: a message (JSON), or raw text with `{ raw }`. */
export function says(child: ScriptedChild, message: unknown, opts: { raw?: boolean } = {}): void {
  const line = opts.raw ? String(message) : JSON.stringify(message);
  child.stdio[MESSAGE_FD]!.emit('data', Buffer.from(`${line}\n`));
}

export const asChildProcess = (child: ScriptedChild): ChildProcess => child as unknown as ChildProcess;
