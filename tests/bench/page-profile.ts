// Where a settings change spends its time in the walkthrough: real input events (a mouse click on the
// causal checkbox, or ArrowDown/ArrowUp on the heads select) on a built site, the time from the input
// event to the paint of the frame that shows the change, the renderer's script/style/layout split
// (CDP Performance metrics) and the functions with the most self time (CDP Profiler).
//
//   npx tsx tests/bench/page-profile.ts [--dist=dist] [--changes=100] [--control=causal|heads]
//        [--query='?heads=8'] [--words=256 --heads=8 --d_model=64] [--profile] [--load=7]
//
// Prints numbers only; nothing here asserts a time (the machines are noisy).
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser, serve } from '../browser/harness';
import { median, quantile } from './data';

const args = Object.fromEntries(process.argv.slice(2).map((a) => {
  const [k, v] = a.replace(/^--/, '').split('=');
  return [k, v ?? 'true'];
}));
const dist = resolve(args.dist ?? 'dist');
const changes = Number(args.changes ?? 100);
const control = (args.control ?? 'causal') as 'causal' | 'heads';
let query = args.query ?? '';
if (args.words) {
  const words: string[] = [];
  for (let i = 0; words.length < Number(args.words); ++i) words.push(`w${i.toString(36)}`);
  query = `?tokens=${encodeURIComponent(words.join(' '))}&heads=${args.heads ?? 8}&d_model=${args.d_model ?? 64}`;
}
const load = () => loadavg().map((v) => v.toFixed(2)).join(' ');

declare global {
  interface Window {
    __p: { start: number | null; done: number[]; events: number[]; n: number; heads: number };
  }
}

async function measure(page: Page): Promise<{ done: number[]; events: number[]; n: number; heads: number }> {
  await page.evaluate((which) => {
    window.__p = { start: null, done: [], events: [], n: 0, heads: 0 };
    const type = which === 'causal' ? 'click' : 'keydown';
    document.addEventListener(type, (e) => {
      const name = which === 'causal' ? 'causal' : 'heads';
      if (e.composedPath().some((t) => (t instanceof HTMLInputElement || t instanceof HTMLSelectElement) && t.name === name)) window.__p.start = e.timeStamp;
    }, true);
    document.querySelector('attention-walkthrough')!.addEventListener('attention-change', (e) => {
      const start = window.__p.start;
      if (start === null) return;
      window.__p.start = null;
      const detail = (e as CustomEvent<{ config: { heads: number }; result: { pipeline: { n: number } } }>).detail;
      window.__p.n = detail.result.pipeline.n;
      window.__p.heads = detail.config.heads;
      const channel = new MessageChannel();
      channel.port1.onmessage = () => window.__p.done.push(performance.now() - start);
      channel.port2.postMessage(0);
    });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.name === (which === 'causal' ? 'click' : 'keydown')) window.__p.events.push(entry.duration);
    }).observe({ type: 'event', durationThreshold: 16 } as PerformanceObserverInit);
  }, control);
  const target = page.locator(control === 'causal' ? 'input[name="causal"]' : 'select[name="heads"]');
  if (control === 'heads') await target.focus();
  const started = performance.now();
  for (let i = 0; i < changes && performance.now() - started < 120_000; ++i) {
    if (control === 'causal') await target.click({ force: true, timeout: 60_000 });
    else await page.keyboard.press(i % 2 === 0 ? 'ArrowDown' : 'ArrowUp');
    await page.waitForFunction((k) => window.__p.done.length > k, i, { timeout: 60_000, polling: 50 });
    // Like a reader: the idle-time drawing of the other sections gets a moment before the next change.
    await page.waitForTimeout(Number(args.gap ?? 50));
  }
  await page.waitForTimeout(300);
  return page.evaluate(() => window.__p);
}

const browser = await launchBrowser();
const server = await serve({ root: dist });
try {
  console.log(`dist=${dist} control=${control} query=${query.slice(0, 40)}${query.length > 40 ? '…' : ''} load avg before: ${load()}`);
  const context = await browser.newContext({ viewport: { width: Number(args.width ?? 1280), height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log(`[page error] ${e}`));
  const t0 = performance.now();
  await page.goto(`${server.url}/index.html${query}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 120_000 });
  console.log(`ready after ${(performance.now() - t0).toFixed(0)} ms (incl. navigation)`);
  if (args.scroll) {
    await page.evaluate((y) => window.scrollTo(0, Number(y)), args.scroll);
    await page.waitForTimeout(500);
  }
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  if (args.profile) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  const before = await metrics();
  const r = changes > 0 ? await measure(page) : { done: [0], events: [], n: 0, heads: 0 };
  const after = await metrics();
  const per = (k: string) => (((after[k] ?? 0) - (before[k] ?? 0)) * 1000 / Math.max(1, r.done.length)).toFixed(1);
  if (changes > 0) console.log(`n=${r.n} h=${r.heads} changes=${r.done.length}: median ${median(r.done).toFixed(1)} ms, p95 ${quantile(r.done, 0.95).toFixed(1)} ms, ` +
    `max ${Math.max(...r.done).toFixed(1)} ms; Event Timing ≥16 ms: ${r.events.length} entries, median ${r.events.length ? median(r.events).toFixed(0) : '-'} ms`);
  if (changes > 0) console.log(`per change (incl. idle drawing): script ${per('ScriptDuration')} ms, style ${per('RecalcStyleDuration')} ms, layout ${per('LayoutDuration')} ms, task ${per('TaskDuration')} ms; nodes ${after.Nodes}`);
  if (args.profile) {
    const { profile } = await cdp.send('Profiler.stop');
    const self = new Map<string, number>();
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const dt = profile.timeDeltas ?? [];
    (profile.samples ?? []).forEach((id, i) => {
      const node = byId.get(id)!;
      const f = node.callFrame;
      const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
      self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000);
    });
    const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top ?? 25));
    for (const [k, v] of top) console.log(`  ${(v / r.done.length).toFixed(2).padStart(8)} ms/change  ${k}`);
  }
  if (args.load) {
    const times: number[] = [];
    for (let i = 0; i < Number(args.load); ++i) {
      const c = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const p = await c.newPage();
      await p.addInitScript(() => {
        new MutationObserver((_, observer) => {
          if (document.documentElement?.dataset.ready === 'true') {
            (window as unknown as { __readyAt: number }).__readyAt = performance.now();
            observer.disconnect();
          }
        }).observe(document, { attributes: true, attributeFilter: ['data-ready'], subtree: true });
      });
      await p.goto(`${server.url}/index.html`);
      await p.waitForFunction(() => (window as unknown as { __readyAt?: number }).__readyAt !== undefined, null, { timeout: 60_000 });
      // Fully drawn: ready, then the next painted frame.
      const drawn = await p.evaluate(() => new Promise<number>((done) => requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => done(performance.now());
        channel.port2.postMessage(0);
      })));
      times.push(drawn);
      await c.close();
    }
    console.log(`first load (cold context, ready + next paint): median ${median(times).toFixed(0)} ms, p95 ${quantile(times, 0.95).toFixed(0)} ms over ${times.length}: ${times.map((t) => t.toFixed(0)).join(' ')}`);
  }
  console.log(`load avg after: ${load()}`);
} finally {
  await server.close();
  await browser.close();
}
