/** `cann-harness show-report`: the report served on 127.0.0.1 only, inside its folder only, until Ctrl-C. */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NoReportError, serveReport } from '../../src/report/html/serve';

const repoRoot = path.resolve(__dirname, '..', '..');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cann-html-serve-'));
  mkdirSync(path.join(dir, 'report', 'scenarios'), { recursive: true });
  writeFileSync(path.join(dir, 'report', 'index.html'), '<!doctype html><title>index</title>');
  writeFileSync(path.join(dir, 'report', 'scenarios', '0.html'), '<!doctype html><title>zero</title>');
  writeFileSync(path.join(dir, 'secret.txt'), 'not yours');
  symlinkSync(path.join(dir, 'secret.txt'), path.join(dir, 'report', 'link.html'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('serves the folder on 127.0.0.1: pages yes; paths outside it and symbolic links no', async () => {
  const { server, url } = await serveReport(path.join(dir, 'report'));
  try {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const index = await fetch(url);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await index.text()).toContain('<title>index</title>');
    expect(await (await fetch(`${url}scenarios/0.html`)).text()).toContain('zero');
    expect((await fetch(`${url}link.html`)).status).toBe(404);
    expect((await fetch(`${url}..%2fsecret.txt`)).status).toBe(404); // decoded: /../secret.txt
    expect((await fetch(`${url}nothing.html`)).status).toBe(404);
  } finally {
    server.close();
  }
});

test('a folder without a report is refused with the command that writes one', async () => {
  await expect(serveReport(path.join(dir, 'nothing'))).rejects.toThrow(NoReportError);
  await expect(serveReport(path.join(dir, 'nothing'))).rejects.toThrow(/no HTML report in .*nothing \(no index\.html\): write one with `npx cann-harness run --html/);
});

test('the command prints the URL, serves, and stops on SIGINT (Ctrl-C) with exit code 0', async () => {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'cann-harness.js'), 'show-report', path.join(dir, 'report')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /at (http:\/\/127\.0\.0\.1:\d+\/) \(Ctrl-C stops it\)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`show-report exited (${code}) before serving: ${out}`)));
  });
  expect(await (await fetch(url)).text()).toContain('<title>index</title>');
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  expect(await exited).toBe(0);
}, 30_000);
