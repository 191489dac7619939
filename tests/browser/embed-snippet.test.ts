// "Embed this step", in the menu under every figure: every section offers it (in each figure's menu, or
// at its end where no figure menu is always in reach), none in its header, and its snippets are the
// section's step with the settings on the page. The copied iframe snippet, pasted into a page on another
// origin, sizes its iframe to the embedded step: the embed page posts its height, the snippet's listener
// sets it, and only messages from the site's own frame count. Where the host strips the listener the
// iframe starts at the height the section had on the walkthrough rather than a fixed 640 px.
import type { Locator } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { STEP_ELEMENTS } from '../../web/src/elements/registry';
import { collectErrors, goLive, serve, showAllSections, useServerAndBrowser } from './harness';

const site = useServerAndBrowser();

/** Opens "Embed this step" from a figure's menu (or the section's own embed button) and reads its snippets. */
async function embedFrom(tools: Locator): Promise<{ element: string; iframe: string }> {
  const toggle = tools.locator('.export-toggle');
  await toggle.click();
  if ((await toggle.textContent()) !== 'Embed this step')
    await tools.locator('.export-menu').getByRole('button', { name: 'Embed this step' }).click();
  const panel = tools.locator('.embed-code');
  await expect.poll(() => panel.isVisible()).toBe(true);
  return {
    element: await panel.locator('textarea[aria-label="Custom element snippet"]').inputValue(),
    iframe: await panel.locator('textarea[aria-label="Iframe snippet"]').inputValue(),
  };
}

describe('"Embed this step"', () => {
  test('every section offers it in its figures’ menus (or at its end), none in its header; its snippets are the section’s with the page’s settings', async () => {
    const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.server.url });
    const page = await context.newPage();
    const errors = collectErrors(page);
    await page.goto(`${site.server.url}/index.html?weights=random&tokens=fish+swim+in+water&heads=4&seed=99&causal=1`);
    await goLive(page);
    await showAllSections(page);
    const endMenus: string[] = [];
    for (const id of Object.keys(STEP_ELEMENTS) as (keyof typeof STEP_ELEMENTS)[]) {
      const step = { id };
      const section = page.locator(`section#${step.id}`);
      // The header holds the section's "Copy link" and nothing else: embedding is offered with the figures.
      expect(await section.locator('.step-header button:not(.copy-link)').count(), `${step.id}: a button in the header`).toBe(0);
      // Every menu of the section offers it (in its list, or as its one button).
      const offers = await section
        .locator('.export-tools')
        .evaluateAll((menus) => menus.map((menu) => [...menu.querySelectorAll('button')].some((b) => b.textContent === 'Embed this step')));
      expect(offers.length, `${step.id}: no menu`).toBeGreaterThan(0);
      expect(offers.every(Boolean), `${step.id}: a menu without "Embed this step"`).toBe(true);
      if ((await section.locator('.step-tools').count()) > 0) endMenus.push(step.id);

      const reachable = section.locator('.export-tools:visible:not(.predict-target .export-tools)').first();
      const { element, iframe } = await embedFrom(reachable);
      const tag = STEP_ELEMENTS[id];
      expect(element).toMatch(
        new RegExp(`^<script type="module" src="${site.server.url}/embed/attention-by-hand\\.js"></script>\n<${tag}[ >]`),
      );
      expect(iframe).toMatch(new RegExp(`^<iframe src="${site.server.url}/embed\\.html\\?[^"]*step=${step.id}"`));
      if (step.id === 'train') {
        expect(element).toBe(
          `<script type="module" src="${site.server.url}/embed/attention-by-hand.js"></script>\n<attention-train></attention-train>`,
        );
      } else {
        // The page's settings, as attributes and as the frame's parameters.
        for (const attribute of ['tokens="fish swim in water"', 'weights="random"', 'heads="4"', 'seed="99"', 'causal="1"'])
          expect(element, step.id).toContain(attribute);
        for (const param of ['tokens=fish+swim+in+water', 'weights=random', 'heads=4', 'seed=99', 'causal=1'])
          expect(iframe, step.id).toContain(param);
      }
      // Shown, the element snippet is on the clipboard.
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(element);
      // Escape closes the menu and its panel, and the focus is back on the menu's button.
      await page.keyboard.press('Escape');
      expect(await reachable.locator('.embed-code').isVisible()).toBe(false);
      expect(await reachable.locator('.export-toggle').getAttribute('aria-expanded')).toBe('false');
      expect(
        await reachable
          .locator('.export-toggle')
          .evaluate((b) => b.getRootNode() instanceof ShadowRoot && (b.getRootNode() as ShadowRoot).activeElement === b),
      ).toBe(true);
    }
    // Step 1's only figure menu is behind its prediction, and step 11 has none: each ends with the button.
    expect(endMenus).toEqual(['problem', 'train']);

    // A settings change shows in the next snippet of the same menu.
    await page.locator('input[name="seed"]').fill('7');
    await page.locator('input[name="seed"]').press('Enter');
    await page.waitForFunction(() => window.attentionWalkthrough!.config.seed === 7);
    const { element } = await embedFrom(page.locator('#softmax .export-tools').first());
    expect(element).toContain('seed="7"');
    expect(element).not.toContain('seed="99"');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the copied iframe snippet', () => {
  test('pasted on another origin, the iframe takes its content’s height; other frames cannot resize it', async () => {
    const page = await site.browser.newPage({ viewport: { width: 1000, height: 800 } });
    const errors = collectErrors(page);
    await page.goto(`${site.server.url}/index.html?tokens=one+two+three&heads=1`);
    await goLive(page);
    const { iframe: snippet } = await embedFrom(page.locator('#softmax .export-tools').first());
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
    expect(snippet).toContain(`e.origin!==${JSON.stringify(new URL(site.server.url).origin)}`);
    expect(snippet).toContain('tokens=one+two+three');

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
