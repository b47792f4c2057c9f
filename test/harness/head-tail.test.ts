/**
 * The build step keeps the head and the tail of its output (harness/native-exec.ts HeadTail): never
 * more than `keep` bytes however the output arrives in chunks (a 64 KiB pipe read after small ones
 * left the tail one chunk too long: 324,409 bytes for a 256 KiB bound, seen in CI).
 */
import { HeadTail } from '../../harness/native-exec';

test('head and tail together stay within `keep`, whatever the chunk sizes, and say what was left out', () => {
  const keep = 1000;
  const ht = new HeadTail(keep);
  let total = 0;
  for (const size of [10, 700, 3, 65, 499, 501, 1, 4096, 2, 333, 777, 64]) {
    ht.push(Buffer.alloc(size, 'x'));
    total += size;
  }
  ht.push(Buffer.from('END'));
  total += 3;
  const text = ht.text();
  const m = /\n\[\.\.\. (\d+) bytes of output left out \.\.\.\]\n/.exec(text);
  expect(m).not.toBeNull();
  const kept = text.length - m![0].length;
  expect(kept).toBeLessThanOrEqual(keep);
  expect(kept + Number(m![1])).toBe(total);
  expect(text.endsWith('END')).toBe(true);
});
