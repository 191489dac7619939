// The walkthrough's timing in Chromium, shared by `npm run bench` (browser.ts) and page-profile.ts:
// a settings change to its painted frame, with real input events (a mouse click on a checkbox, or
// ArrowDown/ArrowUp on a focused select or number field), and a cold load to its fully drawn page.
// Measures only: nothing here asserts a time (the machines are noisy).
import type { Page } from 'playwright-core';

/** Each control and the input that changes it: a mouse click, or ArrowDown/ArrowUp while it has focus. */
export const CONTROLS = {
  causal: 'click',
  scale: 'click',
  heads: 'keydown',
  d_model: 'keydown',
  head: 'keydown',
  seed: 'keydown',
} as const;
export type ControlName = keyof typeof CONTROLS;

/** tsx compiles named functions inside page scripts to __name(...) calls; the page needs the helper. */
export const KEEP_NAMES = 'globalThis.__name ??= (f) => f';

export interface ChangeTimes {
  /** Input event -> paint of the first frame that shows the change. */
  painted: number[];
  /** Input event -> the figures are drawn (attention-change), before any painting. */
  drawn: number[];
  /** Animation frames from the input to the frame that showed it (1 = the next frame). */
  frames: number[];
  /** Event Timing durations (16 ms threshold, 8 ms granularity) of those inputs. */
  events: number[];
  n: number;
  heads: number;
  dModel: number;
  /** Why the run stopped early, or ''. */
  error: string;
}

export interface MeasureOptions {
  control: ControlName;
  changes: number;
  /** Pause after each painted change, like a reader (off-screen sections are drawn in idle time). */
  gapMs?: number;
  /** Stop starting new changes after this long. */
  budgetMs?: number;
}

declare global {
  interface Window {
    __latency: Omit<ChangeTimes, 'error'> & { start: number | null; counting: boolean; frame: number; inFrame: number };
  }
}

/**
 * When a frame paints the change: the figures are drawn either inside an animation-frame callback
 * (then this frame's paint shows them; a message posted now runs right after that paint) or in a task
 * between frames (then the next frame's paint shows them: wait for its rAF, then a message). A wrapper
 * around requestAnimationFrame tells the two apart. Frames are counted by a rAF loop that runs only
 * from the input until the figures are drawn: a loop left running keeps the compositor producing a
 * frame every vsync, so a change waits for the next vsync as on a page that animates (a page doing
 * nothing at all measured median 11 ms, p95 19.5 ms that way, against 4 / 11 ms without the loop), and
 * it queued the next frame's rAF ahead of the message after a long frame's paint.
 */
export async function measureChanges(page: Page, options: MeasureOptions): Promise<ChangeTimes> {
  const { control, changes, gapMs = 50, budgetMs = 120_000 } = options;
  await page.evaluate(KEEP_NAMES);
  await page.evaluate(
    ([name, type]) => {
      const p: Window['__latency'] = (window.__latency = {
        start: null,
        counting: false,
        frame: 0,
        inFrame: 0,
        painted: [],
        drawn: [],
        frames: [],
        events: [],
        n: 0,
        heads: 0,
        dModel: 0,
      });
      const raf = window.requestAnimationFrame.bind(window);
      window.requestAnimationFrame = (callback) =>
        raf((time) => {
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
      // The input's own timestamp: composed, so a capturing listener on document sees it leave the shadow root.
      document.addEventListener(
        type,
        (e) => {
          if (e.composedPath().some((t) => (t instanceof HTMLInputElement || t instanceof HTMLSelectElement) && t.name === name)) {
            p.start = e.timeStamp;
            p.frame = 0;
            if (!p.counting) {
              p.counting = true;
              raf(tick);
            }
          }
        },
        true,
      );
      document.querySelector('attention-walkthrough')!.addEventListener('attention-change', (e) => {
        const start = p.start;
        if (start === null) return;
        p.start = null;
        p.drawn.push(performance.now() - start);
        const detail = (e as CustomEvent<{ config: { heads: number; dModel: number }; result: { pipeline: { n: number } } }>).detail;
        p.n = detail.result.pipeline.n;
        p.heads = detail.config.heads;
        p.dModel = detail.config.dModel;
        // The loop's callback comes first in a frame (it was registered in the capturing input
        // listener, before the page's own), so inside a frame p.frame already counts it.
        p.frames.push(p.inFrame > 0 ? p.frame : p.frame + 1);
        p.counting = false;
        const record = () => p.painted.push(performance.now() - start);
        if (p.inFrame > 0) afterPaint(record);
        else raf(() => afterPaint(record));
      });
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) if (entry.name === type) p.events.push(entry.duration);
      }).observe({ type: 'event', durationThreshold: 16 } as PerformanceObserverInit);
    },
    [control, CONTROLS[control]] as const,
  );
  const target = page.locator(`[name="${control}"]`);
  if (CONTROLS[control] === 'keydown') await target.focus();
  const started = performance.now();
  let error = '';
  for (let i = 0; i < changes && performance.now() - started < budgetMs; ++i) {
    try {
      // force: no waiting for two identical animation frames before the click, which on a large page
      // costs seconds per click before the click even happens.
      if (CONTROLS[control] === 'click') await target.click({ force: true, timeout: 60_000 });
      else await page.keyboard.press(i % 2 === 0 ? 'ArrowDown' : 'ArrowUp');
      await page.waitForFunction((k) => window.__latency.painted.length > k, i, { timeout: 60_000, polling: 50 });
    } catch (e) {
      error = String(e instanceof Error ? e.message : e).split('\n')[0]!;
      break;
    }
    await page.waitForTimeout(gapMs);
  }
  await page.waitForTimeout(300); // the last Event Timing entries
  return { ...(await page.evaluate(() => window.__latency)), error };
}

export interface FirstLoadTimes {
  /** Navigation start -> data-ready: every section is drawn. */
  ready: number;
  /** Navigation start -> the paint of the frame after data-ready: the page is fully drawn on screen. */
  painted: number;
  /** false: no Long Animation Frame entry for that frame, and `painted` is the message after it (an upper bound). */
  paintedExact: boolean;
}

/**
 * Loads the page at `url` in `page` (give it a fresh context for a cold cache), reaching for it at
 * once. A message posted from
 * the rAF after data-ready is no clock for the paint here: it waits behind tasks queued earlier
 * (Chromium's password-manager form scan, 0.2-0.3 s, runs right after the load). The frame after
 * data-ready is long (it lays out every section), so it is a Long Animation Frame, and its entry ends
 * with its paint.
 */
export async function measureFirstLoad(page: Page, url: string): Promise<FirstLoadTimes> {
  await page.addInitScript(KEEP_NAMES);
  await page.addInitScript(() => {
    const w = window as unknown as { __load: { ready?: number; message?: number; frames: { renderStart: number; end: number }[] } };
    w.__load = { frames: [] };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        w.__load.frames.push({ renderStart: (e as PerformanceEntry & { renderStart: number }).renderStart, end: e.startTime + e.duration });
    }).observe({ type: 'long-animation-frame', buffered: true });
    // A reader who reaches for the page at once: the walkthrough loads its live part at the first key,
    // pointer or scroll (web/src/main.ts), and module scripts have run by DOMContentLoaded.
    document.addEventListener('DOMContentLoaded', () => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Shift' })));
    // Runs before the document has an element: observe the document itself, subtree included.
    new MutationObserver((_, observer) => {
      if (document.documentElement?.dataset.ready !== 'true') return;
      observer.disconnect();
      w.__load.ready = performance.now();
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => (w.__load.message = performance.now());
        channel.port2.postMessage(0);
      });
    }).observe(document, { attributes: true, attributeFilter: ['data-ready'], subtree: true });
  });
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { __load: { message?: number } }).__load.message !== undefined, null, {
    timeout: 60_000,
  });
  await page.waitForTimeout(200); // the last Long Animation Frame entries
  const l = await page.evaluate(
    () => (window as unknown as { __load: { ready: number; message: number; frames: { renderStart: number; end: number }[] } }).__load,
  );
  const frame = l.frames.filter((f) => f.renderStart >= l.ready).sort((a, b) => a.renderStart - b.renderStart)[0];
  return { ready: l.ready, painted: frame ? frame.end : l.message, paintedExact: Boolean(frame) };
}
