// The settings bar as a reader meets it, with real keys and clicks: one compact row on a desktop, a
// toggle on a phone that is there at any step and opens with the keyboard, anchors that land below
// it, a typed sentence that Back undoes, notices in view and once each, no layout shift under the
// reader, and d_k written with a subscript.
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { collectErrors, goLive, layoutShifts, settled, useServerAndBrowser, watchLayoutShifts } from './harness';

const site = useServerAndBrowser();

// Each test has a page (a context) of its own. The suites whose checks wait only on what the page reports
// (or poll a layout) run concurrently; the history suite, whose commits hang on real pauses between keys
// and on the bar's one-second history throttle, runs alone.
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 360, height: 740 };

async function open(query = '', viewport = DESKTOP, init?: () => void): Promise<{ page: Page; errors: string[] }> {
  const context = await site.browser.newContext({ viewport });
  const page = await context.newPage();
  if (init) await page.addInitScript(init);
  const errors = collectErrors(page);
  await page.goto(`${site.server.url}/index.html${query}`);
  await goLive(page);
  return { page, errors };
}

const sentenceOf = (page: Page) => page.evaluate(() => window.attentionWalkthrough!.config.sentence);
const box = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((node) => {
      const r = node.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, height: r.height, left: r.left, right: r.right };
    });

describe.concurrent('the bar’s size', () => {
  // Trained weights (the default) hide the seed, which only picks random weights; random ones show it.
  for (const [query, count, shows] of [
    [
      '',
      9,
      /^Step 1 shows the reader model; steps 2–7, 13 the article’s example \(4 tokens, d_model 8, h = 1\); steps 8–11 the trained model on the sentence/,
    ],
    ['?weights=random&seed=4294967295', 10, /^Steps 1–11, 13 show random weights \(seed 4294967295\) on the sentence/],
  ] as const) {
    test(`at 1280 px${query}: one row of controls, at most 72 px tall, every control in it, and a line saying what the steps show`, async ({
      expect,
    }) => {
      const { page, errors } = await open(query);
      const bar = await box(page, '.controls');
      expect(bar.height).toBeGreaterThan(40);
      expect(bar.height).toBeLessThanOrEqual(72);
      // Under the controls, one line: which numbers the steps below show.
      // (The small trained model of steps 8–11 comes with their first drawing, in idle time after going live.)
      const line = page.locator('.settings-shows');
      await expect.poll(() => line.innerText()).toMatch(shows);
      expect((await box(page, '.settings-shows')).height).toBeLessThanOrEqual(24);
      // One row: every control ends on the same line, inside the bar.
      const bottoms = await page
        .locator('.controls [data-control]:not([hidden])')
        .evaluateAll((controls) => controls.map((c) => Math.round(c.getBoundingClientRect().bottom)));
      expect(bottoms.length).toBe(count);
      expect(Math.max(...bottoms) - Math.min(...bottoms)).toBeLessThanOrEqual(1);
      expect(Math.max(...bottoms)).toBeLessThanOrEqual(bar.bottom);
      // The sentence field is wide enough to read the article's sentence whole, and the seed field its ten digits.
      const field = page.locator('input[name="tokens"]');
      expect(await field.evaluate((input: HTMLInputElement) => input.scrollWidth <= input.clientWidth)).toBe(true);
      const seed = page.locator('input[name="seed"]');
      expect(await seed.isVisible()).toBe(count === 10);
      if (count === 10) expect(await seed.evaluate((input: HTMLInputElement) => input.scrollWidth <= input.clientWidth)).toBe(true);
      // Every step's note names a model and shape the bar's line names too (one model per view, said once).
      await page.evaluate(() => document.querySelector('attention-walkthrough')!.updateComplete);
      const barLine = await line.innerText();
      const shapes = await page
        .locator('section.step .worked-example-text')
        .evaluateAll((notes) => notes.flatMap((note) => note.textContent!.match(/\(\d+ tokens?, d_model \d+, h = \d+\)/g) ?? []));
      // Every step but the training one (and the example's first, which says it in full; and with the example,
      // step 1, whose note names the reader model by its layers, and the bar by name).
      expect(shapes.length).toBe(count === 9 ? 10 : 12);
      for (const shape of shapes) expect(barLine).toContain(shape);
      if (count === 9) {
        expect(await page.locator('#problem .worked-example-text').textContent()).toMatch(/^This step shows the reader model[ ,]/);
        expect(barLine).toMatch(/^Step 1 shows the reader model;/);
      }
      // A control the numbers fix looks disabled (computed style), is disabled, and says why.
      const fixed = page.locator(count === 9 ? 'select[name="heads"]' : 'select[name="head"]');
      expect(await fixed.isDisabled()).toBe(true);
      expect(await fixed.getAttribute('title')).not.toBe('');
      const look = await fixed.evaluate((node) => ({
        opacity: Number(getComputedStyle(node).opacity),
        cursor: getComputedStyle(node).cursor,
      }));
      expect(look.opacity).toBeLessThan(0.7);
      expect(look.cursor).toBe('default');
      if (count === 9) {
        // Step 8's head counts other than the trained model's 2 too.
        const other = page.locator('#multi-head .multi-head-choice[data-heads="4"]');
        expect(await other.isDisabled()).toBe(true);
        expect(await other.getAttribute('title')).toMatch(/^The trained model has h = 2/);
        expect(await other.evaluate((node) => [Number(getComputedStyle(node).opacity) < 0.7, getComputedStyle(node).cursor])).toEqual([
          true,
          'default',
        ]);
      }
      // It stays at the top of the screen further down.
      await page.locator('#causal').scrollIntoViewIfNeeded();
      expect((await box(page, '.settings-bar')).top).toBe(0);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  test('at 360 px: a slim sticky row, reachable at step 7, opened and closed with the keyboard', async ({ expect }) => {
    const { page, errors } = await open('', PHONE);
    await page.evaluate(() => document.querySelector('attention-walkthrough')!.scrollToStep('causal'));
    await expect.poll(async () => (await box(page, '#causal')).top).toBeLessThan(200);
    const bar = await box(page, '.settings-bar');
    expect(bar.top).toBe(0);
    expect(bar.height).toBeLessThanOrEqual(56);
    const toggle = page.getByRole('button', { name: /^Settings/ });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('input[name="causal"]').isVisible()).toBe(false);

    await toggle.focus();
    await page.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    const causal = page.locator('input[name="causal"]');
    await expect.poll(() => causal.isVisible()).toBe(true);
    // The sheet fits the screen (it scrolls inside itself) and its controls work from the keyboard.
    const sheet = await box(page, '.settings-drop');
    expect(sheet.bottom).toBeLessThanOrEqual(PHONE.height + 1);
    await page.keyboard.press('Tab');
    expect(
      await page.evaluate(() => document.querySelector('attention-walkthrough')!.shadowRoot!.activeElement?.getAttribute('name')),
    ).toBe('tokens');
    await causal.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => page.evaluate(() => window.attentionWalkthrough!.config.causal)).toBe(true);
    // Escape closes the sheet and gives focus back to the toggle; the reader is still at step 7.
    await page.keyboard.press('Escape');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await expect.poll(() => causal.isVisible()).toBe(false);
    expect(await page.evaluate(() => document.querySelector('attention-walkthrough')!.shadowRoot!.activeElement?.className)).toBe(
      'settings-toggle',
    );
    expect((await box(page, '#causal')).bottom).toBeGreaterThan(0);
    // A tap outside closes it too.
    await page.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await page.mouse.click(180, 600);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

/** Whether step `id`'s top has landed within 24 px below the settings bar's bottom, `barBottom`. */
async function landedBelow(page: Page, id: string, barBottom: number): Promise<boolean> {
  const top = (await box(page, `#${id}`)).top;
  return top >= barBottom && top <= barBottom + 24;
}

describe.concurrent('anchors land below the bar', () => {
  for (const [name, viewport] of [
    ['1280 px', DESKTOP],
    ['360 px', PHONE],
  ] as const) {
    test(`a contents link at ${name}`, async ({ expect }) => {
      const { page, errors } = await open('', viewport);
      await page.locator('nav.toc a[href="#softmax"]').click();
      await expect.poll(() => page.evaluate(() => location.hash)).toBe('#softmax');
      const barBottom = (await box(page, '.settings-bar')).bottom;
      // scrollToStep aligns the heading again while the sections above take their real size.
      await expect.poll(() => landedBelow(page, 'softmax', barBottom), { timeout: 15_000 }).toBe(true);
      const heading = await box(page, '#softmax h2');
      expect(heading.top).toBeGreaterThan(barBottom);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  test('a #step link opened from outside', async ({ expect }) => {
    const { page, errors } = await open('#weighted-sum');
    const barBottom = (await box(page, '.settings-bar')).bottom;
    await expect.poll(() => landedBelow(page, 'weighted-sum', barBottom), { timeout: 15_000 }).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

describe('history: Back and Forward walk the reader’s changes', () => {
  test('typing a sentence and Enter adds one entry; Back returns to the previous sentence, Forward to the new one', async () => {
    const { page, errors } = await open();
    const before = await sentenceOf(page);
    const field = page.locator('input[name="tokens"]');
    await field.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('the cat sat on the mat');
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.get('tokens')).toBe('the cat sat on the mat');
    await page.goBack();
    await expect.poll(() => sentenceOf(page)).toBe(before);
    expect(new URL(page.url()).origin).toBe(site.server.url); // still on the page
    await expect.poll(() => field.inputValue()).toBe(before); // the field follows, focused or not
    await page.goForward();
    await expect.poll(() => sentenceOf(page)).toBe('the cat sat on the mat');
    await expect.poll(() => field.inputValue()).toBe('the cat sat on the mat');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('a pause in typing commits (one entry per pause, not per key); leaving the field adds no second one', async () => {
    const { page, errors } = await open();
    const length = () => page.evaluate(() => history.length);
    const start = await length();
    const field = page.locator('input[name="tokens"]');
    await field.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('a dog ran', { delay: 30 });
    // While the keys come, the figures follow but the link waits.
    await expect.poll(() => sentenceOf(page)).toBe('a dog ran');
    await expect.poll(() => new URL(page.url()).searchParams.get('tokens'), { timeout: 5_000 }).toBe('a dog ran');
    expect(await length()).toBe(start + 1);
    await page.keyboard.press('Tab'); // blur: already committed
    expect(await length()).toBe(start + 1);
    await page.waitForTimeout(1100); // the bar's history throttle treats pushes within a second as one
    await field.click();
    await page.keyboard.press('End');
    await page.keyboard.type(' home');
    await page.keyboard.press('Tab');
    await expect.poll(() => new URL(page.url()).searchParams.get('tokens')).toBe('a dog ran home');
    expect(await length()).toBe(start + 2);
    await page.goBack();
    await expect.poll(() => sentenceOf(page)).toBe('a dog ran');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

const noticeItems = (page: Page) => page.locator('.notices li').allTextContents();
const settingsOfPage = (page: Page) => page.evaluate(() => window.attentionWalkthrough!.config);

describe.concurrent('notices: once, in view, never contradicting', () => {
  test('?head=99: exactly one notice, and it names what is shown', async ({ expect }) => {
    const { page, errors } = await open('?weights=random&heads=2&head=99'); // the random weights' wording
    expect(await noticeItems(page)).toEqual(['There are only 2 heads, so head 2 is shown instead of head 99.']);
    // Step 8's maps mark the head the single-head figures show.
    expect(await settingsOfPage(page)).toMatchObject({ heads: 2, head: 1 });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('a long word: “shortened” once, and not again at the next change', async ({ expect }) => {
    const { page, errors } = await open(`?tokens=${'x'.repeat(60)}+cat`);
    expect(await noticeItems(page)).toEqual(['Words longer than 40 characters were shortened.']);
    await page.locator('input[name="scale"]').click();
    await expect.poll(() => page.evaluate(() => window.attentionWalkthrough!.config.scale)).toBe(false);
    expect(await page.locator('.notices').isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('pasting 5,000 words at step 5: nothing cut silently, one notice, in view', async ({ expect }) => {
    const { page, errors } = await open('?weights=random'); // all 256 words (the trained model reads 16)
    await page.evaluate(() => document.querySelector('attention-walkthrough')!.scrollToStep('softmax'));
    await page.waitForTimeout(300);
    const field = page.locator('input[name="tokens"]');
    await field.click();
    await page.keyboard.press('ControlOrMeta+A');
    const words = Array.from({ length: 5000 }, (_, i) => `w${i}`).join(' ');
    // The field holds the whole paste (no maxlength cut it), read as its input event arrives: the page
    // may show the sentence it keeps (the first 256 words) in the field any time after that.
    await field.evaluate((el) =>
      el.addEventListener('input', () => (el.dataset.pastedLength = String((el as HTMLInputElement).value.length)), { once: true }),
    );
    await page.keyboard.insertText(words); // as a paste arrives: one input event
    expect(await field.getAttribute('data-pasted-length')).toBe(String(words.length));
    await expect.poll(() => noticeItems(page)).toEqual(['Only the first 256 of 5000 words are used: the page shows at most 256 tokens.']);
    const notice = await box(page, '.notices');
    expect(notice.top).toBeGreaterThanOrEqual(0);
    expect(notice.bottom).toBeLessThanOrEqual(DESKTOP.height);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => window.attentionWalkthrough!.result.pipeline.n)).toBe(256);
    expect(await noticeItems(page)).toHaveLength(1);
    // The reader is still at step 5.
    expect((await box(page, '#softmax')).bottom).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

describe.concurrent('no layout shift under the reader', () => {
  test('CLS at most 0.1 over the load and 20 changes made at step 6', async ({ expect }) => {
    const { page, errors } = await open('?weights=random', DESKTOP, watchLayoutShifts); // changes d_model too
    await settled(page);
    const load = (await layoutShifts(page)).cls;
    // To step 6 as a reader goes there: the contents link, clicked (input, so CLS leaves the jump itself out).
    await page.locator('nav.toc a[href="#weighted-sum"]').click();
    await page.waitForTimeout(600);
    const field = page.locator('input[name="tokens"]');
    const sentences = [
      'the cat sat',
      'a much longer sentence with many more words in it than before',
      'short',
      'we predict the next word',
      'the animal crossed the road because it was tired.',
    ];
    let changes = 0;
    const heading = () => box(page, '#weighted-sum h2');
    const headingTops: number[] = [];
    for (let round = 0; changes < 20; round++) {
      await field.click();
      await page.keyboard.press('ControlOrMeta+A');
      // Pasted, as one input event: typed key by key, each key would compute and draw a sentence of its
      // own (the figures follow the keys), whose shifts CLS forgives as input anyway.
      await page.keyboard.insertText(sentences[round % sentences.length]);
      await page.keyboard.press('Enter');
      changes++;
      await settled(page);
      await page.waitForTimeout(600); // past the 500 ms that CLS forgives after input
      headingTops.push(Math.round((await heading()).top));
      for (const name of ['causal', 'scale']) {
        if (changes >= 20) break;
        await page.locator(`input[name="${name}"]`).press('Space');
        changes++;
        await settled(page);
        await page.waitForTimeout(600);
      }
      if (changes < 20) {
        // With the keyboard, as a reader changes it (a scripted selectOption is not input, so CLS would count its shifts).
        await page.locator('select[name="d_model"]').focus();
        await page.keyboard.press(round % 2 ? 'ArrowUp' : 'ArrowDown');
        changes++;
        await settled(page);
        await page.waitForTimeout(600);
      }
    }
    const shifts = await layoutShifts(page);
    console.log(
      `CLS: load ${load.toFixed(4)}, load and ${changes} changes ${shifts.cls.toFixed(4)} (all shifts, input included: ${shifts.all.toFixed(4)}); step 6 heading at ${headingTops.join(', ')}`,
    );
    expect(changes).toBe(20);
    expect(load).toBeLessThanOrEqual(0.1);
    expect(shifts.cls).toBeLessThanOrEqual(0.1);
    // The step being read stays where it is: whatever the sentence, its heading does not move.
    expect(Math.max(...headingTops) - Math.min(...headingTops)).toBeLessThanOrEqual(2);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

describe.concurrent('d_k is written with a subscript', () => {
  test('no literal “d_k” in any heading, paragraph, list, table, label, caption, control or notice', async ({ expect }) => {
    const { page, errors } = await open('?d_model=12&heads=5'); // a notice that names dₖ
    await settled(page);
    const found = await page.evaluate(() => {
      const root = document.querySelector('attention-walkthrough')!.shadowRoot!;
      const selector =
        'h1, h2, h3, h4, p, li, td, summary, caption, figcaption, label, legend, th, button, option, output, .notices, .settings-bar, [aria-label]';
      // Not shown as text: a formula's TeX source (MathML annotation) and NumPy code, where d_k is a Python name.
      const visibleText = (node: Element) => {
        const copy = node.cloneNode(true) as Element;
        copy.querySelectorAll('annotation, pre, code').forEach((hidden) => hidden.remove());
        return copy.textContent ?? '';
      };
      const hits: string[] = [];
      for (const node of [...document.querySelectorAll(selector), ...root.querySelectorAll(selector)]) {
        if (node.closest('pre, code')) continue;
        const text = `${visibleText(node)} ${node.getAttribute('aria-label') ?? ''}`;
        if (text.includes('d_k')) hits.push(`${node.localName}: ${text.trim().slice(0, 80)}`);
      }
      return {
        hits,
        subscripts: root.querySelectorAll('.settings-bar sub').length,
        notice: root.querySelector('.notices')?.textContent ?? '',
      };
    });
    expect(found.hits).toEqual([]);
    expect(found.subscripts).toBeGreaterThanOrEqual(3); // d_model, d_k readout, √d_k (and the phone summary)
    expect(found.notice).toContain('(dₖ = 3)');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
