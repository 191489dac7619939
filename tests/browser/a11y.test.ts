// Accessibility beyond the walkthrough (whose axe run is in walkthrough.test.ts): axe-core on the docs
// page and on an author's page of embeds, in light and dark, with every element started; and a
// keyboard-only pass through every control of <attention-walkthrough>'s settings bar — reached with
// Tab, operated with keys alone, each one changing the state it names, each one showing focus.
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { STEP_ELEMENTS, WALKTHROUGH_ELEMENT } from '../../web/src/elements/registry';
import { collectErrors, launchBrowser, serve, type StaticServer } from './harness';

const TAGS = [...Object.values(STEP_ELEMENTS), WALKTHROUGH_ELEMENT];

const HOST = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>An author's article with embeds</title></head><body><main>
<h1>My article</h1><p>Prose around the figures.</p>
${Object.values(STEP_ELEMENTS).map((tag, i) => `<h2>Figure ${i + 1}</h2><${tag} tokens="the cat sat on the mat" ${i % 3 === 0 ? 'controls="none"' : ''}></${tag}>`).join('\n')}
<h2>Everything</h2><attention-walkthrough tokens="we predict the next word" causal></attention-walkthrough>
</main><script type="module" src="./embed/attention-by-hand.js"></script></body></html>`;

let server: StaticServer;
let browser: Browser;

beforeAll(async () => {
  server = await serve({ routes: { '/host.html': { body: HOST } } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function startAll(page: Page): Promise<number> {
  const elements = page.locator(`main :is(${TAGS.join(', ')})`);
  const count = await elements.count();
  for (let i = 0; i < count; i++) {
    const element = elements.nth(i);
    if (!(await element.evaluate((el) => customElements.get(el.localName) !== undefined))) continue; // named in the registry, not yet in the bundle
    await element.scrollIntoViewIfNeeded();
    await expect.poll(() => element.getAttribute('data-ready'), { timeout: 30_000 }).toBe('true');
  }
  return count;
}

async function seriousViolations(path: string, colorScheme: 'light' | 'dark'): Promise<string[]> {
  const context = await browser.newContext({ colorScheme, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${server.url}${path}`);
  expect(await startAll(page)).toBeGreaterThanOrEqual(10);
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${path} ${colorScheme} ${v.id} (${v.impact}): ${v.nodes.length} nodes, e.g. ${v.nodes[0]?.target.join(' ')} — ${v.nodes[0]?.failureSummary?.replace(/\s+/g, ' ')}`);
  expect(errors).toEqual([]);
  await context.close();
  return serious;
}

describe('axe-core: no serious or critical violation', () => {
  for (const path of ['/docs.html', '/host.html']) {
    for (const scheme of ['light', 'dark'] as const) {
      test(`${path}, ${scheme}`, async () => {
        expect(await seriousViolations(path, scheme)).toEqual([]);
      }, 600_000);
    }
  }
});

/** The focused element, through shadow roots: its name attribute, else its class, else its tag. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    let node: Element | null = document.activeElement;
    while (node?.shadowRoot?.activeElement) node = node.shadowRoot.activeElement;
    if (!node) return 'none';
    return node.getAttribute('name') ?? (node.className ? `.${String(node.className).split(' ')[0]}` : node.localName);
  });
}

function focusOutline(page: Page): Promise<string> {
  return page.evaluate(() => {
    let node: Element | null = document.activeElement;
    while (node?.shadowRoot?.activeElement) node = node.shadowRoot.activeElement;
    const style = getComputedStyle(node!);
    return style.outlineStyle === 'none' || style.outlineWidth === '0px' ? 'none' : `${style.outlineStyle} ${style.outlineWidth}`;
  });
}

const settingsOf = (page: Page) => page.evaluate(() => window.attentionWalkthrough!.config);

describe('keyboard only', () => {
  test('Tab reaches every control of the settings bar in order, and each one works from the keyboard', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = collectErrors(page);
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');

    // From the top of the page: the skip link first, then into the element's settings bar.
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('.skip-link');
    let presses = 0;
    while ((await focused(page)) !== 'tokens' && presses++ < 20) await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('tokens');

    const order: string[] = [];
    const outlines: string[] = [];
    const step = async () => {
      order.push(await focused(page));
      outlines.push(await focusOutline(page));
    };

    // 1. The sentence: select all, type, leave with Tab (commits one history entry).
    await step();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('a cat sat');
    await page.keyboard.press('Tab');
    await expect.poll(() => settingsOf(page).then((s) => s.sentence)).toBe('a cat sat');

    // 2. Preset: arrow keys on a closed select pick the next option.
    await step();
    await page.keyboard.press('ArrowDown'); // "The article's sentence"
    await expect.poll(() => settingsOf(page).then((s) => s.sentence)).toBe('The animal crossed the road because it was tired.');
    await page.keyboard.press('Tab');

    // 3. d_model: 8 -> 12.
    await step();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => settingsOf(page).then((s) => s.dModel)).toBe(12);
    await page.keyboard.press('Tab');

    // 4. Heads: 2 -> 3 (the next divisor of 12).
    await step();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => settingsOf(page).then((s) => s.heads)).toBe(3);
    await page.keyboard.press('Tab');

    // 5. Head shown: head 1 -> head 2.
    await step();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => settingsOf(page).then((s) => s.head)).toBe(1);
    await page.keyboard.press('Tab');

    // 6, 7. The checkboxes: Space.
    await step();
    await page.keyboard.press('Space');
    await expect.poll(() => settingsOf(page).then((s) => s.causal)).toBe(true);
    await page.keyboard.press('Tab');
    await step();
    await page.keyboard.press('Space');
    await expect.poll(() => settingsOf(page).then((s) => s.scale)).toBe(false);
    await page.keyboard.press('Tab');

    // 8. Seed: arrow up steps it; typing a number and Enter sets it.
    await step();
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => settingsOf(page).then((s) => s.seed)).toBe(2);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('1234');
    await page.keyboard.press('Enter');
    await expect.poll(() => settingsOf(page).then((s) => s.seed)).toBe(1234);
    // Emptied and left: the seed stays, the field shows it again, and the notice says why.
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Tab');
    await expect.poll(() => page.locator('attention-walkthrough .notices').innerText()).toMatch(/seed must be a number; the field was empty or unreadable, so it stays 1234/);
    expect(await page.locator('input[name="seed"]').inputValue()).toBe('1234');

    // 9. "New random weights": Enter.
    await step();
    await page.keyboard.press('Enter');
    await expect.poll(() => settingsOf(page).then((s) => s.seed)).not.toBe(1234);

    expect(order).toEqual(['tokens', 'preset', 'd_model', 'heads', 'head', 'causal', 'scale', 'seed', '.reseed']);
    expect(outlines.filter((o) => o === 'none'), `focus not visible on: ${order.filter((_, i) => outlines[i] === 'none').join(', ')}`).toEqual([]);
    // Everything the keys did is in the URL.
    expect(page.url()).toMatch(/d_model=12/);
    expect(page.url()).toMatch(/heads=3/);
    expect(page.url()).toMatch(/causal=1/);
    expect(page.url()).toMatch(/scale=0/);
    expect(errors).toEqual([]);
    await page.close();
  });
});
