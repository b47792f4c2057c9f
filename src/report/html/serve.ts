/**
 * `cann-harness show-report [dir]`: serves a report folder on 127.0.0.1 (never on other
 * interfaces) until Ctrl-C; the report itself needs no server (it opens from file://), this is for
 * remote shells (an ssh tunnel to the port).
 *
 * It serves only a report folder of the harness (marked by the writer, folder.ts). What it serves,
 * and to whom, is bounded because every local user can reach 127.0.0.1 and any web
 * page the user opens can aim a browser at it (DNS rebinding):
 * - only under a secret path (/<token>/, 128 random bits, printed once): other local users and web
 *   pages cannot guess the URL;
 * - only when the Host header names this server (127.0.0.1, localhost or [::1] with its port): a
 *   rebound DNS name is refused;
 * - only regular files inside the folder, with a report page's extension and no name starting with
 *   a dot, reached through no symbolic link at any depth: every component is lstat'ed (a directory,
 *   never a link), the file is opened O_NOFOLLOW and must be the regular file just checked;
 * - idle connections are bounded: headers within 5 s, a request within 10 s, keep-alive 5 s, and
 *   at most MAX_CONNECTIONS at once, the oldest idle one closed to make room for a new one (a
 *   client holding idle connections cannot lock a browser out).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, createReadStream, existsSync, fstatSync, lstatSync, openSync, realpathSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as path from 'node:path';
import { REPORT_MARKER, isReportFolder } from './folder';
import { INDEX_FILE } from './write';

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.png': 'image/png', '.json': 'application/json', '.css': 'text/css', '.js': 'text/javascript' };
/** Connections at once; a new one beyond closes the oldest idle one. */
export const MAX_CONNECTIONS = 32;
const HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:",
};

/** Bad input: no report at `dir`. */
export class NoReportError extends Error {}

/** The folder's real path when it is a report folder of the harness (folder.ts); else NoReportError naming the fix. */
export function checkReportDir(dir: string): string {
  const root = path.resolve(dir);
  if (!existsSync(path.join(root, INDEX_FILE))) {
    throw new NoReportError(`no HTML report in ${dir} (no ${INDEX_FILE}): write one with \`npx cann-harness run --html ${dir}\`, or give the report's folder`);
  }
  const real = realpathSync(root);
  // Only a folder the harness wrote: never a home or project folder that happens to hold an index.html.
  if (!isReportFolder(real)) {
    throw new NoReportError(`${dir} is not an HTML report folder of the harness (no ${REPORT_MARKER}): give the folder \`run --html\` wrote, or write one with \`npx cann-harness run --html DIR\``);
  }
  return real;
}

/** The Host values a browser sends for this server (a rebound DNS name is none of them). */
function allowedHosts(port: number): Set<string> {
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  return new Set([...names.map((h) => `${h}:${port}`), ...(port === 80 ? names : [])]);
}

/**
 * The open file descriptor of `root/rel` when it is a regular file reached through directories
 * only (no symbolic link at any depth), else null. `rel` is the decoded path under the token.
 */
function openInside(root: string, rel: string): { fd: number; size: number; type: string } | null {
  const parts = rel.split('/');
  if (parts[parts.length - 1] === '') parts[parts.length - 1] = INDEX_FILE;
  // No empty, dot or dot-dot component (no hidden file, no way out), no separator smuggled in a component.
  if (parts.some((p) => p === '' || p.startsWith('.') || p.includes('\\') || p.includes('\0'))) return null;
  if (!(path.extname(parts[parts.length - 1]) in TYPES)) return null;
  let at = root;
  for (const dir of parts.slice(0, -1)) {
    at = path.join(at, dir);
    if (!lstatSync(at, { throwIfNoEntry: false })?.isDirectory()) return null; // a link is not a directory to lstat
  }
  const file = path.join(at, parts[parts.length - 1]);
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (!st?.isFile()) return null;
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  const opened = fstatSync(fd);
  // The file opened is the one checked (not a name swapped meanwhile), and the path still has no link.
  if (!opened.isFile() || opened.ino !== st.ino || opened.dev !== st.dev || realpathSync(file) !== file) {
    closeSync(fd);
    return null;
  }
  return { fd, size: opened.size, type: TYPES[path.extname(file)] };
}

/** Closes the oldest idle connection when there are more than MAX_CONNECTIONS. */
function boundConnections(server: Server): void {
  const idle = new Set<Socket>(); // in insertion order: the oldest first
  let open = 0;
  server.on('connection', (socket: Socket) => {
    open++;
    idle.add(socket);
    socket.once('close', () => {
      open--;
      idle.delete(socket);
    });
    if (open > MAX_CONNECTIONS) {
      const oldest = idle.values().next().value;
      if (oldest && oldest !== socket) oldest.destroy();
    }
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    idle.delete(req.socket);
    res.once('finish', () => {
      if (!req.socket.destroyed) idle.add(req.socket);
    });
  });
}

/** Starts serving; resolves with the server and its URL (with the secret path) once it listens. */
export async function serveReport(dir: string, port = 0): Promise<{ server: Server; url: string }> {
  const root = checkReportDir(dir);
  const token = randomBytes(16).toString('hex');
  let hosts = new Set<string>();
  // Node checks the header and request deadlines every connectionsCheckingInterval (default 30 s).
  const server = createServer({ connectionsCheckingInterval: 1_000, headersTimeout: 5_000, requestTimeout: 10_000, keepAliveTimeout: 5_000 }, (req, res) => {
    const refuse = (code: number, text: string) => res.writeHead(code, { 'content-type': 'text/plain', connection: 'close', ...HEADERS }).end(text);
    if (!hosts.has((req.headers.host ?? '').toLowerCase())) return refuse(421, 'wrong Host: open the URL show-report printed');
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(405, 'GET only');
    let rel: string;
    try {
      const pathname = new URL(req.url ?? '/', 'http://x').pathname;
      if (!pathname.startsWith(`/${token}/`)) return refuse(404, 'not found');
      rel = decodeURIComponent(pathname.slice(token.length + 2));
    } catch {
      return refuse(400, 'bad path');
    }
    let opened: ReturnType<typeof openInside> = null;
    try {
      opened = openInside(root, rel);
    } catch {
      opened = null;
    }
    if (!opened) return refuse(404, 'not found');
    res.writeHead(200, { 'content-type': opened.type, 'content-length': opened.size, ...HEADERS });
    if (req.method === 'HEAD') {
      closeSync(opened.fd);
      res.end();
      return;
    }
    createReadStream('', { fd: opened.fd, autoClose: true }).pipe(res);
  });
  server.timeout = 10_000; // a socket silent this long is closed
  boundConnections(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      hosts = allowedHosts(bound);
      resolve({ server, url: `http://127.0.0.1:${bound}/${token}/` });
    });
  });
}
