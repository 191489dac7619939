// Shared by every browser test: a static file server for dist/ on loopback (with the headers a
// test asks for, e.g. a strict CSP) and Debian's Chromium driven by playwright-core.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** The built site: dist/, or DIST_DIR when a build lives elsewhere (as for the screenshots script). */
export const distDir = process.env.DIST_DIR ? resolve(process.env.DIST_DIR) : resolve(import.meta.dirname, '..', '..', 'dist');

const mimeTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
};

export interface StaticServer {
  url: string;
  close(): Promise<void>;
  /** Every path requested, in order. */
  requests: string[];
}

export interface ServeOptions {
  root?: string;
  headers?: (path: string) => Record<string, string>;
  /** Extra routes answered before the file system (host pages written by a test; a 404 or damaged file). */
  routes?: Record<string, { body: string | Uint8Array; type?: string; status?: number }>;
}

export async function serve(options: ServeOptions = {}): Promise<StaticServer> {
  const root = options.root ?? distDir;
  if (!existsSync(join(root, 'index.html')) && !options.routes)
    throw new Error(`${root} has no index.html: run \`npm run build\` first`);
  const requests: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    const extra = options.headers?.(path) ?? {};
    if (path === '/favicon.ico') {
      res.writeHead(204).end(); // browsers ask every origin for one; not a page error
      return;
    }
    const route = options.routes?.[path];
    if (route) {
      res.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'text/html; charset=utf-8', ...extra });
      res.end(route.body);
      return;
    }
    let file = normalize(join(root, path));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': mimeTypes[extname(file)] ?? 'application/octet-stream', ...extra });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** @param extraArgs e.g. ['--js-flags=--expose-gc', '--enable-precise-memory-info'] for the memory test. */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-quic', ...extraArgs,
    ],
  });
}

/** Collects console errors and uncaught page errors; tests assert the list is empty. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  return errors;
}
