// The Chromium half of the benchmark, driven from run.ts:
//   1. the kernel suite in the bench page (tests/bench/page, built here with Vite), one renderer process;
//   2. the walkthrough itself (the site, built here into build/bench/site): time from a real click on
//      the causal checkbox inside <attention-walkthrough> to the next painted frame, 100 times, at the
//      default settings and at 256 words / 8 heads; and first load: bytes transferred, wasm size
//      gzipped, time until document.documentElement.dataset.ready === 'true'.
// Browser and static server come from the browser tests' harness (Debian's Chromium, loopback only).
import { copyFileSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { goLive, serve } from '../browser/harness';
import { median, quantile } from './data';
import { buildPage } from './pages';
import { measureChanges, measureFirstLoad } from './latency';
import { READER_MODELS, type ReaderTiming } from './reader-timing';
import type { EnvironmentResult } from './setup';

const root = resolve(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
export const benchDir = join(root, 'build', 'bench');
const pageDir = join(benchDir, 'page');
export const siteDir = join(benchDir, 'site');

// Cross-origin isolation: onnxruntime-web's wasm declares shared memory, which Chromium instantiates
// only in isolated pages. Every participant still runs single-threaded.
const isolated = () => ({ 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' });

/** The kernel suite's page (tests/bench/page) into build/bench/page, with every peer's .wasm and the reader models beside it. */
export async function buildBenchPage(): Promise<void> {
  await buildPage(join(root, 'tests', 'bench', 'page'), pageDir, 'benchmark');
  const ortDist = dirname(require.resolve('onnxruntime-web')); // .../dist (the package exports no package.json)
  copyFileSync(join(ortDist, 'ort-wasm-simd-threaded.wasm'), join(pageDir, 'ort-wasm-simd-threaded.wasm'));
  copyFileSync(join(benchDir, 'roof_probe.wasm'), join(pageDir, 'roof_probe.wasm'));
  for (const { file } of READER_MODELS) copyFileSync(join(root, 'web', 'src', 'model', file), join(pageDir, file));
}

/** The walkthrough as deployed, built from web/ into build/bench/site (dist/ is left to the browser tests). */
export async function buildSite(): Promise<void> {
  const { katexFormulas } = await import('../../web/tooling/katex-formulas');
  await build({
    configFile: false,
    root: join(root, 'web'),
    base: './',
    logLevel: 'warn',
    publicDir: false,
    plugins: [katexFormulas()],
    build: {
      outDir: siteDir,
      emptyOutDir: true,
      target: 'es2022',
      assetsInlineLimit: 0,
      rollupOptions: { input: { index: join(root, 'web', 'index.html') } },
    },
  });
}

/** Opens the bench page with its CPU clock exposed, runs `body` in it, closes it. */
async function withBenchPage<T>(browser: Browser, log: (line: string) => void, body: (page: Page) => Promise<T>): Promise<T> {
  const server = await serve({ root: pageDir, headers: isolated });
  try {
    const page = await browser.newPage();
    // The renderer main thread's CPU time, for the page's cpuClock: on a shared host, wall time also
    // counts the moments other processes held the core.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.exposeFunction('__threadTime', async () => {
      const { metrics } = await cdp.send('Performance.getMetrics');
      return (metrics.find((m) => m.name === 'ThreadTime')?.value ?? NaN) * 1000;
    });
    page.on('console', (m) => {
      if (m.type() === 'error') log(`[chromium console] ${m.text()}`);
      else if (m.text().startsWith('[chromium]')) log(m.text());
    });
    page.on('pageerror', (e) => log(`[chromium page error] ${e}`));
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => document.documentElement.dataset.benchReady === 'true', null, { timeout: 60_000 });
    if (!(await page.evaluate(() => crossOriginIsolated))) log('[chromium] warning: the bench page is not cross-origin isolated');
    const result = await body(page);
    await page.close();
    return result;
  } finally {
    await server.close();
  }
}

export async function runBenchPage(browser: Browser, args: string[], log: (line: string) => void): Promise<EnvironmentResult> {
  return withBenchPage(browser, log, (page) => page.evaluate((a) => window.runBench(a), args));
}

/** The reader model's answer time in the bench page (reader-timing.ts). */
export async function runReaderBenchPage(browser: Browser, log: (line: string) => void): Promise<ReaderTiming[]> {
  return withBenchPage(browser, log, (page) => page.evaluate(() => window.runReaderBench()));
}

// ---- the walkthrough: interaction latency and first load -------------------------------------------

export interface LatencyResult {
  label: string;
  query: string;
  n: number;
  heads: number;
  dModel: number;
  changes: number;
  /** Click (event.timeStamp) to the paint of the frame that shows the change (latency.ts). */
  medianMs: number;
  p95Ms: number;
  /** Changes painted by the first frame after their click. */
  nextFrame: number;
  /** Event Timing entries (PerformanceObserver 'event', 16 ms threshold, 8 ms granularity) for those clicks. */
  eventTimingCount: number;
  eventTimingMedianMs: number | null;
  notices: string[];
}

export async function runLatency(browser: Browser, log: (line: string) => void, changes = 100): Promise<LatencyResult[]> {
  const server = await serve({ root: siteDir });
  const words: string[] = [];
  for (let i = 0; words.length < 256; ++i) words.push(`w${i.toString(36)}`);
  const settings = [
    { label: 'default settings', query: '' },
    { label: '256 words, 8 heads, d_model 64', query: `?tokens=${encodeURIComponent(words.join(' '))}&heads=8&d_model=64` },
  ];
  const out: LatencyResult[] = [];
  try {
    for (const s of settings) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${server.url}/index.html${s.query}`);
      await goLive(page, 60_000);
      const notices = await page.evaluate(() => {
        const host = document.querySelector('attention-walkthrough');
        const text = host?.shadowRoot?.querySelector('[role="status"], .notice, .notices')?.textContent ?? '';
        return text ? [text.trim().slice(0, 200)] : [];
      });
      const r = await measureChanges(page, { control: 'causal', changes, budgetMs: 60_000 });
      if (r.error) notices.push(`stopped after ${r.painted.length} changes: ${r.error}`);
      const result: LatencyResult = {
        label: s.label,
        query: s.query.length > 60 ? `${s.query.slice(0, 60)}…` : s.query,
        n: r.n,
        heads: r.heads,
        dModel: r.dModel,
        changes: r.painted.length,
        medianMs: median(r.painted),
        p95Ms: quantile(r.painted, 0.95),
        nextFrame: r.frames.filter((f) => f <= 1).length,
        eventTimingCount: r.events.length,
        eventTimingMedianMs: r.events.length ? median(r.events) : null,
        notices,
      };
      log(
        `latency (${s.label}: n=${r.n} h=${r.heads} d_model=${r.dModel}): median ${result.medianMs.toFixed(1)} ms, p95 ${result.p95Ms.toFixed(1)} ms, ${result.nextFrame} of ${result.changes} in the next frame`,
      );
      out.push(result);
      await context.close();
    }
  } finally {
    await server.close();
  }
  return out;
}

export interface FirstLoadResult {
  loads: number;
  bytesTransferred: number;
  requests: number;
  wasmBytes: number;
  wasmGzipBytes: number;
  /** Navigation -> data-ready (every section drawn). */
  readyMedianMs: number;
  readyP95Ms: number;
  /** Navigation -> the paint of the frame after data-ready (latency.ts); upperBounds of them are the message after it. */
  paintedMedianMs: number;
  paintedP95Ms: number;
  upperBounds: number;
}

export async function runFirstLoad(browser: Browser, log: (line: string) => void, loads = 7): Promise<FirstLoadResult> {
  const server = await serve({ root: siteDir });
  const times: number[] = [];
  const painted: number[] = [];
  let upperBounds = 0;
  let bytes = 0;
  let requests = 0;
  try {
    for (let i = 0; i < loads; ++i) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } }); // cold cache every time
      const page = await context.newPage();
      const t = await measureFirstLoad(page, `${server.url}/index.html`);
      times.push(t.ready);
      painted.push(t.painted);
      if (!t.paintedExact) ++upperBounds;
      const transfer = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
        const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
        return { bytes: nav.transferSize + resources.reduce((s, r) => s + r.transferSize, 0), requests: 1 + resources.length };
      });
      bytes = transfer.bytes;
      requests = transfer.requests;
      await context.close();
    }
  } finally {
    await server.close();
  }
  const assets = join(siteDir, 'assets');
  const wasm = existsSync(assets) ? readdirSync(assets).find((f) => f.endsWith('.wasm')) : undefined;
  const wasmData = wasm ? readFileSync(join(assets, wasm)) : Buffer.alloc(0);
  const result: FirstLoadResult = {
    loads,
    bytesTransferred: bytes,
    requests,
    wasmBytes: wasmData.length,
    wasmGzipBytes: gzipSync(wasmData, { level: 9 }).length,
    readyMedianMs: median(times),
    readyP95Ms: quantile(times, 0.95),
    paintedMedianMs: median(painted),
    paintedP95Ms: quantile(painted, 0.95),
    upperBounds,
  };
  log(
    `first load: ${(bytes / 1024).toFixed(0)} KiB in ${requests} requests, wasm ${(result.wasmBytes / 1024).toFixed(0)} KiB ` +
      `(${(result.wasmGzipBytes / 1024).toFixed(0)} KiB gzipped), ready after ${result.readyMedianMs.toFixed(0)} ms, painted after ${result.paintedMedianMs.toFixed(0)} ms (medians of ${loads})`,
  );
  return result;
}
