/** The parent's line framing of a child's message pipe (src/orchestrator/message-lines.ts). */
import { PassThrough } from 'node:stream';
import { readMessageLines, writeMessageLine, type LineMessage } from '../../src/orchestrator/message-lines';

function collect() {
  const stream = new PassThrough();
  const seen: LineMessage[] = [];
  readMessageLines(stream, (m) => seen.push(m));
  return { stream, seen };
}

test('lines split across chunks, several per chunk, and a multi-byte character cut between chunks', () => {
  const { stream, seen } = collect();
  const text = `${JSON.stringify({ a: 1 })}\n${JSON.stringify({ b: 'ü€' })}\n${JSON.stringify({ c: [3] })}\n`;
  const bytes = Buffer.from(text);
  const cut = bytes.indexOf(Buffer.from('€')) + 1; // inside the 3-byte character
  stream.emit('data', bytes.subarray(0, 5));
  stream.emit('data', bytes.subarray(5, cut));
  stream.emit('data', bytes.subarray(cut));
  expect(seen).toEqual([{ ok: true, value: { a: 1 } }, { ok: true, value: { b: 'ü€' } }, { ok: true, value: { c: [3] } }]);
});

test('a large message in many chunks arrives whole; a last line cut off by the end of the stream is not a message', async () => {
  const { stream, seen } = collect();
  const big = { payload: 'x'.repeat(1024 * 1024) };
  const bytes = Buffer.from(`${JSON.stringify(big)}\n{"type":"result","ok":true}`); // valid JSON, but no newline
  for (let i = 0; i < bytes.length; i += 65536) stream.emit('data', bytes.subarray(i, i + 65536));
  expect(seen).toHaveLength(1);
  stream.end();
  stream.resume();
  await new Promise((r) => stream.on('end', r));
  expect(seen).toEqual([{ ok: true, value: big }, { ok: false, cutOffBytes: 27 }]);
});

test('a line that is not JSON is reported, shortened, and the lines after it still arrive', () => {
  const { stream, seen } = collect();
  stream.emit('data', Buffer.from(`oops\n${'y'.repeat(300)}\n{"ok":1}\n\n`));
  expect(seen).toEqual([
    { ok: false, problem: 'a line that is not JSON: "oops"' },
    { ok: false, problem: `a line that is not JSON: "${'y'.repeat(200)}... (300 chars)"` },
    { ok: true, value: { ok: 1 } },
  ]);
});

test('writing: one line per message; a closed pipe is an error, not a throw', async () => {
  const stream = new PassThrough();
  writeMessageLine(stream, { type: 'job', job: { role: 'r' } });
  expect(stream.read().toString()).toBe('{"type":"job","job":{"role":"r"}}\n');
  stream.destroy();
  const err = await new Promise<Error>((r) => writeMessageLine(stream, {}, r));
  expect(err.message).toBe('the message pipe is closed');
});
