/**
 * cann-harness run's in-place progress on a TTY (issue #11, item 4), with fake TTY streams: the
 * block is drawn, redrawn in place (cursor up + erase), erased before any other write to the
 * shared terminal and drawn again after it, cut to the terminal's width, and erased at the end.
 */
import { progressFile, PROGRESS_DIR_ENV, type RunProgress } from '../../src/orchestrator/progress-file';
import { LiveBlock, type TtyLike } from '../../src/report/live-block';
import { formatBlock, startProgress } from '../../src/report/progress';

function fakeTty(columns = 80): TtyLike & { chunks: string[]; text(): string } {
  const chunks: string[] = [];
  return {
    isTTY: true,
    columns,
    chunks,
    write(chunk: string | Uint8Array) {
      chunks.push(String(chunk));
      return true;
    },
    text: () => chunks.join(''),
  };
}

const nextTurn = () => new Promise((r) => setImmediate(r));
const UP_ERASE = (n: number) => `\x1b[${n}A\x1b[0J`;

test('draws, redraws in place, and erases itself around other writes', async () => {
  const err = fakeTty();
  const stdout = fakeTty();
  const block = new LiveBlock(err, [stdout, err]);
  block.render(['[running 3 s] scenario "a"', '    p: running']);
  expect(err.chunks).toEqual(['[running 3 s] scenario "a"\n    p: running\n']);
  block.render(['[running 4 s] scenario "a"', '    p: passed', '    q: running']);
  expect(err.chunks[1]).toBe(`${UP_ERASE(2)}[running 4 s] scenario "a"\n    p: passed\n    q: running\n`);

  // A reporter line on stdout (the same terminal): the block is erased first, the line goes out as is.
  stdout.write('✓ spec › scenario "b"\n');
  expect(err.chunks[2]).toBe(UP_ERASE(3));
  expect(stdout.chunks).toEqual(['✓ spec › scenario "b"\n']);
  // ... and the block comes back below it on the next turn of the event loop, once per burst of writes.
  err.write('some stderr line\n');
  expect(err.chunks.slice(3)).toEqual(['some stderr line\n']); // already erased: nothing to erase twice
  await nextTurn();
  expect(err.chunks.slice(4)).toEqual(['[running 4 s] scenario "a"\n    p: passed\n    q: running\n']);

  block.close();
  expect(err.chunks[err.chunks.length - 1]).toBe(UP_ERASE(3));
  // Unhooked: later writes are not touched.
  const before = err.chunks.length;
  stdout.write('after\n');
  await nextTurn();
  expect(err.chunks.length).toBe(before);
});

test('a partial line written by someone else is never glued to the block: it waits for the newline', async () => {
  const err = fakeTty();
  const block = new LiveBlock(err);
  block.render(['[running 3 s] scenario "a"']);
  err.write('Determining test suites to run...');
  await nextTurn();
  block.render(['[running 4 s] scenario "a"']); // still mid-line: not drawn
  expect(err.chunks).toEqual(['[running 3 s] scenario "a"\n', UP_ERASE(1), 'Determining test suites to run...']);
  err.write(Buffer.from(' done\n'));
  await nextTurn();
  expect(err.chunks.slice(3)).toEqual([' done\n', '[running 4 s] scenario "a"\n']);
  block.close();
});

test('lines are cut to the terminal width, so each takes one row', () => {
  const err = fakeTty(20);
  const block = new LiveBlock(err);
  block.render(['0123456789abcdefghijklmnop', 'short']);
  expect(err.text()).toBe('0123456789abcdefgh…\nshort\n'); // 19 columns used: the cursor never wraps
  block.render([]);
  expect(err.chunks[1]).toBe(UP_ERASE(2));
  block.close();
  expect(err.chunks.length).toBe(2); // nothing shown, nothing to erase
  // A pseudo-terminal without a window size says 0 columns: 80 is assumed, not 10.
  const pty = fakeTty(0);
  new LiveBlock(pty).render(['x'.repeat(79), 'y'.repeat(80)]);
  expect(pty.text()).toBe(`${'x'.repeat(79)}\n${'y'.repeat(78)}…\n`);
});

test('formatBlock: scenarios over the quiet time, one line per role, at most maxLines', () => {
  const runs: RunProgress[] = [
    { label: 'scenario "late"', startedAt: 9_000, roles: { a: 'running' } },
    { label: 'scenario "old"', startedAt: 1_000, roles: { p: 'waiting for signal "go" from c', c: 'passed' } },
  ];
  expect(formatBlock(runs, 11_400, 2_000)).toEqual([
    '[running 10 s] scenario "old"',
    '    p: waiting for signal "go" from c',
    '    c: passed',
    '[running 2 s] scenario "late"',
    '    a: running',
  ]);
  expect(formatBlock(runs, 10_000, 2_000)).toEqual(['[running 9 s] scenario "old"', '    p: waiting for signal "go" from c', '    c: passed']);
  expect(formatBlock(runs, 11_400, 2_000, 3)).toEqual([
    '[running 10 s] scenario "old"',
    '    p: waiting for signal "go" from c',
    '    … 3 more line(s) (2 scenario(s) running)',
  ]);
});

test('startProgress on a TTY: the block shows the running scenario and is erased at stop', async () => {
  const err = fakeTty();
  let now = 0;
  const progress = startProgress({ out: err, hooked: [err], intervalMs: 10, now: () => now });
  try {
    const run = progressFile('scenario "slow"', ['producer'], process.env)!;
    now = Date.now() + 3_000;
    run.onEvent({ type: 'started', role: 'producer', device: 0, pid: 1, dir: '/d' });
    const deadline = Date.now() + 5_000;
    while (!err.text().includes('producer: running') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(err.chunks[0]).toBe('[running 3 s] scenario "slow"\n    producer: running\n');
    run.close();
  } finally {
    progress.stop();
  }
  expect(err.chunks[err.chunks.length - 1]).toBe(UP_ERASE(2));
  expect(process.env[PROGRESS_DIR_ENV]).toBeUndefined();
});

test('not a TTY: appended lines, no ANSI sequences', async () => {
  const out = { ...fakeTty(), isTTY: false };
  const progress = startProgress({ out, intervalMs: 10, now: () => Date.now() + 6_000 });
  const run = progressFile('scenario "ci"', ['a'], process.env)!;
  try {
    const deadline = Date.now() + 5_000;
    while (out.chunks.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(out.chunks[0]).toMatch(/^\[running [56] s\] scenario "ci" \| a: starting\n$/);
    expect(out.text()).not.toContain('\x1b[');
  } finally {
    run.close();
    progress.stop();
  }
});
