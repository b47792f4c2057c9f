/**
 * The trace read as a stream (soak rounds): each take() returns what every process wrote since the
 * last discard(), which empties the files (a round that fails its check keeps its trace on disk);
 * files that appear later are found; links are never followed.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TraceTail } from '../../src/trace/trace-tail';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'trace-tail-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** One checked round: take, then discard. */
const byPid = (tail: TraceTail) => {
  const taken = Object.fromEntries(tail.take().map((s) => [s.pid, s.jsonl]));
  tail.discard();
  return taken;
};

test('take returns what was written since the last discard, which empties the files', () => {
  const trace = path.join(dir, 'trace');
  mkdirSync(trace);
  writeFileSync(path.join(trace, 'trace-11.jsonl'), '{"a":1}\n');
  writeFileSync(path.join(trace, 'trace-12.jsonl'), '{"b":1}\n');
  writeFileSync(path.join(trace, 'notes.txt'), 'not a trace\n');
  const tail = new TraceTail(trace, (pid) => (pid === 11 ? 'producer' : null));
  try {
    const first = tail.take();
    expect(first.find((s) => s.pid === 11)).toEqual({ pid: 11, role: 'producer', jsonl: '{"a":1}\n' });
    // Not discarded (a round that failed its check): the files keep it.
    expect(readFileSync(path.join(trace, 'trace-11.jsonl'), 'utf8')).toBe('{"a":1}\n');
    tail.discard();
    expect(byPid(tail)).toEqual({}); // nothing new
    expect(readFileSync(path.join(trace, 'trace-11.jsonl'), 'utf8')).toBe('');
    // The stub appends (O_APPEND) after the truncation: the next take has only the new lines.
    appendFileSync(path.join(trace, 'trace-12.jsonl'), '{"b":2}\n');
    expect(byPid(tail)).toEqual({ 12: '{"b":2}\n' });
    // A process that starts later: its file is found (the directory changed).
    writeFileSync(path.join(trace, 'trace-13.jsonl'), '{"c":1}\n');
    expect(byPid(tail)).toEqual({ 13: '{"c":1}\n' });
    // A round's trace bigger than the read buffer comes whole.
    const big = `${'{"x":"' + 'y'.repeat(200) + '"}\n'}`.repeat(2000);
    appendFileSync(path.join(trace, 'trace-11.jsonl'), big);
    expect(byPid(tail)).toEqual({ 11: big });
  } finally {
    tail.close();
  }
});

test('a link named like a trace file is neither read nor emptied; no directory: nothing', () => {
  const trace = path.join(dir, 'trace');
  mkdirSync(trace);
  const outside = path.join(dir, 'outside.jsonl');
  writeFileSync(outside, '{"secret":1}\n');
  symlinkSync(outside, path.join(trace, 'trace-14.jsonl'));
  const tail = new TraceTail(trace);
  expect(tail.take()).toEqual([]);
  expect(readFileSync(outside, 'utf8')).toBe('{"secret":1}\n');
  tail.close();
  expect(new TraceTail(path.join(dir, 'absent')).take()).toEqual([]);
});
