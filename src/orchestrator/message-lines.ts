/**
 * The parent's end of a child's message pipe (see protocol.ts): one JSON value per line, both ways.
 * A plain pipe rather than Node's fork() IPC channel: the channel makes every device process load
 * Node's child_process machinery at start-up (about 2 MiB RSS and a few ms of CPU each, see
 * docs/architecture.md, "What a device process loads"), and a child that writes its messages
 * synchronously has them in the pipe before it exits, so nothing needs flushing at the end.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';

/**
 * A message, or a line that is not JSON (`problem` quotes it: a harness bug, or something else
 * writing to the pipe), or `cutOffBytes`: the stream ended inside a line. The child ends every
 * line with a newline, so that is a process that died while writing (a crash, the OOM killer),
 * and what it was writing is not a message: its exit status says what happened.
 */
export type LineMessage = { ok: true; value: unknown } | { ok: false; problem: string } | { ok: false; cutOffBytes: number };

/** Calls `onMessage` for each complete line of `stream`, in order, and once for an unfinished last line. */
export function readMessageLines(stream: Readable, onMessage: (m: LineMessage) => void): void {
  const decoder = new StringDecoder('utf8');
  let pieces: string[] = []; // the current line so far (a large result spans many chunks)
  const take = (line: string) => {
    if (line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const shown = line.length > 200 ? `${line.slice(0, 200)}... (${line.length} chars)` : line;
      return onMessage({ ok: false, problem: `a line that is not JSON: ${JSON.stringify(shown)}` });
    }
    onMessage({ ok: true, value });
  };
  stream.on('data', (chunk: Buffer | string) => {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      pieces.push(text.slice(start, nl));
      const line = pieces.join('');
      pieces = [];
      start = nl + 1;
      take(line);
    }
    if (start < text.length) pieces.push(text.slice(start));
  });
  stream.on('end', () => {
    pieces.push(decoder.end());
    const rest = pieces.join('');
    pieces = [];
    if (rest !== '') onMessage({ ok: false, cutOffBytes: Buffer.byteLength(rest) });
  });
}

/** Writes one message as a line; a failure goes to `onError` (the child may be gone). */
export function writeMessageLine(stream: Writable, message: unknown, onError?: (err: Error) => void): void {
  if (stream.destroyed || stream.writableEnded) return onError?.(new Error('the message pipe is closed'));
  stream.write(`${JSON.stringify(message)}\n`, (err) => {
    if (err) onError?.(err);
  });
}
