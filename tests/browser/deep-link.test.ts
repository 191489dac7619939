// A link to one step (index.html#causal) opens the page at that step, below the settings bar, and the
// page does not move under the reader while the live figures replace the prerendered ones: layout
// shift (CLS, as Lighthouse counts it) at most 0.1 for every step, on a desktop and on a phone.
import type { Page } from 'playwright-core';
import { describe, test } from 'vitest';
import { collectErrors, layoutShifts, settled, stillTop, useServerAndBrowser, watchLayoutShifts } from './harness';

const site = useServerAndBrowser();

/**
 * The step's top once it has stayed put for 30 frames (scrollToStep realigns it for at most 20 frames after
 * the first computation, so a later move would be a shift this test exists to catch), the settings bar's
 * bottom and the step's scroll-margin-top.
 */
async function landing(page: Page, id: string): Promise<{ top: number; barBottom: number; margin: number }> {
  const top = await stillTop(page.locator(`attention-walkthrough #${id}`), 30);
  return page.evaluate(
    ({ id, top }) => {
      const root = document.querySelector('attention-walkthrough')!.shadowRoot!;
      return {
        top,
        barBottom: root.querySelector('.controls')!.getBoundingClientRect().bottom,
        margin: parseFloat(getComputedStyle(root.getElementById(id)!).scrollMarginTop),
      };
    },
    { id, top },
  );
}

const VIEWPORTS = [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 360, height: 740 }],
] as const;

// The two screens' tests each have a context of their own and wait only on what their pages report (the
// drawing, then 30 still frames): run side by side, one's waits overlap the other's page loads.
describe.concurrent('a link to a step', () => {
  for (const [name, viewport] of VIEWPORTS) {
    test(`on a ${name}, every step's link lands on it below the bar, with CLS ≤ 0.1`, async ({ expect }) => {
      const context = await site.browser.newContext({ viewport });
      await context.addInitScript(watchLayoutShifts);
      // Every step the page has, in its order, as its table of contents links them.
      const first = await context.newPage();
      await first.goto(`${site.server.url}/index.html`);
      const ids = await first.evaluate(() =>
        [...document.querySelector('attention-walkthrough')!.shadowRoot!.querySelectorAll('nav.toc a')].map((a) =>
          a.getAttribute('href')!.slice(1),
        ),
      );
      await first.close();
      expect(ids.length).toBeGreaterThanOrEqual(12);
      // The last steps: the page cannot scroll them to the top when what follows is shorter than the screen.
      const lastFull = ids.length - 2;
      for (const [index, id] of ids.entries()) {
        // A page of its own each: a goto that changes only the fragment would not load the page again.
        const page = await context.newPage();
        const errors = collectErrors(page);
        await page.goto(`${site.server.url}/index.html#${id}`);
        await settled(page);
        const { top, barBottom, margin } = await landing(page, id);
        const label = `#${id} on a ${name}`;
        // Not under the bar, and where scroll-margin-top puts it (half a line below the bar, walkthrough.css).
        expect(top, label).toBeGreaterThanOrEqual(barBottom - 1);
        if (index <= lastFull) expect(Math.abs(top - margin), label).toBeLessThan(2);
        expect(top, label).toBeLessThan(viewport.height / 2);
        const { cls, entries } = await layoutShifts(page);
        expect(cls, `${label}: ${entries.join(', ')}`).toBeLessThanOrEqual(0.1);
        expect(errors, label).toEqual([]);
        await page.close();
      }
      await context.close();
    }, 300_000);
  }

  // The live walkthrough replaces each prerendered section with its live one when it draws, later on a slow
  // phone: a section above the step (at another height) and the step itself. Done here at once, right after
  // the landing, so that it does not depend on the machine's timing.
  test('a linked step stays below the bar when the sections above it and the step itself are replaced', async ({ expect }) => {
    const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${site.server.url}/index.html#cost`);
    await page.waitForSelector('attention-walkthrough[data-ready]');
    const replaced = await page.evaluate(() => {
      const root = document.querySelector('attention-walkthrough')!.shadowRoot!;
      const above = root.getElementById('multi-head')!;
      const taller = above.cloneNode(true) as HTMLElement;
      taller.style.paddingTop = '700px';
      above.replaceWith(taller);
      const step = root.getElementById('cost')!;
      step.replaceWith(step.cloneNode(true));
      return root.getElementById('cost') !== step;
    });
    expect(replaced).toBe(true);
    const { top, barBottom, margin } = await landing(page, 'cost');
    expect(top).toBeGreaterThanOrEqual(barBottom - 1);
    expect(Math.abs(top - margin)).toBeLessThan(2);
    await context.close();
  }, 120_000);
});
