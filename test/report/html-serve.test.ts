/**
 * `cann-harness show-report`: the report served on 127.0.0.1 only, inside its folder only, through
 * no link at any depth, under a secret path, to requests naming this server (Host), with idle
 * connections bounded, until Ctrl-C (issue 36 item 2). The other local user is a uid that is not
 * ours (a child started with it, as root).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPORT_MARKER } from '../../src/report/html/folder';
import { MAX_CONNECTIONS, NoReportError, serveReport } from '../../src/report/html/serve';

const repoRoot = path.resolve(__dirname, '..', '..');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cann-html-serve-'));
  mkdirSync(path.join(dir, 'report', 'scenarios'), { recursive: true });
  writeFileSync(path.join(dir, 'report', 'index.html'), '<!doctype html><title>index</title>');
  writeFileSync(path.join(dir, 'report', REPORT_MARKER), 'cann-ipc-harness HTML report folder: the harness replaces index.html and scenarios/ here at every run.\n');
  writeFileSync(path.join(dir, 'report', 'scenarios', '0.html'), '<!doctype html><title>zero</title>');
  writeFileSync(path.join(dir, 'secret.txt'), 'not yours');
  symlinkSync(path.join(dir, 'secret.txt'), path.join(dir, 'report', 'link.html'));
  // Links to folders outside, at depth: the old server checked only the last component.
  mkdirSync(path.join(dir, 'outside'));
  writeFileSync(path.join(dir, 'outside', 'secret.html'), 'outside the report');
  symlinkSync(path.join(dir, 'outside'), path.join(dir, 'report', 'sub'));
  mkdirSync(path.join(dir, 'report', 'deep'));
  symlinkSync(path.join(dir, 'outside'), path.join(dir, 'report', 'deep', 'in'));
  symlinkSync('/proc/self', path.join(dir, 'report', 'proc'));
});

const asRoot = process.getuid?.() === 0;
const STRANGER = 61_234;

/** A GET with any Host header (fetch() sets its own). */
function get(url: string, host?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: host ? { host } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('serves the folder on 127.0.0.1: pages yes; paths outside it and symbolic links no', async () => {
  const { server, url } = await serveReport(path.join(dir, 'report'));
  try {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/$/);
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

test('never through a link at any depth: a folder linked from inside the report, /proc/self', async () => {
  const { server, url } = await serveReport(path.join(dir, 'report'));
  try {
    for (const rel of ['sub/secret.html', 'deep/in/secret.html', 'proc/environ', 'proc/cmdline', 'sub/', '.cann-harness-report']) {
      const r = await get(`${url}${rel}`);
      expect({ rel, status: r.status, leaked: r.body.includes('outside the report') }).toEqual({ rel, status: 404, leaked: false });
    }
    expect((await get(`${url}scenarios/0.html`)).status).toBe(200);
  } finally {
    server.close();
  }
});

test('a Host header naming another server (DNS rebinding) is refused; 127.0.0.1, localhost and [::1] with the port are served', async () => {
  const { server, url } = await serveReport(path.join(dir, 'report'));
  try {
    const port = new URL(url).port;
    expect((await get(url, `rebind.example:${port}`)).status).toBe(421);
    expect((await get(url, 'localhost')).status).toBe(421); // another port: another server
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) expect((await get(url, host)).status).toBe(200);
  } finally {
    server.close();
  }
});

(asRoot ? test : test.skip)('another local user cannot read the report: the URL holds a secret path', async () => {
  const { server, url } = await serveReport(path.join(dir, 'report'));
  try {
    const guess = `${new URL(url).origin}/`;
    const code = `Promise.all(process.argv.slice(1).map((u) => fetch(u).then((r) => r.status))).then((s) => console.log(JSON.stringify(s)))`;
    // Asynchronously: this process serves the requests.
    const stranger = spawn(process.execPath, ['-e', code, guess, `${guess}index.html`, `${guess}scenarios/0.html`], { uid: STRANGER, gid: STRANGER, cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    stranger.stdout.on('data', (d) => (stdout += d));
    stranger.stderr.on('data', (d) => (stderr += d));
    await new Promise((resolve) => stranger.once('close', resolve));
    expect({ stdout: stdout.trim(), stderr }).toEqual({ stdout: '[404,404,404]', stderr: '' });
  } finally {
    server.close();
  }
});

test('idle connections cannot lock a browser out: the oldest idle one makes room', async () => {
  const { server, url } = await serveReport(path.join(dir, 'report'));
  const idle: Socket[] = [];
  try {
    const { port } = new URL(url);
    for (let i = 0; i < 64; i++) {
      idle.push(await new Promise<Socket>((resolve, reject) => {
        const s = connect(Number(port), '127.0.0.1', () => resolve(s));
        s.on('error', () => undefined); // closed by the server to make room
        s.once('error', reject);
      }));
    }
    expect((await get(url)).status).toBe(200); // at once, not after a timeout frees a connection
    const open = await new Promise<number>((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
    expect(open).toBeLessThanOrEqual(MAX_CONNECTIONS); // the oldest idle ones were closed: bounded
  } finally {
    for (const s of idle) s.destroy();
    server.close();
  }
});

test('a folder the harness did not write is not served, even with an index.html', async () => {
  const project = path.join(dir, 'project');
  mkdirSync(project);
  writeFileSync(path.join(project, 'index.html'), '<p>mine</p>');
  writeFileSync(path.join(project, 'secrets.json'), '{}');
  await expect(serveReport(project)).rejects.toThrow(NoReportError);
  await expect(serveReport(project)).rejects.toThrow(/project is not an HTML report folder of the harness \(no \.cann-harness-report\): give the folder `run --html` wrote/);
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
      const m = /at (http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/) \(Ctrl-C stops it\)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`show-report exited (${code}) before serving: ${out}`)));
  });
  expect(await (await fetch(url)).text()).toContain('<title>index</title>');
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  expect(await exited).toBe(0);
}, 30_000);
