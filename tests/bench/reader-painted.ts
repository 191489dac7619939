// Step 1's answer as a reader sees it (issue 38: ≤ 10 ms to answer a 40-word sentence): in the walkthrough
// itself (the site reader.ts builds into build/bench/site), the time from the reader's edit of the sentence
// field (the input event's own timestamp) to the paint of the frame that shows the reader model's answer. It
// counts what the page does for a new sentence before the answer is on screen: settings, the engine's snapshot
// of every step, the reader model's answer (reader-timing.ts times that part alone, as CPU time) and the
// renderers. The sentence alternates between two 40-word versions whose answers differ ("too big" and "too
// small"). Wall time on a shared machine: it measures, it asserts nothing.
import type { Browser } from 'playwright-core';
import { goLive, serve } from '../browser/harness';
import { median, quantile } from './data';
import { siteDir } from './browser';
import { KEEP_NAMES } from './latency';
import { READER_SENTENCE } from './reader-timing';

export interface ReaderPainted {
  /** How many edits were timed, and the answers the figure showed (its first words, up to the probability). */
  edits: number;
  answers: string[];
  /** Input event -> the snapshot with the new sentence's answer is drawn (attention-change), ms. */
  drawnMedianMs: number;
  /** Input event -> the paint of the frame that shows it, ms. */
  paintedMedianMs: number;
  paintedP95Ms: number;
}

declare global {
  interface Window {
    __readerPainted: { start: number | null; target: string; drawn: number[]; painted: number[]; answers: string[] };
  }
}

/** The bench's sentence with its size word swapped, so that each edit asks for a different answer. */
const SENTENCES = [READER_SENTENCE, READER_SENTENCE.replace('too big', 'too small')] as const;

export async function measureReaderPainted(browser: Browser, edits = 30): Promise<ReaderPainted> {
  if (SENTENCES[0] === SENTENCES[1]) throw new Error('the bench sentence has no “too big” to swap');
  const server = await serve({ root: siteDir });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await page.goto(`${server.url}/index.html?weights=trained&tokens=${encodeURIComponent(SENTENCES[1])}`);
    await goLive(page, 60_000);
    // The model loads once its figure comes near the viewport, as for a reader.
    await page.locator('#problem .reader-figure').scrollIntoViewIfNeeded();
    await page.locator('#problem .reader-figure[data-status="ready"]').waitFor({ timeout: 60_000 });
    await page.evaluate(KEEP_NAMES);
    await page.evaluate(() => {
      const p: Window['__readerPainted'] = (window.__readerPainted = { start: null, target: '', drawn: [], painted: [], answers: [] });
      let inFrame = 0;
      const raf = window.requestAnimationFrame.bind(window);
      window.requestAnimationFrame = (callback) =>
        raf((time) => {
          ++inFrame;
          try {
            callback(time);
          } finally {
            --inFrame;
          }
        });
      // A message posted inside a frame runs after that frame's paint; outside one, wait for the next frame.
      const afterPaint = (done: () => void) => {
        const channel = new MessageChannel();
        channel.port1.onmessage = done;
        channel.port2.postMessage(0);
      };
      document.addEventListener(
        'input',
        (e) => {
          if (e.composedPath().some((t) => t instanceof HTMLInputElement && t.name === 'tokens') && p.start === null) p.start = e.timeStamp;
        },
        true,
      );
      const host = document.querySelector('attention-walkthrough')!;
      host.addEventListener('attention-change', () => {
        const start = p.start;
        const r = window.attentionWalkthrough!.result;
        if (start === null || r.settings.sentence !== p.target || r.reader?.status !== 'ready' || !r.reader.answer) return;
        p.start = null;
        p.drawn.push(performance.now() - start);
        // The answer the figure shows (its own words: "Guessing: “it” → …"), cut to the answer.
        const shown = host.shadowRoot?.querySelector('#problem .reader-answer')?.textContent ?? '';
        p.answers.push(shown.slice(0, shown.indexOf(')') + 1));
        const record = () => p.painted.push(performance.now() - start);
        if (inFrame > 0) afterPaint(record);
        else raf(() => afterPaint(record));
      });
    });
    const field = page.locator('input[name="tokens"]');
    for (let i = 0; i < edits; ++i) {
      const sentence = SENTENCES[i % 2]!;
      await page.evaluate((s) => (window.__readerPainted.target = s), sentence);
      await field.fill(sentence);
      await page.keyboard.press('Enter');
      await page.waitForFunction((k) => window.__readerPainted.painted.length > k, i, { timeout: 60_000, polling: 20 });
      await page.waitForTimeout(100); // like a reader between edits: idle-time work (which words flip) runs here
    }
    const p = await page.evaluate(() => window.__readerPainted);
    return {
      edits: p.painted.length,
      answers: [...new Set(p.answers)],
      drawnMedianMs: median(p.drawn),
      paintedMedianMs: median(p.painted),
      paintedP95Ms: quantile(p.painted, 0.95),
    };
  } finally {
    await page.close();
    await server.close();
  }
}
