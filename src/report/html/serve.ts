/**
 * `cann-harness show-report [dir]`: serves a report folder on 127.0.0.1 (never on other
 * interfaces) until Ctrl-C. Only files inside the folder are served, never through a symbolic
 * link; the report itself needs no server (it opens from file://), this is for remote shells.
 */
import { createReadStream, existsSync, lstatSync, realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { INDEX_FILE } from './write';

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.png': 'image/png', '.json': 'application/json', '.css': 'text/css', '.js': 'text/javascript' };

/** Bad input: no report at `dir`. */
export class NoReportError extends Error {}

export function checkReportDir(dir: string): string {
  const root = path.resolve(dir);
  if (!existsSync(path.join(root, INDEX_FILE))) {
    throw new NoReportError(`no HTML report in ${dir} (no ${INDEX_FILE}): write one with \`npx cann-harness run --html ${dir}\`, or give the report's folder`);
  }
  return realpathSync(root);
}

/** Starts serving; resolves with the server and its URL once it listens. */
export async function serveReport(dir: string, port = 0): Promise<{ server: Server; url: string }> {
  const root = checkReportDir(dir);
  const server = createServer((req, res) => {
    let rel: string;
    try {
      rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad path');
      return;
    }
    const file = path.join(root, rel.endsWith('/') ? `${rel}${INDEX_FILE}` : rel);
    const inside = file === root || file.startsWith(root + path.sep);
    let ok = false;
    try {
      ok = inside && req.method === 'GET' && lstatSync(file).isFile(); // lstat: a link is not served
    } catch {
      ok = false;
    }
    if (!ok) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  // Bounded: a page is a few files, so a few connections and short requests are plenty.
  server.maxConnections = 32;
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${bound}/` });
    });
  });
}
