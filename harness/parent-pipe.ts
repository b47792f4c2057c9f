/**
 * The child's end of its message pipe (src/orchestrator/protocol.ts): file descriptor MESSAGE_FD,
 * one JSON value per line. Both directions are synchronous on purpose: the job is needed before
 * anything else can happen, and a message written with writeSync is in the pipe when the call
 * returns, so the result cannot be lost to process.exit() and no flushing is needed at the end.
 * (Blocking is bounded by the parent, which reads the pipe until the child has exited.)
 */
import { readSync, writeSync } from 'node:fs';
import { MESSAGE_FD, type FromChild, type Job, type ToChild } from '../src/orchestrator/protocol';

/** A short sleep for a pipe that would block (EAGAIN: only if something made it non-blocking). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const errCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

/**
 * The job the parent wrote as the first line of the pipe, or null when the pipe ended first (the
 * parent died before sending it). Throws a clear error when fd 3 is not a pipe (started by hand).
 */
export function readJob(): Job | null {
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(MESSAGE_FD, buf, 0, buf.length, null);
    } catch (e) {
      if (errCode(e) === 'EAGAIN') {
        pause(1);
        continue;
      }
      // By hand, fd 3 is whatever Node opened first (an epoll or event fd: EINVAL), or an inherited file.
      throw new Error(
        `file descriptor ${MESSAGE_FD} is not a message pipe (${errCode(e) ?? (e as Error).message}): ` +
          'a device process is started by the orchestrator (runRoles, a scenario, cann-harness run), not by hand',
      );
    }
    if (n === 0) return null;
    const nl = buf.subarray(0, n).indexOf(0x0a);
    chunks.push(Buffer.from(buf.subarray(0, nl === -1 ? n : nl)));
    if (nl !== -1) break;
  }
  const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ToChild;
  if (message?.type !== 'job') throw new Error(`expected a job as the first message, got ${JSON.stringify(message)}`);
  return message.job;
}

/** Writes one message to the parent; false if the parent is gone (EPIPE) or there is no pipe. */
export function sendToParent(message: FromChild | object): boolean {
  const bytes = Buffer.from(`${JSON.stringify(message)}\n`);
  for (let off = 0; off < bytes.length; ) {
    try {
      off += writeSync(MESSAGE_FD, bytes, off);
    } catch (e) {
      if (errCode(e) === 'EAGAIN') {
        pause(1);
        continue;
      }
      return false; // EPIPE, EBADF: nobody to tell; the parent watch takes an orphan down
    }
  }
  return true;
}
