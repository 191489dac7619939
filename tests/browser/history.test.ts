// The URL under a flood of changes (a long slider drag, fast typing): browsers limit history calls —
// Chromium silently drops them past its limit, Firefox throws SecurityError. Neither may break the
// page or lose the state: the figures follow every change, and the link catches up with the last one.
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { collectErrors, goLive, useServerAndBrowser } from './harness';

const site = useServerAndBrowser();

const CHANGES = 500;

/** CHANGES updates in one go, as fast as a script can make them, through the element's state. */
function flood(page: Page): Promise<string> {
  return page.evaluate((count) => {
    const element = document.querySelector('attention-walkthrough')!;
    element.setAttribute('debug', '');
    const hooks = (element as unknown as { debug: { update(c: { sentence: string }): void } }).debug;
    let sentence = '';
    for (let i = 0; i < count; i++) {
      sentence = `word${i} and more`;
      hooks.update({ sentence });
    }
    return sentence;
  }, CHANGES);
}

async function open(init?: () => void): Promise<{ page: Page; errors: string[] }> {
  const page = await site.browser.newPage();
  if (init) await page.addInitScript(init);
  const errors = collectErrors(page);
  await page.goto(`${site.server.url}/index.html`);
  await goLive(page);
  return { page, errors };
}

describe(`${CHANGES} settings changes in a burst`, () => {
  test('Chromium’s own history limit: the figures follow, and the URL catches up with the last change', async () => {
    const { page, errors } = await open();
    const last = await flood(page);
    await expect.poll(() => page.evaluate(() => window.attentionWalkthrough!.result.settings.sentence)).toBe(last);
    await expect.poll(() => new URL(page.url()).searchParams.get('tokens'), { timeout: 20_000 }).toBe(last);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('a browser that throws on too many history calls (as Firefox does): no error, the URL still catches up', async () => {
    const { page, errors } = await open(() => {
      // Firefox: "SecurityError: Too many calls to Location or History APIs within a short timeframe."
      let calls = 0;
      const started = Date.now();
      for (const name of ['pushState', 'replaceState'] as const) {
        const original = History.prototype[name];
        History.prototype[name] = function (this: History, ...args: Parameters<History['pushState']>) {
          if (++calls > 100 && Date.now() - started < 4000)
            throw new DOMException('Too many calls to Location or History APIs within a short timeframe.', 'SecurityError');
          return original.apply(this, args);
        };
      }
    });
    const last = await flood(page);
    await expect.poll(() => page.evaluate(() => window.attentionWalkthrough!.result.settings.sentence)).toBe(last);
    await expect.poll(() => new URL(page.url()).searchParams.get('tokens'), { timeout: 20_000 }).toBe(last);
    expect(errors).toEqual([]);
    await page.close();
  });
});
