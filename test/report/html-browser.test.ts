/**
 * The HTML report as a person sees it, in headless Chromium (playwright-core with the system's
 * browser), opened from file://: the report of a failing run (an ACL error, a deadlock, a pass)
 * and of a passing run with --trace. Screenshots of every page go to reports/html-screenshots/.
 * Without a browser the tests are reported skipped, with the reason in their titles.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { parseTraceLines } from '../../src/trace/stub-trace';
import { runCommand } from '../support/run-child';
import { NO_BROWSER_REASON, findChromium } from '../support/browser';

const repoRoot = path.resolve(__dirname, '..', '..');
const bin = path.join(repoRoot, 'bin', 'cann-harness.js');
const fixtures = path.join(repoRoot, 'test', 'jest', 'fixtures');
const screenshots = path.join(repoRoot, 'reports', 'html-screenshots');
const chromium = findChromium();
// Loading a page and taking a screenshot are work, not waits for something to appear: on a loaded
// machine they took longer than the pages' 5 s (seen failing three tests at a load average of 20).
const WORK_TIMEOUT_MS = 60_000;
const browserTest = chromium ? test : (name: string, fn: () => unknown) => test.skip(`${name} [skip: ${NO_BROWSER_REASON}]`, fn as () => void);

jest.setTimeout(180_000);

let out: string;
let browser: Browser;
let keptDirs: string[] = [];
let passingKept: string[] = [];
let failing: string;
let passing: string;

async function run(specs: string, report: string, extra: string[]): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return runCommand(process.execPath, [bin, 'run', '--mode', 'stub', '--specs', specs, '--junit', path.join(report, 'junit.xml'), '--html', path.join(report, 'html'), ...extra], { cwd: repoRoot, env: {} });
}

beforeAll(async () => {
  if (!chromium) return;
  out = mkdtempSync(path.join(os.tmpdir(), 'cann-html-test-'));
  failing = path.join(out, 'failing');
  passing = path.join(out, 'passing');
  const [f, p] = await Promise.all([run(path.join(fixtures, 'html-fail'), failing, []), run(path.join(fixtures, 'html-pass'), passing, ['--trace'])]);
  expect(f.code).toBe(1);
  expect(p.code).toBe(0);
  expect(f.stdout).toContain(`HTML report: ${path.relative(repoRoot, path.join(failing, 'html', 'index.html'))}`);
  // Kept scenario directories: the failed ones and the traced pass (removed in afterAll).
  const kept = (r: { stdout: string; stderr: string }) => [...`${r.stdout}\n${r.stderr}`.matchAll(/(?:kept directory|kept at):? (\/\S+?)(?=[\s)]|$)/g)].map((m) => m[1]);
  passingKept = kept(p);
  keptDirs = [...kept(f), ...passingKept];
  // (require: Jest's transform keeps import() as is, which Jest's module system cannot run)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { chromium: launcher } = require('playwright-core') as typeof import('playwright-core');
  browser = await launcher.launch({ executablePath: chromium });
  mkdirSync(screenshots, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  for (const d of new Set(keptDirs)) rmSync(d, { recursive: true, force: true });
  if (out) rmSync(out, { recursive: true, force: true });
});

/** Opens a page from file:// and fails on any console error or uncaught exception in it. */
async function open(file: string, shot: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(5000); // the pages are static: what is not there at once never comes
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => {
    if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) errors.push(`network request: ${r.url()}`);
  });
  await page.goto(pathToFileURL(file).href, { timeout: WORK_TIMEOUT_MS });
  await page.screenshot({ path: path.join(screenshots, `${shot}.png`), fullPage: true, timeout: WORK_TIMEOUT_MS });
  return { page, errors };
}

function pageOf(report: string, index: string, title: string): string {
  const html = readFileSync(index, 'utf8');
  const m = new RegExp(`<a href="(scenarios/\\d+\\.html)">${title}</a>`).exec(html);
  if (!m) throw new Error(`no link to "${title}" in ${index}`);
  return path.join(report, 'html', m[1]);
}

/** Record → wait pairs in the stub traces of a kept scenario directory, counted from the raw lines. */
function releasePairs(dir: string): number {
  const lines = readdirSync(path.join(dir, 'trace'))
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => parseTraceLines(readFileSync(path.join(dir, 'trace', f), 'utf8')));
  const records = new Set(lines.filter((l) => l.op === 'end' && l.kind === 'ipc_record').map((l) => `${l.ipc}/${l.slot}/${l.gen}`));
  return lines.filter((l) => l.op === 'end' && l.kind === 'ipc_wait' && !l.note && records.has(`${l.ipc}/${l.slot}/${l.gen}`)).length;
}

browserTest('index of a failing run: failed scenarios first, no console errors, filters hide passing ones', async () => {
  const { page, errors } = await open(path.join(failing, 'html', 'index.html'), 'failing-index');
  const statuses = await page.$$eval('#scenarios tbody tr', (rows) => rows.map((r) => r.getAttribute('data-status')));
  expect(statuses).toEqual(['failed', 'failed', 'passed']);
  expect(await page.textContent('.totals')).toMatch(/1 passed.*2 failed/);
  const visible = () => page.$$eval('#scenarios tbody tr', (rows) => rows.filter((r) => (r as unknown as { offsetParent: unknown }).offsetParent !== null).map((r) => r.getAttribute('data-status')));
  await page.uncheck('input[data-filter="passed"]');
  expect(await visible()).toEqual(['failed', 'failed']);
  await page.check('input[data-filter="passed"]');
  await page.fill('#q', 'deadlock');
  expect(await visible()).toEqual(['failed']);
  expect(await page.textContent('#scenarios tbody tr:not([style*="none"])')).toContain('html: deadlock');
  await page.screenshot({ path: path.join(screenshots, 'failing-index-filtered.png'), fullPage: true, timeout: WORK_TIMEOUT_MS });
  expect(errors).toEqual([]);
});

browserTest("a failed scenario's page: each role's log, the ACL error by name, the role that failed first", async () => {
  const file = pageOf(failing, path.join(failing, 'html', 'index.html'), 'html: an ACL call fails in one role');
  const { page, errors } = await open(file, 'failing-acl-error');
  expect(await page.textContent('pre.log.stdout[data-role="opener"]')).toContain('opener: about to open a garbage handle');
  expect(await page.textContent('pre.log.stdout[data-role="waiter"]')).toContain('waiter: ready');
  expect(await page.isVisible('text=ACL_ERROR_RT_INVALID_HANDLE')).toBe(true);
  expect(await page.textContent('.role.first h3')).toContain('opener');
  expect(errors).toEqual([]);
});

browserTest('the wait-for graph of a deadlock names both roles, the cycle drawn in red', async () => {
  const file = pageOf(failing, path.join(failing, 'html', 'index.html'), 'html: deadlock');
  const { page, errors } = await open(file, 'failing-deadlock');
  const names = await page.$$eval('svg.wait-graph .wg-node.cycle text', (t) => t.map((x) => x.textContent));
  expect(names).toEqual(expect.arrayContaining(['producer', 'consumer']));
  expect(await page.$$eval('svg.wait-graph .wg-edge.cycle', (e) => e.length)).toBe(2);
  expect(await page.isVisible('svg.timeline')).toBe(true);
  await page.locator('#wait-graph svg').screenshot({ path: path.join(screenshots, 'wait-graph.png'), timeout: WORK_TIMEOUT_MS }); // the picture in docs/guide/html-report.md
  expect(errors).toEqual([]);
});

browserTest('a passing run with --trace: one arrow per record → wait pair in the trace', async () => {
  const index = path.join(passing, 'html', 'index.html');
  const { errors: indexErrors } = await open(index, 'passing-index');
  const file = pageOf(passing, index, 'html: a pending record releases two consumers');
  const { page, errors } = await open(file, 'passing-timeline');
  expect(passingKept).toHaveLength(1); // --trace keeps the passing scenario's directory
  const pairs = releasePairs(passingKept[0]);
  expect(pairs).toBe(2); // one record released both consumers
  expect(await page.$$eval('svg.timeline path.arrow', (a) => a.length)).toBe(pairs);
  await page.locator('#timeline').screenshot({ path: path.join(screenshots, 'timeline.png'), timeout: WORK_TIMEOUT_MS }); // the picture in docs/guide/html-report.md
  // Hover details and zoom. The narrowest wait bar: a short wait (released at once, or short next
  // to a run whose start-up was slow) lies under the end of its own release arrow, and still shows
  // its details (the arrows take no pointer: a person hovering it saw the arrow's).
  const narrowestWait = await page.$$eval('svg.timeline rect.bar', (bars) => {
    const WAIT_FILL = '#8250df'; // the colour of waits (COLORS in src/report/html/assets.ts)
    const waits = bars.map((b, i) => ({ i, fill: b.getAttribute('fill'), w: Number(b.getAttribute('width')) })).filter((b) => b.fill === WAIT_FILL);
    return waits.reduce((a, b) => (b.w < a.w ? b : a)).i;
  });
  // The shaded queue time of a later task may lie over a narrow bar: it takes no pointer either.
  expect(await page.$$eval('svg.timeline rect.queue', (q) => q.filter((r) => r.getAttribute('pointer-events') !== 'none').length)).toBe(0);
  await page.locator('svg.timeline rect.bar').nth(narrowestWait).hover();
  expect(await page.textContent('.tip')).toMatch(/^ipc_wait .*\nrole: consumer-\d@dev\d .*\n.*\nstart .*, took /);
  // An arrow's own details, from the middle of its path.
  type SvgPath = { getTotalLength(): number; getPointAtLength(l: number): { x: number; y: number }; getScreenCTM(): { a: number; d: number; e: number; f: number } };
  const arrowMiddle = await page.$eval('svg.timeline path.arrow-hit', (e) => {
    const p = e as unknown as SvgPath;
    const at = p.getPointAtLength(p.getTotalLength() / 2);
    const m = p.getScreenCTM();
    return { x: at.x * m.a + m.e, y: at.y * m.d + m.f };
  });
  await page.mouse.move(arrowMiddle.x, arrowMiddle.y);
  expect(await page.textContent('.tip')).toMatch(/^record in producer@dev0 .*released a wait in consumer-\d@dev\d/);
  const width = () => page.$eval('svg.timeline', (svg) => Number(svg.getAttribute('width')));
  const before = await width();
  await page.click('.zoom-in');
  expect(await width()).toBeGreaterThan(before + 500); // the plot doubled (the label column did not)
  expect(await page.$$eval('svg.timeline path.arrow', (a) => a.length)).toBe(pairs); // redrawn, not added
  expect(await page.$$eval('svg.timeline .lane-label', (l) => l.map((x) => x.textContent))).toEqual([expect.stringMatching(/^producer@dev0/), expect.stringMatching(/^consumer-0@dev1/), expect.stringMatching(/^consumer-1@dev2/)]);
  expect([...indexErrors, ...errors]).toEqual([]);
});
