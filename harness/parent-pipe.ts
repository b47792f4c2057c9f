/**
 * The child's end of its message pipe (src/wire/protocol.ts): file descriptor MESSAGE_FD,
 * one JSON value per line. Both directions are synchronous on purpose: the job is needed before
 * anything else can happen, and a message written with writeSync is in the pipe when the call
 * returns, so the result cannot be lost to process.exit() and no flushing is needed at the end.
 * (The child's end is a blocking socket of its own: a write waits for the parent, which reads the
 * pipe until the child has exited.)
 */
import { fstatSync, readSync, writeSync } from 'node:fs';
import { MESSAGE_FD, type FromChild, type Job, type ToChild } from '../src/wire/protocol';

const BY_HAND = 'a device process is started by the orchestrator (runRoles, a scenario, cann-harness run), not by hand';

function notAPipe(what: string): Error {
  return new Error(`file descriptor ${MESSAGE_FD} is not a message pipe (${what}): ${BY_HAND}`);
}

const errCode = (e: unknown): string => (e as NodeJS.ErrnoException | undefined)?.code ?? String(e);

/**
 * The job the parent wrote as the first line of the pipe, or null when the pipe ended before a
 * whole line (the parent died before or while sending it). Throws a clear error when fd 3 is not
 * the orchestrator's socket (started by hand: then it is whatever Node or the shell opened there).
 */
export function readJob(): Job | null {
  try {
    // bigint: Node keeps the last plain stat in an array its realpath reuses for cached path parts
    // (and stops at a "socket" there): a socket's plain fstat here made a symlinked package's
    // require() return the unresolved path, i.e. a second copy of the library.
    if (!fstatSync(MESSAGE_FD, { bigint: true }).isSocket()) throw notAPipe('not a socket');
  } catch (e) {
    throw (e as Error).message.startsWith('file descriptor') ? e : notAPipe(errCode(e));
  }
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(MESSAGE_FD, buf, 0, buf.length, null);
    } catch (e) {
      throw notAPipe(errCode(e));
    }
    if (n === 0) return null;
    const nl = buf.subarray(0, n).indexOf(0x0a);
    chunks.push(Buffer.from(buf.subarray(0, nl === -1 ? n : nl)));
    if (nl !== -1) break;
  }
  let message: ToChild;
  try {
    message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ToChild;
  } catch {
    throw notAPipe('its first line is not JSON');
  }
  if (message?.type !== 'job') throw notAPipe(`its first message is not a job: ${JSON.stringify(message).slice(0, 200)}`);
  return message.job;
}

/** Writes one message to the parent; false if the parent is gone (EPIPE). */
export function sendToParent(message: FromChild | object): boolean {
  const bytes = Buffer.from(`${JSON.stringify(message)}\n`);
  try {
    for (let off = 0; off < bytes.length; ) off += writeSync(MESSAGE_FD, bytes, off);
    return true;
  } catch {
    return false; // nobody to tell: the parent watch takes an orphan down
  }
}
