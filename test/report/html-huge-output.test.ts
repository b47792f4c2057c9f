/**
 * Huge output (issue 36 item 5): 8 roles print 24 MB each ('<', which HTML escapes to 4 characters;
 * one role random bytes; one an 8 MiB line). The reports keep a bounded head and tail of each role's
 * streams and say where the rest is: the kept directory's full logs, streamed while the roles ran
 * (before, they held the last 8 MiB). The terminal and JUnit XML clip long lines. On the old code
 * the run wrote a 318 MB page, 33 MB of JUnit XML and an 8.4 MB line into the terminal (2.85 GB
 * RSS). Memory is measured, not asserted (see the commit body): this checks the sizes.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MAX_MESSAGE_LINE_CHARS } from '../../src/orchestrator/output-capture';
import { runCommand } from '../support/run-child';
import { EIGHT_DEVICES } from '../support/stub-devices';

const repoRoot = path.resolve(__dirname, '..', '..');
const bin = path.join(repoRoot, 'bin', 'cann-harness.js');
/** The stated bounds for 8 roles: the page keeps 64 KiB of each stream (x4 once escaped), the texts clip their lines. */
const MAX_HTML_BYTES = 4 * 1024 * 1024;
const MAX_TEXT_BYTES = 64 * 1024;

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'cann-huge-output-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function folderBytes(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce(
    (n, e) => n + (e.isDirectory() ? folderBytes(path.join(dir, e.name)) : statSync(path.join(dir, e.name)).size),
    0,
  );
}

test('8 roles x 24 MB of output: a report under 4 MiB that says where the logs are; terminal and JUnit lines clipped', async () => {
  const html = path.join(tmp, 'html');
  const junit = path.join(tmp, 'junit.xml');
  const r = await runCommand(
    process.execPath,
    [
      bin, 'run', '--mode', 'stub', '--specs', path.join(repoRoot, 'test', 'jest', 'fixtures', 'huge-output'),
      '--html', html, '--junit', junit,
    ],
    {
      cwd: repoRoot,
      env: { ...EIGHT_DEVICES, TMPDIR: tmp, CANN_TEST_HUGE_MB: '24' }, // the kept scenario directory goes with tmp
    },
  );
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: expect.not.stringContaining('Error') });
  expect(r.stdout).toContain('r7 fails after every role printed its output');

  expect(folderBytes(html)).toBeLessThan(MAX_HTML_BYTES);
  expect(statSync(junit).size).toBeLessThan(MAX_TEXT_BYTES);
  expect(Buffer.byteLength(r.stdout)).toBeLessThan(MAX_TEXT_BYTES);
  const longest = (text: string) => Math.max(...text.split('\n').map((l) => l.length));
  expect(longest(r.stdout)).toBeLessThan(MAX_MESSAGE_LINE_CHARS + 200); // the error's line (log lines: 400)
  expect(longest(readFileSync(junit, 'utf8'))).toBeLessThan(4 * MAX_MESSAGE_LINE_CHARS + 300); // '>' is &gt; in XML

  // The page shows each role's head and tail, and where the rest is (the kept directory's logs).
  const kept = /kept directory: (\S+)/.exec(r.stdout)![1];
  const page = readFileSync(path.join(html, 'scenarios', '0.html'), 'utf8');
  for (const role of ['r0', 'r6']) {
    const log = path.join(kept, 'logs', `${role}.stdout.log`);
    expect(page).toContain(`characters not shown here: the full log is in ${log} ...]`);
    // The whole stream (24 MiB; r6's random bytes as they came), not the last 8 MiB kept in memory.
    expect(statSync(log).size).toBe(24 * 1024 * 1024);
  }
  expect(page).toContain(`characters not shown here: the full log is in ${path.join(kept, 'logs', 'r1.stderr.log')} ...]`);
  expect(statSync(path.join(kept, 'logs', 'r1.stderr.log')).size).toBeGreaterThan(8 * 1024 * 1024);
  // the error's 1 MiB line
  expect(page).toContain(`characters not shown here: the whole text is in ${path.join(kept, 'result.json')} ...]`);
}, 240_000);
