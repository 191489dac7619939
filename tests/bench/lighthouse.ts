// `npm run lighthouse`: Lighthouse 12 on the built walkthrough, as a check to run by hand (not part of
// `npm test`; a score is a measurement, not an assertion).
//
//   npm run lighthouse                  dist/ as built (run `npx vite build` first; nothing is built here)
//   npm run lighthouse -- --runs=5      the median of 5 runs instead of 3
//   npm run lighthouse -- --dir=path    another build of the site
//   npm run lighthouse -- --keep        keep each run's JSON report in build/lighthouse/
//
// Serves the site gzipped (as any real host does: Lighthouse's transfer sizes and its simulated slow
// network then count compressed bytes) on a loopback port, runs Lighthouse's default mobile profile in
// Debian's Chromium, and prints the median of each category's score and of CLS, TBT, LCP and the DOM size.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const LIGHTHOUSE = 'lighthouse@12.8.2';
const CHROMIUM = '/usr/bin/chromium';
const root = resolve(import.meta.dirname, '..', '..');
const option = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const runs = Number(option('runs') ?? 3);
const site = resolve(option('dir') ?? join(root, 'dist'));
const keep = process.argv.includes('--keep');
const reports = join(root, 'build', 'lighthouse');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};
/** What a host compresses: text and the wasm (images and the weights' floats barely shrink). */
const COMPRESSED = new Set(['.html', '.js', '.css', '.wasm', '.json', '.svg']);

if (!existsSync(join(site, 'index.html'))) {
  console.error(`${site} has no index.html: build the site first (npx vite build && npm run build:embed)`);
  process.exit(1);
}

/** Each file read and compressed once: the timings then measure the page, not this server. */
const cache = new Map<string, { body: Buffer; gzipped: boolean }>();
function fileAt(path: string): { body: Buffer; gzipped: boolean } {
  let entry = cache.get(path);
  if (!entry) {
    const raw = readFileSync(path);
    const gzipped = COMPRESSED.has(extname(path));
    entry = { body: gzipped ? gzipSync(raw, { level: 9 }) : raw, gzipped };
    cache.set(path, entry);
  }
  return entry;
}

const server = createServer((req, res) => {
  let file = normalize(join(site, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
  if (!file.startsWith(site)) return void res.writeHead(403).end();
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
  if (!existsSync(file)) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  const { body, gzipped } = fileAt(file);
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'cache-control': 'max-age=31536000',
    ...(gzipped ? { 'content-encoding': 'gzip', vary: 'accept-encoding' } : {}),
  });
  res.end(body);
});
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/index.html`;

interface Run {
  performance: number;
  accessibility: number;
  'best-practices': number;
  seo: number;
  cls: number;
  tbtMs: number;
  lcpMs: number;
  fcpMs: number;
  domElements: number;
  transferKiB: number;
}

/** One Lighthouse run in a child process (npx fetches the pinned version once). */
function lighthouse(index: number): Promise<Run> {
  const args = [
    '-y',
    LIGHTHOUSE,
    url,
    `--chrome-path=${CHROMIUM}`,
    '--chrome-flags=--headless=new --no-sandbox',
    '--output=json',
    '--output-path=stdout',
    '--quiet',
  ];
  // Asynchronous: a synchronous spawn would block this process, and with it the server Lighthouse loads from.
  const child = spawn('npx', args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => {
      if (code !== 0) return fail(new Error(`lighthouse exited with ${code}`));
      const text = Buffer.concat(chunks).toString('utf8');
      if (keep) {
        mkdirSync(reports, { recursive: true });
        writeFileSync(join(reports, `run-${index + 1}.json`), text);
      }
      const report = JSON.parse(text) as {
        runtimeError?: { message: string };
        categories: Record<string, { score: number | null }>;
        audits: Record<string, { numericValue?: number }>;
      };
      if (report.runtimeError) return fail(new Error(`lighthouse: ${report.runtimeError.message}`));
      const score = (id: string) => Math.round((report.categories[id]?.score ?? 0) * 100);
      const value = (id: string) => report.audits[id]?.numericValue ?? NaN;
      done({
        performance: score('performance'),
        accessibility: score('accessibility'),
        'best-practices': score('best-practices'),
        seo: score('seo'),
        cls: value('cumulative-layout-shift'),
        tbtMs: value('total-blocking-time'),
        lcpMs: value('largest-contentful-paint'),
        fcpMs: value('first-contentful-paint'),
        domElements: value('dom-size-insight') || value('dom-size'),
        transferKiB: value('total-byte-weight') / 1024,
      });
    });
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const results: Run[] = [];
try {
  for (let i = 0; i < runs; i++) {
    const run = await lighthouse(i);
    results.push(run);
    console.error(
      `run ${i + 1}/${runs}: performance ${run.performance}, accessibility ${run.accessibility}, best practices ${run['best-practices']}, SEO ${run.seo}; ` +
        `CLS ${run.cls.toFixed(3)}, TBT ${run.tbtMs.toFixed(0)} ms, LCP ${run.lcpMs.toFixed(0)} ms`,
    );
  }
} finally {
  server.close();
}

const m = (key: keyof Run) => median(results.map((run) => run[key]));
const lines = [
  `Lighthouse 12 (${LIGHTHOUSE}, mobile profile, ${CHROMIUM}), ${site} served gzipped; medians of ${runs} runs:`,
  `  performance     ${m('performance')}`,
  `  accessibility   ${m('accessibility')}`,
  `  best practices  ${m('best-practices')}`,
  `  SEO             ${m('seo')}`,
  `  CLS             ${m('cls').toFixed(3)}`,
  `  TBT             ${m('tbtMs').toFixed(0)} ms`,
  `  LCP             ${(m('lcpMs') / 1000).toFixed(2)} s (FCP ${(m('fcpMs') / 1000).toFixed(2)} s)`,
  `  DOM elements    ${m('domElements').toFixed(0)}`,
  `  transferred     ${m('transferKiB').toFixed(0)} KiB`,
];
console.log(lines.join('\n'));
