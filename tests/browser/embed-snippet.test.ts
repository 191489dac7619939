// The copied iframe snippet ("Copy embed code" → "Copy iframe"), pasted into a page on another origin,
// sizes its iframe to the embedded step: the embed page posts its height, the snippet's listener sets
// it, and only messages from the site's own frame count. Where the host strips the listener the iframe
// starts at the height the section had on the walkthrough rather than a fixed 640 px.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { collectErrors, launchBrowser, serve, type StaticServer } from './harness';

let site: StaticServer;
let browser: Browser;

beforeAll(async () => {
  site = await serve();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

describe('the copied iframe snippet', () => {
  test('pasted on another origin, the iframe takes its content’s height; other frames cannot resize it', async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    const errors = collectErrors(page);
    await page.goto(`${site.url}/index.html?tokens=one+two+three&heads=1`);
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    await page.locator('#softmax .embed-toggle').click();
    const snippet = await page.locator('#softmax .embed-code textarea[aria-label="Iframe snippet"]').inputValue();
    // The section's height as drawn, without the embed panel that just opened (the snippet was written before it).
    const sectionHeight = await page
      .locator('#softmax')
      .evaluate(
        (section) =>
          section.getBoundingClientRect().height - (section.querySelector('.embed-code') as HTMLElement).getBoundingClientRect().height,
      );

    // The snippet: the iframe (starting at the section's height), then its listener, for this site's origin only.
    const start = Number(/ height="(\d+)"/.exec(snippet)?.[1]);
    expect(Math.abs(start - sectionHeight)).toBeLessThan(0.05 * sectionHeight); // the panel brings a gap of its own
    expect(start).not.toBe(640);
    expect(snippet).toMatch(
      /^<iframe src="[^"]+\/embed\.html\?[^"]*step=softmax[^"]*"[^>]* data-attention-by-hand><\/iframe>\n<script>[^<]+<\/script>$/,
    );
    expect(snippet).toContain(`e.origin!==${JSON.stringify(new URL(site.url).origin)}`);

    const host = await serve({
      routes: {
        '/article.html': {
          body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title></head><body><p>Before.</p>${snippet}<p>After.</p></body></html>`,
        },
      },
    });
    await page.goto(`${host.url}/article.html`);
    const frame = page.frameLocator('iframe[data-attention-by-hand]');
    await expect.poll(() => frame.locator('attention-softmax').getAttribute('data-ready'), { timeout: 30_000 }).toBe('true');
    // The iframe's height is its document's height, whatever that is once the figure has drawn.
    const heights = () =>
      Promise.all([
        page.locator('iframe[data-attention-by-hand]').getAttribute('height'),
        frame.locator('html').evaluate((html) => Math.ceil(html.getBoundingClientRect().height)),
      ]);
    await expect
      .poll(
        async () => {
          const [set, content] = await heights();
          return Number(set) === content;
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    const [set, content] = await heights();
    expect(content).toBeGreaterThan(300);
    expect(Number(set)).toBe(content);
    // No scroll bar inside the frame: the whole step shows.
    expect(await frame.locator('html').evaluate((html) => html.scrollHeight <= window.innerHeight)).toBe(true);

    // A resize message from the host page itself (not the site's frame, not its origin) changes nothing.
    // Messages from one window arrive in order: once the probe is in, the fake one has been handled.
    await page.evaluate(
      () =>
        new Promise((done) => {
          addEventListener('message', (event) => {
            if (event.data === 'probe') done(null);
          });
          window.postMessage({ type: 'attention-by-hand:resize', height: 7 }, '*');
          window.postMessage('probe', '*');
        }),
    );
    expect(await page.locator('iframe[data-attention-by-hand]').getAttribute('height')).toBe(set);
    expect(errors).toEqual([]);
    await page.close();
    await host.close();
  });
});
