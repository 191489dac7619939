// The walkthrough as a reader uses it: the built site in Debian's Chromium, driven with real
// keyboard and pointer events, numbers checked against the engine's own snapshot.
import type { Page } from 'playwright-core';
import { describe, test } from 'vitest';
import { axeFor, collectErrors, goLive, seriousViolations, settled, showAllSections, useServerAndBrowser } from './harness';

const site = useServerAndBrowser();

/** @param clock  install Playwright's clock before the page loads (time runs as usual until the test moves it). */
async function open(query = '', { clock = false } = {}): Promise<{ page: Page; errors: string[] }> {
  const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = collectErrors(page);
  if (clock) await page.clock.install();
  await page.goto(`${site.server.url}/${query}`);
  await goLive(page);
  return { page, errors };
}

/** The page's current snapshot, as plain numbers. */
function settingsOf(page: Page) {
  return page.evaluate(() => window.attentionWalkthrough!.result.settings);
}

const number = (text: string | null) => Number((text ?? '').replace('\u2212', '-'));

// Every test has its own page (a context of its own) and waits only on what that page reports, so they
// run concurrently: on two cores the axe run's two pages and the short tests' page loads overlap.
describe.concurrent('the walkthrough in Chromium', () => {
  test('loads straight into a complete page: every step, numbers, no console error', async ({ expect }) => {
    const { page, errors } = await open();
    const headings = await page.locator('section.step h2').allTextContents();
    expect(headings.length).toBe(13); // the article's steps, long context, training and the FAQ
    expect(headings[0]).toMatch(/^1\./);
    expect(await page.locator('#scores table.matrix').count()).toBeGreaterThanOrEqual(3);
    // Every section's text (textContent: off-screen sections skip rendering, so their innerText is empty).
    const text = (await page.locator('section.step').allTextContents()).join('\n');
    expect(text.length).toBeGreaterThan(5000);
    expect(text).not.toMatch(/\bNaN\b|undefined|Infinity/);
    // Chromium's autofill re-reads every field outside a form after each change (controlForm in ui/dom.ts).
    const loose = await page.evaluate(() =>
      [...document.querySelector('attention-walkthrough')!.shadowRoot!.querySelectorAll('input, select, textarea')]
        .filter((field) => !(field as HTMLInputElement).form)
        .map((field) => field.outerHTML.slice(0, 100)),
    );
    expect(loose).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('a score cell chosen with the keyboard shows arithmetic that adds up to the cell', async ({ expect }) => {
    const { page, errors } = await open();
    const scores = page.locator('#scores table.matrix').nth(2);
    await scores.locator('td[tabindex="0"]').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    const selected = scores.locator('td.selected');
    expect(await selected.getAttribute('data-row')).toBe('2');
    expect(await selected.getAttribute('data-col')).toBe('1');
    const terms = await page
      .locator('#scores .by-hand .term')
      .evaluateAll((nodes) => nodes.map((n) => Number((n as HTMLElement).dataset.a) * Number((n as HTMLElement).dataset.b)));
    const result = number(await page.locator('#scores .by-hand-result').textContent());
    expect(number(await selected.textContent())).toBeCloseTo(result, 5);
    expect(terms.reduce((a, b) => a + b, 0)).toBeCloseTo(result, 2);
    // And the engine agrees with the cell.
    const engineValue = await page.evaluate(() => {
      const s = window.attentionWalkthrough!.result;
      const p = s.pipeline;
      return p.scores.data[s.settings.head * p.n * p.n + 2 * p.n + 1];
    });
    expect(result).toBeCloseTo(engineValue, 2);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('a click on a score cell selects it', async ({ expect }) => {
    const { page } = await open('?weights=random');
    const cell = page.locator('#scores table.matrix').nth(2).locator('td[data-row="6"][data-col="1"]');
    await cell.click();
    expect(await cell.getAttribute('aria-selected')).toBe('true');
    expect(await page.locator('#scores .by-hand-title').textContent()).toContain('“it” attends to “animal”');
    await page.close();
  });

  test('the controls work from the keyboard, and the URL reproduces the state after reload', async ({ expect }) => {
    // Random weights: with the trained model, h is the model's and its control is disabled.
    const { page, errors } = await open('?weights=random');
    // The heads control is step 8's: its buttons h = 1, 2, 4, 8.
    await page.locator('#multi-head button[data-heads="4"]').focus();
    await page.keyboard.press('Enter');
    await settled(page);
    expect((await settingsOf(page)).heads).toBe(4);
    await page.locator('input[name="causal"]').focus();
    await page.keyboard.press('Space');
    await settled(page);
    expect((await settingsOf(page)).causal).toBe(true);
    await page.locator('input[name="tokens"]').fill('');
    await page.locator('input[name="tokens"]').pressSequentially('a cat sat');
    await page.keyboard.press('Tab');
    await settled(page);
    expect(await page.evaluate(() => window.attentionWalkthrough!.result.pipeline.n)).toBe(3);
    const url = page.url();
    expect(url).toContain('heads=4');
    expect(url).toContain('weights=random');
    expect(url).toContain('causal=1');
    expect(url).toContain('tokens=a+cat+sat');
    const before = await page.evaluate(() => Array.from(window.attentionWalkthrough!.result.pipeline.weights.data));
    await page.reload();
    await goLive(page);
    expect(await settingsOf(page)).toMatchObject({ heads: 4, causal: true, sentence: 'a cat sat' });
    const after = await page.evaluate(() => Array.from(window.attentionWalkthrough!.result.pipeline.weights.data));
    expect(after).toEqual(before);
    expect(await page.locator('input[name="tokens"]').inputValue()).toBe('a cat sat');
    expect(errors).toEqual([]);
    await page.close();
  });

  test('back and forward move between settings', async ({ expect }) => {
    const { page } = await open('', { clock: true });
    const entries = () => page.evaluate(() => history.length);
    const first = await entries();
    await page.locator('input[name="scale"]').click();
    await settled(page);
    expect((await settingsOf(page)).scale).toBe(false);
    expect(await entries()).toBe(first + 1);
    // A second push within a second replaces the entry, by design: move the page's clock past that second.
    await page.clock.fastForward(1100);
    await page.locator('input[name="causal"]').click();
    await settled(page);
    expect((await settingsOf(page)).causal).toBe(true);
    expect(await entries()).toBe(first + 2);
    await page.goBack();
    await settled(page);
    expect(await settingsOf(page).then((s) => [s.scale, s.causal])).toEqual([false, false]);
    expect(await page.locator('input[name="causal"]').isChecked()).toBe(false);
    await page.goForward();
    await settled(page);
    expect((await settingsOf(page)).causal).toBe(true);
    await page.close();
  });

  test('"New random weights" changes the seed and every number', async ({ expect }) => {
    const { page } = await open();
    const before = await page.evaluate(() => window.attentionWalkthrough!.result.pipeline.scores.data[1]);
    await page.getByRole('button', { name: 'New random weights' }).click();
    await settled(page);
    expect((await settingsOf(page)).seed).not.toBe(1);
    const after = await page.evaluate(() => window.attentionWalkthrough!.result.pipeline.scores.data[1]);
    expect(after).not.toBe(before);
    await page.close();
  });

  test('a broken URL shows a notice and a working page', async ({ expect }) => {
    const { page, errors } = await open('?d_model=1e9&heads=-3&seed=NaN&causal=perhaps&tokens=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E');
    const notice = page.locator('.notices');
    expect(await notice.isVisible()).toBe(true); // shown with the first drawing
    const text = await notice.innerText();
    expect(text).toMatch(/d_model must be from 1 to 512/);
    expect(text).toMatch(/seed must be a number/);
    expect(await settingsOf(page)).toMatchObject({ dModel: 512, heads: 1, seed: 1, causal: false });
    // The markup is a token, shown as text, not an element.
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.locator('#scores tbody th').first().textContent()).toBe('<img');
    expect(errors).toEqual([]);
    await page.close();
  });

  test('axe finds no serious or critical accessibility violation, light and dark', async ({ expect }) => {
    // The two schemes in two pages at once, one renderer thread each; dark checks the colour rules (axeFor).
    const violations = await Promise.all(
      (['light', 'dark'] as const).map(async (colorScheme) => {
        const context = await site.browser.newContext({ colorScheme });
        const page = await context.newPage();
        await page.goto(`${site.server.url}/`);
        await goLive(page);
        await showAllSections(page);
        const results = await axeFor(page, colorScheme).analyze();
        await context.close();
        return seriousViolations(results, colorScheme);
      }),
    );
    expect(violations.flat()).toEqual([]);
  }, 1_200_000); // axe walks every shadow-DOM table of twelve sections twice, beside the other tests: minutes on a loaded 2-core machine
});
