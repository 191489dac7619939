// Where a settings change spends its time in the walkthrough: real input events (a mouse click on the
// causal or scale checkbox, or ArrowDown/ArrowUp on the heads, d_model, head or seed control) on a built
// site, the time from the input event to the paint of the frame that shows the change, the renderer's script/style/layout split
// (CDP Performance metrics) and the functions with the most self time (CDP Profiler).
//
//   npx tsx tests/bench/page-profile.ts [--dist=dist] [--changes=100] [--control=causal|scale|heads|d_model|head|seed]
//        [--query='?heads=8'] [--words=256 --heads=8 --d_model=64] [--profile] [--load=7 [--drawn=mark]] [--floor]
//
// --drawn=mark: for a build that reports ready before every section is drawn and marks
// "walkthrough-drawn" once they all are; without it, every section counts as drawn at data-ready.
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
/** Each control and the input that changes it: a mouse click, or ArrowDown/ArrowUp while it has focus. */
const CONTROLS = { causal: 'click', scale: 'click', heads: 'keydown', d_model: 'keydown', head: 'keydown', seed: 'keydown' } as const;
const control = (args.control ?? 'causal') as keyof typeof CONTROLS;
if (!(control in CONTROLS)) throw new Error(`--control: one of ${Object.keys(CONTROLS).join(', ')}`);
let query = args.query ?? '';
if (args.words) {
  const words: string[] = [];
  for (let i = 0; words.length < Number(args.words); ++i) words.push(`w${i.toString(36)}`);
  query = `?tokens=${encodeURIComponent(words.join(' '))}&heads=${args.heads ?? 8}&d_model=${args.d_model ?? 64}`;
}
const load = () => loadavg().map((v) => v.toFixed(2)).join(' ');

/** tsx compiles named functions inside page scripts to __name(...) calls; the page needs the helper. */
const KEEP_NAMES = 'globalThis.__name ??= (f) => f';

interface Run {
  /** Input event -> paint of the first frame that shows the change. */
  painted: number[];
  /** Input event -> the figures are drawn (attention-change), before any painting. */
  drawn: number[];
  /** Animation frames from the input to the frame that showed it (1 = the next frame). */
  frames: number[];
  events: number[];
  n: number;
  heads: number;
}

declare global {
  interface Window {
    __p: Run & { start: number | null; counting: boolean; frame: number; inFrame: number };
  }
}

// When a frame paints the change: the figures are drawn either inside an animation-frame callback
// (then this frame's paint shows them; a message posted now runs right after that paint) or in a task
// between frames (then the next frame's paint shows them: wait for its rAF, then a message). A wrapper
// around requestAnimationFrame tells the two apart. Frames are counted by a rAF loop that runs only
// from the input until the figures are drawn: a loop left running keeps the compositor producing a
// frame every vsync, so a change waits for the next vsync as on a page that animates (a page doing
// nothing at all measured median 11 ms, p95 19.5 ms that way, against 4 / 11 ms without the loop).
async function measure(page: Page): Promise<Run> {
  await page.evaluate(KEEP_NAMES);
  await page.evaluate((which) => {
    const p: Window['__p'] = window.__p = { start: null, counting: false, frame: 0, inFrame: 0, painted: [], drawn: [], frames: [], events: [], n: 0, heads: 0 };
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = (callback) => raf((time) => {
      ++p.inFrame;
      try {
        callback(time);
      } finally {
        --p.inFrame;
      }
    });
    const tick = () => {
      if (!p.counting) return;
      ++p.frame;
      raf(tick);
    };
    const afterPaint = (done: () => void) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = done;
      channel.port2.postMessage(0);
    };
    const [name, type] = which;
    document.addEventListener(type, (e) => {
      if (e.composedPath().some((t) => (t instanceof HTMLInputElement || t instanceof HTMLSelectElement) && t.name === name)) {
        p.start = e.timeStamp;
        p.frame = 0;
        if (!p.counting) {
          p.counting = true;
          raf(tick);
        }
      }
    }, true);
    document.querySelector('attention-walkthrough')!.addEventListener('attention-change', (e) => {
      const start = p.start;
      if (start === null) return;
      p.start = null;
      p.drawn.push(performance.now() - start);
      const detail = (e as CustomEvent<{ config: { heads: number }; result: { pipeline: { n: number } } }>).detail;
      p.n = detail.result.pipeline.n;
      p.heads = detail.config.heads;
      // The loop's callback comes first in a frame (it was registered in the capturing input
      // listener, before the page's own), so inside a frame p.frame already counts it. The loop stops
      // here: kept going, it would queue the next frame's rAF ahead of the message after this paint.
      p.frames.push(p.inFrame > 0 ? p.frame : p.frame + 1);
      p.counting = false;
      const record = () => p.painted.push(performance.now() - start);
      if (p.inFrame > 0) afterPaint(record);
      else raf(() => afterPaint(record));
    });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.name === type) p.events.push(entry.duration);
    }).observe({ type: 'event', durationThreshold: 16 } as PerformanceObserverInit);
  }, [control, CONTROLS[control]] as const);
  const target = page.locator(`[name="${control}"]`);
  if (CONTROLS[control] === 'keydown') await target.focus();
  const started = performance.now();
  for (let i = 0; i < changes && performance.now() - started < 120_000; ++i) {
    if (CONTROLS[control] === 'click') await target.click({ force: true, timeout: 60_000 });
    else await page.keyboard.press(i % 2 === 0 ? 'ArrowDown' : 'ArrowUp');
    await page.waitForFunction((k) => window.__p.painted.length > k, i, { timeout: 60_000, polling: 50 });
    // Like a reader: the idle-time drawing of the other sections gets a moment before the next change.
    await page.waitForTimeout(Number(args.gap ?? 50));
  }
  await page.waitForTimeout(300);
  return page.evaluate(() => window.__p);
}

/**
 * --floor: the same measurement on a page that does nothing but flip one word of text, the least any
 * page can take from an input to its painted frame on this machine and browser.
 */
const FLOOR_PAGE = `<html data-ready="true"><body><attention-walkthrough>
<label><input type="checkbox" name="causal"> Causal mask</label>
<label><input type="checkbox" name="scale" checked> Scale</label>
<select name="heads"><option>1</option><option selected>2</option><option>4</option><option>8</option></select>
<select name="d_model"><option>4</option><option selected>8</option><option>16</option></select>
<select name="head"><option selected>head 1</option><option>head 2</option></select>
<input type="number" name="seed" value="1">
<p id="shown">off</p></attention-walkthrough>
<script>
  const host = document.querySelector('attention-walkthrough');
  host.addEventListener('change', (event) => {
    document.getElementById('shown').textContent = event.target.name + ' ' + (event.target.type === 'checkbox' ? event.target.checked : event.target.value);
    host.dispatchEvent(new CustomEvent('attention-change', { detail: { config: { heads: 0 }, result: { pipeline: { n: 0 } } } }));
  });
</script></body></html>`;

const stats = (values: number[]) => `median ${median(values).toFixed(1)} ms, p95 ${quantile(values, 0.95).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms`;

const browser = await launchBrowser();
const server = await serve({ root: dist });
try {
  console.log(`dist=${dist} control=${control} query=${query.slice(0, 40)}${query.length > 40 ? '…' : ''} load avg before: ${load()}`);
  const context = await browser.newContext({ viewport: { width: Number(args.width ?? 1280), height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log(`[page error] ${e}`));
  const t0 = performance.now();
  if (args.floor) await page.setContent(FLOOR_PAGE);
  else await page.goto(`${server.url}/index.html${query}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 120_000 });
  console.log(`${args.floor ? 'floor page' : 'walkthrough'} ready after ${(performance.now() - t0).toFixed(0)} ms (incl. navigation)`);
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
  const r = changes > 0 ? await measure(page) : null;
  const after = await metrics();
  const count = Math.max(1, r?.painted.length ?? 0);
  const per = (k: string) => (((after[k] ?? 0) - (before[k] ?? 0)) * 1000 / count).toFixed(1);
  if (r) {
    const next = r.frames.filter((f) => f <= 1).length;
    console.log(`n=${r.n} h=${r.heads} changes=${r.painted.length}`);
    console.log(`  input -> painted frame: ${stats(r.painted)}`);
    console.log(`  input -> figures drawn (before paint): ${stats(r.drawn)}`);
    console.log(`  painted in the next frame: ${next}/${r.frames.length} (${(100 * next / r.frames.length).toFixed(0)}%); frames to paint: ${[1, 2, 3].map((k) => `${k}: ${r.frames.filter((f) => (k === 3 ? f >= 3 : f === k)).length}`).join(', ')}`);
    console.log(`  Event Timing ≥16 ms: ${r.events.length} entries, median ${r.events.length ? median(r.events).toFixed(0) : '-'} ms`);
    console.log(`  main thread per change (incl. idle drawing): script ${per('ScriptDuration')} ms, style ${per('RecalcStyleDuration')} ms, layout ${per('LayoutDuration')} ms, task ${per('TaskDuration')} ms; nodes ${after.Nodes}`);
  }
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
    for (const [k, v] of top) console.log(`  ${(v / count).toFixed(2).padStart(8)} ms/change  ${k}`);
  }
  if (args.load) {
    const ready: number[] = [];
    const all: number[] = [];
    for (let i = 0; i < Number(args.load); ++i) {
      const c = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const p = await c.newPage();
      // Both times are the paint after the moment: data-ready and the
      // walkthrough's "walkthrough-drawn" performance mark (every section is drawn).
      await p.addInitScript(KEEP_NAMES);
      await p.addInitScript((marked) => {
        const w = window as unknown as { __load: { ready?: number; all?: number } };
        w.__load = {};
        const painted = (key: 'ready' | 'all') => requestAnimationFrame(() => {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => (w.__load[key] = performance.now());
          channel.port2.postMessage(0);
        });
        new MutationObserver((_, observer) => {
          if (document.documentElement?.dataset.ready === 'true') {
            observer.disconnect();
            painted('ready');
            if (!marked) painted('all');
          }
        }).observe(document, { attributes: true, attributeFilter: ['data-ready'], subtree: true });
        new PerformanceObserver((list, observer) => {
          if (list.getEntriesByName('walkthrough-drawn').length === 0) return;
          observer.disconnect();
          painted('all');
        }).observe({ type: 'mark' });
      }, args.drawn === 'mark');
      await p.goto(`${server.url}/index.html`);
      const times = await p.waitForFunction(() => {
        const l = (window as unknown as { __load: { ready?: number; all?: number } }).__load;
        return l.ready !== undefined && l.all !== undefined && l;
      }, null, { timeout: 60_000 }).then((h) => h.jsonValue() as Promise<{ ready: number; all: number }>);
      ready.push(times.ready);
      all.push(times.all);
      await c.close();
    }
    const row = (label: string, t: number[]) => console.log(`first load, ${label}: median ${median(t).toFixed(0)} ms, p95 ${quantile(t, 0.95).toFixed(0)} ms over ${t.length}: ${t.map((v) => v.toFixed(0)).join(' ')}`);
    row('data-ready + paint', ready);
    row('every section drawn + paint', all);
  }
  console.log(`load avg after: ${load()}`);
} finally {
  await server.close();
  await browser.close();
}
