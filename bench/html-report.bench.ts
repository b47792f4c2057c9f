/**
 * Size and opening time of the HTML report (issue #23): a report of BENCH_HTML_SCENARIOS (default
 * 500) scenario runs, as `run --repeat-each 500 --trace --html` writes them, built from synthetic
 * records in the stub's trace format (3 roles, 3 x 40 traced tasks with release arrows, every
 * tenth run a timeout with a wait-for graph): every page keeps its timeline, the worst case for size.
 * Prints the folder's size (target < 20 MB) and the time headless Chromium takes to load the index
 * (target < 2 s) and a scenario page, each also as a ratio to a baseline measured in the same run:
 * an empty page (the browser's own cost). Run: npm run bench -- html-report.
 */
import { accessSync, constants, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFileSync } from 'node:fs';
import type { RunResult } from '../src/orchestrator';
import { buildModels, type CaseResult } from '../src/report/html/model';
import { HTML_RECORD_SCHEMA, type ScenarioRecord } from '../src/report/html/record';
import { writeHtmlReport } from '../src/report/html/write';

const N = Number(process.env.BENCH_HTML_SCENARIOS ?? 500);
const ROUNDS = 5;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function traceOf(pid: number, device: number, producer: boolean, t0: number): string {
  const lines: string[] = [];
  for (let task = 1; task <= 40; task++) {
    const kind = producer ? 'ipc_record' : 'ipc_wait';
    const t = t0 + task * 50_000;
    for (const [op, dt] of [['submit', 0], ['start', 10_000], ['end', producer ? 12_000 : 30_000]] as const) {
      lines.push(JSON.stringify({ t: t + dt, pid, tid: pid, op, kind, device, stream: 1, task, event: 1, slot: task % 4, gen: task, ipc: 'a1b2c3d4e5f60718' }));
    }
  }
  return lines.join('\n');
}

function record(i: number): { c: CaseResult; r: ScenarioRecord } {
  const timeout = i % 10 === 0;
  const title = `soak scenario [repeat ${i + 1}/${N}]`;
  const base = 1e12 + i * 1e9;
  const roles = ['producer', 'consumer-0', 'consumer-1'].map((name, k) => ({
    name, device: k, index: k, pid: 1000 + i * 3 + k, status: (timeout ? 'timeout' : 'passed') as RunResult['roles'][number]['status'], exitCode: 0, signal: null, durationMs: 800,
    stdout: `${name}: step 1\n${name}: step 2\n`, stderr: '', marks: [{ name: 'ready', tNs: String(base + 5_000) }],
  }));
  const run: ScenarioRecord['run'] = {
    ok: !timeout, dir: '/tmp/x', kept: false, timedOut: timeout, durationMs: 900, startNs: String(base), roles,
    traces: roles.map((r, k) => ({ pid: r.pid, role: r.name, jsonl: traceOf(r.pid, k, k === 0, base) })),
  };
  if (timeout) {
    run.deadlineNs = String(base + 2_500_000);
    run.waitGraph = { chains: [{ roles: ['producer', 'consumer-0'], deadlock: true, text: 'deadlock: producer awaits x from consumer-0 ← consumer-0 ... ← (back to producer)' }], deadlock: true, lines: ['wait-for graph at the deadline'], calls: {}, sources: {} };
  }
  return {
    c: { specFile: '/p/soak.spec.ts', file: 'soak.spec.ts', title, status: timeout ? 'failed' : 'passed', durationMs: 900, attempts: 1, failureMessages: timeout ? ['timed out'] : [] },
    r: { schema: HTML_RECORD_SCHEMA, specFile: '/p/soak.spec.ts', title, scenario: 'soak scenario', mode: 'stub', jitter: `${i + 1}:200`, replay: 'npx cann-harness run', writtenAt: i, run },
  };
}

function folderBytes(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).reduce((n, e) => n + statSync(path.join(e.parentPath, e.name)).size, 0);
}

function findChromium(): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const name of ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']) {
      try {
        accessSync(path.join(dir, name), constants.X_OK);
        return path.join(dir, name);
      } catch {
        // not here
      }
    }
  }
  return null;
}

async function main(): Promise<void> {
  const out = mkdtempSync(path.join(os.tmpdir(), 'cann-html-bench-'));
  try {
    const made = Array.from({ length: N }, (_, i) => record(i));
    const t0 = process.hrtime.bigint();
    const { index, scenarios } = buildModels(made.map((m) => m.c), made.map((m) => m.r), { mode: 'stub', library: 'libascendcl.so', devices: 8, durationMs: 1, startedAt: 0, rerun: 'npx cann-harness run', loadErrors: [] });
    const indexFile = writeHtmlReport(path.join(out, 'html'), index, scenarios);
    const writeMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const bytes = folderBytes(path.join(out, 'html'));
    const mb = bytes / 1024 / 1024;
    console.log(`html report of ${N} scenarios: ${mb.toFixed(2)} MB in ${scenarios.length + 1} files (index ${(statSync(indexFile).size / 1024).toFixed(0)} KB), written in ${writeMs.toFixed(0)} ms; target < 20 MB: ${mb < 20 ? 'ok' : 'OVER'}`);

    const chromium = findChromium();
    if (!chromium) {
      console.log('open time: skipped: no Chromium on PATH (Debian: apt-get install chromium)');
      return;
    }
    const empty = path.join(out, 'empty.html');
    writeFileSync(empty, '<!doctype html><title>empty</title>');
    const { chromium: launcher } = await import('playwright-core');
    const browser = await launcher.launch({ executablePath: chromium });
    try {
      const loadMs = async (file: string): Promise<number> => {
        const page = await browser.newPage();
        const t = process.hrtime.bigint();
        await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
        const ms = Number(process.hrtime.bigint() - t) / 1e6;
        await page.close();
        return ms;
      };
      const timeoutPage = path.join(out, 'html', scenarios[0].row.page!); // failed first: a timeout with its graph
      await loadMs(empty); // warm the browser
      const times: Record<'empty' | 'index' | 'scenario', number[]> = { empty: [], index: [], scenario: [] };
      for (let i = 0; i < ROUNDS; i++) {
        times.empty.push(await loadMs(empty));
        times.index.push(await loadMs(indexFile));
        times.scenario.push(await loadMs(timeoutPage));
      }
      const base = median(times.empty);
      console.log(`open in headless Chromium, median of ${ROUNDS} (${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}): empty page ${base.toFixed(0)} ms (baseline)`);
      for (const k of ['index', 'scenario'] as const) {
        const m = median(times[k]);
        console.log(`  ${k === 'index' ? 'index.html' : 'a scenario page (timeline + wait-for graph)'}: ${m.toFixed(0)} ms, ${(m / base).toFixed(1)}x the empty page${k === 'index' ? `; target < 2000 ms: ${m < 2000 ? 'ok' : 'OVER'}` : ''}`);
      }
    } finally {
      await browser.close();
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
