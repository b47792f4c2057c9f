/**
 * The HTML report of rounds runs, C roles and passes that prove nothing (issue 33 items 1, 6, 7, 8),
 * as a person sees it in headless Chromium, opened from file:// (test/jest/fixtures/html-rounds):
 *  - a rounds run's page shows its rounds (count, rate, which round the timeline shows), the
 *    happens-before figures over all rounds and `--rounds K` in its replay line; a failed rounds
 *    run names the failing round and its verdict (unequal ctx.barrier() calls);
 *  - a pass whose every wait was a no-op is marked on the index and on its page;
 *  - the wait-for graph of two C roles blocked in cannharness_await_signal draws the cycle;
 *  - the timeline's axis is on round steps, its last label not cut, and the host-function colour
 *    is in the legend;
 *  - a host function still running at the deadline ends there, unfinished, not at the role's stop.
 * Screenshots go to reports/html-screenshots/ (rounds-*.png).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { TimelineModel } from '../../src/report/html/model';
import { runCommand } from '../support/run-child';
import { NO_BROWSER_REASON, findChromium } from '../support/browser';

const repoRoot = path.resolve(__dirname, '..', '..');
const bin = path.join(repoRoot, 'bin', 'cann-harness.js');
const screenshots = path.join(repoRoot, 'reports', 'html-screenshots');
const chromium = findChromium();
const WORK_TIMEOUT_MS = 60_000;
const browserTest = chromium
  ? test
  : (name: string, fn: () => unknown) => test.skip(`${name} [skip: ${NO_BROWSER_REASON}]`, fn as () => void);

jest.setTimeout(180_000);

let out: string;
let browser: Browser;
let index: string;
let keptDirs: string[] = [];

beforeAll(async () => {
  if (!chromium) return;
  out = mkdtempSync(path.join(os.tmpdir(), 'cann-html-rounds-'));
  const r = await runCommand(
    process.execPath,
    [
      bin, 'run', '--mode', 'stub', '--specs', path.join(repoRoot, 'test', 'jest', 'fixtures', 'html-rounds'),
      '--junit', path.join(out, 'junit.xml'), '--html', path.join(out, 'html'), '--trace',
    ],
    { cwd: repoRoot, env: {} },
  );
  expect(r.code).toBe(1); // three of the five fail on purpose
  keptDirs = [...`${r.stdout}\n${r.stderr}`.matchAll(/(?:kept directory|kept at):? (\/\S+?)(?=[\s)]|$)/g)].map((m) => m[1]);
  index = path.join(out, 'html', 'index.html');
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

async function open(file: string, shot: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(5000);
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(pathToFileURL(file).href, { timeout: WORK_TIMEOUT_MS });
  await page.screenshot({ path: path.join(screenshots, `${shot}.png`), fullPage: true, timeout: WORK_TIMEOUT_MS });
  return { page, errors };
}

function pageOf(title: string): string {
  const m = new RegExp(`<a href="(scenarios/\\d+\\.html)">${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}</a>`).exec(
    readFileSync(index, 'utf8'),
  );
  if (!m) throw new Error(`no link to "${title}" in ${index}`);
  return path.join(out, 'html', m[1]);
}

browserTest('the page of a passing rounds run shows its rounds, the figures over all of them and --rounds in the replay line', async () => {
  const { page, errors } = await open(pageOf('html: 30 rounds of a handoff'), 'rounds-passing');
  const facts = await page.textContent('.facts.rounds');
  expect(facts).toContain('rounds: 30 of 30 passed');
  expect(facts).toMatch(/rate: [\d,]+ rounds\/s/);
  expect(facts).toContain('the timeline shows round 30 (the last)');
  expect(await page.textContent('h2:has-text("Happens-before check")')).toContain('over all 30 rounds');
  // One wait per round, 30 of them: not "waits 0" after 30 checked rounds.
  expect(await page.textContent('h2:has-text("Happens-before check") ~ div.muted')).toMatch(/^tasks: \d{3,} · waits: 30 · /);
  expect(await page.textContent('text=replay:')).toMatch(/--rounds 30$/);
  expect(await page.$$eval('svg.timeline rect.bar', (b) => b.length)).toBeGreaterThan(0); // the last round's trace, kept
  // Axis ticks on round steps: every label a multiple of the step, the last one inside the plot.
  const labels = await page.$$eval('svg.timeline .axis-label', (l) =>
    l.map((x) => ({ text: x.textContent ?? '', right: x.getBoundingClientRect().right })),
  );
  const svgRight = await page.$eval('svg.timeline', (s) => s.getBoundingClientRect().right);
  expect(labels.length).toBeGreaterThan(3);
  for (const l of labels) expect(l.right).toBeLessThanOrEqual(svgRight);
  const values = labels.map((l) => Number(l.text.split(' ')[0]));
  const step = values[1] - values[0];
  expect([1, 2, 5]).toContain(Number((step / 10 ** Math.floor(Math.log10(step))).toFixed(6)));
  expect(await page.textContent('.legend')).toContain('host function');
  // One name per IPC event: the one it was shared under (as the wait-for graph names it), not the process's event id.
  const names = await page.$eval('#scenario-data', (d) =>
    (JSON.parse(d.textContent ?? '{}').timeline.bars as unknown[][]).map((b) => String(b[5])),
  );
  expect(names.filter((n) => n.startsWith('ipc_')).length).toBeGreaterThan(0);
  for (const n of names.filter((x) => x.startsWith('ipc_'))) expect(n).toMatch(/^ipc_(record|wait) "[^"]+"/);
  await page.locator('#timeline').screenshot({ path: path.join(screenshots, 'rounds-timeline.png'), timeout: WORK_TIMEOUT_MS });
  expect(errors).toEqual([]);
});

browserTest(
  'the page of a failed rounds run names the failing round, the timeline shows it, ' +
    'the verdict names the role with fewer ctx.barrier() calls',
  async () => {
    const { page, errors } = await open(pageOf('html: unequal ctx.barrier() calls'), 'rounds-failing');
    expect(await page.textContent('.facts.rounds')).toContain('round 3 failed after 2 of 5 passed');
    expect(await page.textContent('.facts.rounds')).not.toContain('the timeline shows'); // it has none: no device work
    expect(await page.textContent('text=replay:')).toMatch(/--rounds 3$/);
    expect(await page.textContent('.role.first h3')).toContain('skipper');
    expect(await page.textContent('.role.first')).toContain('this role called ctx.barrier() fewer times than role "steady" in round 3');
    expect(errors).toEqual([]);
  },
);

browserTest('a pass whose every wait was a no-op is marked on the index and on its page', async () => {
  const { page, errors } = await open(index, 'rounds-index');
  expect(await page.textContent('.totals')).toContain('1 passed with every wait a no-op (proves nothing)');
  expect(await page.textContent('tr[data-noop="1"]')).toContain('html: a wait that waits for nothing');
  expect(await page.$$eval('tr[data-noop="1"]', (r) => r.length)).toBe(1);
  expect(await page.textContent('tr:has-text("30 rounds of a handoff")')).toContain('30 rounds');
  const { page: scenario, errors: pageErrors } = await open(pageOf('html: a wait that waits for nothing'), 'rounds-noop');
  expect(await scenario.isVisible('.noop-banner')).toBe(true);
  expect(await scenario.textContent('.noop-banner')).toContain('it proves nothing about waits');
  expect([...errors, ...pageErrors]).toEqual([]);
});

browserTest('two C roles blocked in cannharness_await_signal for each other: the graph draws the cycle', async () => {
  const { page, errors } = await open(pageOf('html: two C roles await each other'), 'rounds-c-deadlock');
  expect(await page.$$eval('svg.wait-graph .wg-edge.cycle', (e) => e.length)).toBe(2);
  expect(await page.$$eval('svg.wait-graph .wg-node.cycle text', (t) => t.map((x) => x.textContent))).toEqual(
    expect.arrayContaining(['producer', 'consumer']),
  );
  expect(await page.textContent('#wait-graph + pre')).toContain('deadlock: producer (cannharness_await_signal');
  await page.locator('#wait-graph svg').screenshot({ path: path.join(screenshots, 'rounds-c-wait-graph.png'), timeout: WORK_TIMEOUT_MS });
  expect(errors).toEqual([]);
});

browserTest('a host function still running at the deadline is drawn up to it, unfinished, never past it', async () => {
  const { page, errors } = await open(pageOf('html: a host function still running at the deadline'), 'rounds-timeout-host-func');
  const tl = await page.$eval('#scenario-data', (d) => JSON.parse(d.textContent ?? '{}').timeline as TimelineModel);
  const hostFunc = tl.bars.filter((b) => b[6] === 'host_func');
  expect(hostFunc).toHaveLength(1);
  const [, , start, dur, , name, , unfinished] = hostFunc[0];
  // Its end line, when the exit released the latch, came ~the hang report after the deadline: not drawn.
  expect(unfinished).toBeGreaterThan(0);
  expect(name).toMatch(/\(unfinished at the deadline(: stopped by the harness)?\)$/);
  expect(start + dur).toBeCloseTo(tl.deadlineT!, 3);
  expect(tl.endT).toBeCloseTo(tl.deadlineT!, 3);
  // On screen: the bar's right edge is on the deadline line, not after it.
  const barRight = await page.$eval('svg.timeline rect.bar[stroke="#cf222e"]', (b) => b.getBoundingClientRect().right);
  const lines = await page.$$eval('svg.timeline line.vline', (l) =>
    l.map((x) => x.getBoundingClientRect().left + x.getBoundingClientRect().width / 2),
  );
  expect(lines.length).toBeGreaterThan(0);
  expect(Math.abs(barRight - Math.max(...lines))).toBeLessThanOrEqual(2);
  expect(await page.textContent('.legend')).toContain('unfinished at the deadline');
  await page.locator('#timeline').screenshot({ path: path.join(screenshots, 'rounds-timeout-host-func.png'), timeout: WORK_TIMEOUT_MS });
  expect(errors).toEqual([]);
});
