// The page without JavaScript, and the same page as its script takes over. The build prerenders the
// walkthrough at the default settings (web/tooling/prerender-walkthrough.ts): with scripting off, the
// reader gets every step's heading and prose, the article's example's numbers and a note that says
// what they are, and no control that would do nothing; axe finds nothing serious. Under a strict CSP
// that names the prerendered <style> by its hash, the page styles and starts with no violation. With
// the script, a reader who only looks downloads no more than the page and its first script; the first
// key loads the live part, whose drawing replaces the prerendered one without moving anything (CLS ≤ 0.1
// over the load, on a phone and a desktop), and 20 settings changes stay under the same bound.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import type { Settings } from '../../web/src/settings';
import { STEP_REGISTRY } from '../../web/src/elements/step-registry';
import {
  axe,
  builtInlineStyles,
  collectErrors,
  distDir,
  layoutShifts,
  seriousViolations,
  serve,
  settled,
  useServerAndBrowser,
  watchLayoutShifts,
} from './harness';

/** The steps far down the page: the copy keeps their prose and names their figures. */
const LAZY_STEPS = STEP_REGISTRY.filter((entry) => 'figuresNamedInCopy' in entry && entry.figuresNamedInCopy).map((entry) => entry.id);

/** The article's example's numbers (tests/unit/article-numbers.test.ts checks where they come from). */
const ARTICLE_NUMBERS = ['1.30', '0.31', '0.26', '0.25', '0.18', '1.13'];
const PHONE = { width: 412, height: 823 };
const DESKTOP = { width: 1280, height: 900 };

/** The page's two inline <style>s (its own and the prerendered walkthrough's), as a CSP's style-src names them. */
function inlineStyleHashes(): string {
  const { page, walkthrough } = builtInlineStyles();
  return [page, walkthrough].map((css) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`).join(' ');
}

// The strict page's CSP names the built page's inline styles by hash: read from dist/ once the suite starts.
const site = useServerAndBrowser({
  serve: () => {
    const strictCsp = `default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' ${inlineStyleHashes()}`;
    return {
      headers: (path): Record<string, string> => (path === '/strict.html' ? { 'content-security-policy': strictCsp } : {}),
      routes: { '/strict.html': { body: readFileSync(join(distDir, 'index.html')) } },
    };
  },
});

async function open(options: BrowserContextOptions, path = '/index.html', init?: () => void): Promise<{ page: Page; errors: string[] }> {
  const context = await site.browser.newContext(options);
  const page = await context.newPage();
  if (init) await page.addInitScript(init);
  const errors = collectErrors(page);
  await page.goto(`${site.server.url}${path}`);
  return { page, errors };
}

interface StepText {
  id: string;
  heading: string;
  /** The step's first visible paragraphs of prose. */
  paragraphs: string[];
  /** Everything the step shows. */
  text: string;
}

/** Each step's heading, first paragraphs and visible text (innerText), read through the shadow root. */
function stepTexts(page: Page): Promise<StepText[]> {
  return page.locator('attention-walkthrough').evaluate((host) => {
    const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
    const sections = [...host.shadowRoot!.querySelectorAll<HTMLElement>('section.step')];
    // Off-screen sections skip rendering (content-visibility: auto), and innerText with them.
    for (const section of sections) section.style.setProperty('content-visibility', 'visible');
    return sections.map((section) => ({
      id: section.id,
      heading: squash(section.querySelector('h2')!.innerText),
      paragraphs: [...section.querySelectorAll<HTMLElement>('.step-body p:not(figure p, .predict p, .notice-area p)')]
        .filter((p) => p.checkVisibility()) // not inside a closed <details>
        .map((p) => {
          // The prose, without the buttons some paragraphs end with (scripting off hides those).
          const prose = p.cloneNode(true) as HTMLElement;
          for (const control of prose.querySelectorAll('button, input, select')) control.remove();
          return squash(prose.textContent ?? '');
        })
        .filter(Boolean)
        .slice(0, 3),
      text: squash(section.innerText),
    }));
  });
}

/** Buttons, fields and sliders anywhere on the page (light DOM and the shadow root) that are visible. */
function visibleControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const controls = 'button, input, select, textarea, [role="slider"], [role="button"], nav.toc';
    const host = document.querySelector('attention-walkthrough')!;
    return [...document.querySelectorAll<HTMLElement>(controls), ...host.shadowRoot!.querySelectorAll<HTMLElement>(controls)]
      .filter((node) => node.checkVisibility({ visibilityProperty: true }))
      .map((node) => `${node.localName}.${node.className} “${(node.textContent ?? '').trim().slice(0, 40)}”`);
  });
}

// The two tests have pages of their own: side by side, the axe run overlaps the two page loads.
describe.concurrent('with JavaScript off', () => {
  test('every step’s heading and prose reads as the live page shows it, with the article’s numbers and no control', async ({ expect }) => {
    const live = await open({ viewport: DESKTOP });
    await settled(live.page);
    // Step 1's note names the reader model's shape once the model is in, as the copy (made with it) does:
    // live (the copy's figure says "ready" too), it comes after going live.
    await live.page.locator('#problem .reader-figure[data-status="ready"]').waitFor({ state: 'attached' });
    await settled(live.page);
    const expected = await stepTexts(live.page);
    await live.page.context().close();
    expect(expected.length).toBeGreaterThanOrEqual(12);

    const { page, errors } = await open({ viewport: DESKTOP, javaScriptEnabled: false });
    const shown = await stepTexts(page);
    expect(shown.map((step) => step.heading)).toEqual(expected.map((step) => step.heading));
    for (const [i, step] of expected.entries()) {
      expect(step.paragraphs.length, step.id).toBeGreaterThan(0);
      for (const paragraph of step.paragraphs) expect(shown[i].text, `${step.id}: ${paragraph}`).toContain(paragraph);
    }
    const walkthroughText = shown.map((step) => step.text).join(' ');
    for (const number of ARTICLE_NUMBERS) expect(walkthroughText).toContain(number);

    expect(await visibleControls(page)).toEqual([]);
    // The note says what the numbers are; the engine's loading status, which would never change, is hidden.
    const note = page.locator('noscript p');
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toContain('the numbers below are the article’s example');
    expect(await page.locator('#engine-status').isVisible()).toBe(false);
    // Nothing has started: the element is not even defined, and its shadow root is the build's.
    expect(await page.locator('attention-walkthrough').getAttribute('data-ready')).toBeNull();
    // The copy holds nothing its reader cannot see or use (web/tooling/walkthrough-markup.ts): no hidden
    // element, TeX source, live-region or memo key, and every id reference it keeps resolves. It holds no
    // form field either (Chromium's autofill would lay out each field's section): stand-ins, each select's
    // showing one choice.
    const leftovers = await page.locator('attention-walkthrough').evaluate((host, lazySteps) => {
      const root = host.shadowRoot!;
      // A lazy step's figure is one line in the copy, which names it (its caption) and keeps its id.
      const lazyFigures = lazySteps.flatMap((id) =>
        [...root.querySelectorAll(`section#${id} :is(figure, table, svg, .colour-legend)`)].map((node) => `${id}: ${node.localName}`),
      );
      const lazyLines = lazySteps.map((id) => [...root.querySelectorAll(`section#${id} p.prerender-summary`)].map((p) => p.textContent));
      const unseen = [...root.querySelectorAll('[hidden], annotation, [aria-live], [data-key]')].map((node) => node.outerHTML.slice(0, 80));
      const dangling = [...root.querySelectorAll('[aria-controls], [aria-labelledby], [aria-describedby], [for]')].flatMap((node) =>
        ['aria-controls', 'aria-labelledby', 'aria-describedby', 'for'].flatMap((name) =>
          (node.getAttribute(name) ?? '')
            .split(/\s+/)
            .filter((id) => id && !root.getElementById(id))
            .map((id) => `${name}=${id}`),
        ),
      );
      const fields = [...root.querySelectorAll('input, select, textarea')].map((node) => node.outerHTML.slice(0, 80));
      const standIns = root.querySelectorAll('.field-stand-in').length;
      const choicesShown = [...root.querySelectorAll('.field-stand-in[data-field="select"]')].map(
        (select) => select.querySelectorAll(':scope > :not(.unchosen)').length,
      );
      return { unseen, dangling, formulas: root.querySelectorAll('math').length, lazyFigures, lazyLines, fields, standIns, choicesShown };
    }, LAZY_STEPS);
    expect(leftovers.unseen).toEqual([]);
    expect(leftovers.dangling).toEqual([]);
    expect(leftovers.fields).toEqual([]);
    expect(leftovers.standIns).toBeGreaterThan(0);
    expect(leftovers.choicesShown.length).toBeGreaterThan(0);
    expect(new Set(leftovers.choicesShown)).toEqual(new Set([1]));
    expect(leftovers.formulas).toBeGreaterThan(10); // the formulas themselves stay
    expect(leftovers.lazyFigures).toEqual([]);
    for (const [i, lines] of leftovers.lazyLines.entries()) {
      expect(lines.length, LAZY_STEPS[i]).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatch(/^\S.{8,}, drawn when the live page starts \(it needs JavaScript\)\.$/);
    }
    expect(leftovers.lazyLines.flat()).toContain('Full attention (every cell), drawn when the live page starts (it needs JavaScript).');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('axe-core finds no serious or critical violation', async ({ expect }) => {
    // axe runs as an injected script, so the page's own scripts are kept out by serving the HTML alone.
    const html = readFileSync(join(distDir, 'index.html'), 'utf8').replace(/<script\b[^>]*><\/script>/g, '');
    const alone = await serve({ routes: { '/no-script.html': { body: html } } });
    const context = await site.browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    try {
      await page.goto(`${alone.url}/no-script.html`);
      const results = await axe(page).analyze();
      expect(seriousViolations(results, 'no-script')).toEqual([]);
    } finally {
      await context.close();
      await alone.close();
    }
  }, 300_000); // axe on the whole walkthrough takes over a minute, and twice that on a loaded box
});

describe('with JavaScript on', () => {
  test('a reader who only looks downloads the page and its first script; the first key loads the live part', async () => {
    const from = site.server.requests.length;
    const { page, errors } = await open({ viewport: DESKTOP });
    // No timer starts the live part (web/src/main.ts), so after the load nothing else will come on its own.
    expect(await page.evaluate(() => document.documentElement.dataset.live)).toBe('waiting');
    // Nor does a pointer resting over the page: Chromium sends it a pointermove of (0, 0) when the layout
    // changes under it, which started the live part in about one load in 40 on a loaded machine. Moving
    // the mouse to where it already is sends the same.
    await page.mouse.move(0, 0);
    await page.mouse.move(0, 0);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
    expect(await page.evaluate(() => document.documentElement.dataset.live)).toBe('waiting');
    const looked = site.server.requests.slice(from);
    expect(looked.filter((path) => /\.(wasm|bin)$|elements-/.test(path))).toEqual([]);
    expect(await page.locator('#engine-status').innerText()).toMatch(/article’s example, worked out when this page was built/);
    const text = await page.locator('attention-walkthrough').evaluate((host) => host.shadowRoot!.textContent ?? '');
    for (const number of ARTICLE_NUMBERS) expect(text).toContain(number);

    await page.keyboard.press('Shift');
    await settled(page);
    expect(await page.evaluate(() => document.documentElement.dataset.ready)).toBe('true');
    const reached = site.server.requests.slice(from);
    // The engine's core, once; its later module comes with the steps that draw its kernels (in idle time).
    expect(reached.filter((path) => path.endsWith('.wasm') && !path.includes('_later'))).toHaveLength(1);
    expect(reached.filter((path) => path.endsWith('.wasm') && path.includes('_later')).length).toBeLessThanOrEqual(1);
    expect(reached.filter((path) => path.endsWith('.bin'))).toHaveLength(1);
    expect(await page.locator('#engine-status').innerText()).toMatch(/^Computed live by C\+\+/);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  // The phone's page, loaded once with the layout-shift watch: its CLS is read after the load, then again
  // after 20 settings changes on top (the observer is buffered from the start, so the second reading
  // covers the load and the changes, as it did on a page of its own).
  let phone: Promise<{ page: Page; errors: string[] }> | undefined;
  const phonePage = () => (phone ??= open({ viewport: PHONE }, '/index.html', watchLayoutShifts));
  afterAll(async () => {
    if (phone) await (await phone).page.context().close();
  });

  for (const [name, viewport] of [
    ['a phone', PHONE],
    ['a desktop', DESKTOP],
  ] as const) {
    test(`on ${name}, the live drawing replaces the prerendered one with CLS ≤ 0.1`, async () => {
      const { page, errors } = viewport === PHONE ? await phonePage() : await open({ viewport }, '/index.html', watchLayoutShifts);
      await settled(page);
      expect(await page.evaluate(() => document.documentElement.dataset.ready)).toBe('true');
      // The live drawing, not the build's: the prerendered <style> is gone, the adopted sheet styles it.
      expect(await page.locator('attention-walkthrough').evaluate((host) => host.shadowRoot!.querySelector('style'))).toBeNull();
      const { cls, entries } = await layoutShifts(page);
      expect(cls, entries.join('\n')).toBeLessThanOrEqual(0.1);
      expect(errors).toEqual([]);
      if (viewport !== PHONE) await page.context().close();
    });
  }

  test('20 settings changes, each computed and drawn: CLS ≤ 0.1 over them all', async () => {
    const { page, errors } = await phonePage();
    await settled(page);
    await page.locator('attention-walkthrough').evaluate((host) => host.setAttribute('debug', ''));
    const changes: Partial<Settings>[] = [
      { causal: true },
      { causal: false },
      { scale: false },
      { scale: true },
      { weights: 'trained' },
      { weights: 'random' },
      { seed: 7 },
      { seed: 8 },
      { heads: 1 },
      { heads: 2 },
      { causal: true },
      { weights: 'example' },
      { causal: false },
      { weights: 'trained', scale: false },
      { scale: true },
      { weights: 'random', seed: 9 },
      { causal: true },
      { causal: false },
      { weights: 'example' },
      { scale: false },
    ];
    for (const change of changes) {
      // Through the element's state, as a control's change goes (no input event: every shift counts).
      await page.locator('attention-walkthrough').evaluate((host, c) => {
        (host as unknown as { debug: { update(change: Partial<Settings>): void } }).debug.update(c);
      }, change);
      await settled(page);
    }
    expect(await page.evaluate(() => window.attentionWalkthrough!.config.scale)).toBe(false);
    const { cls, entries } = await layoutShifts(page);
    expect(cls, entries.join('\n')).toBeLessThanOrEqual(0.1);
    expect(errors).toEqual([]);
  });

  test('under a strict CSP naming the prerendered style’s hash: styled before the script, live after, no violation', async () => {
    const violations = () => {
      const seen: string[] = [];
      (window as unknown as { violations: string[] }).violations = seen;
      document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective}: ${event.blockedURI}`));
    };
    for (const javaScriptEnabled of [false, true]) {
      const { page, errors } = await open({ viewport: DESKTOP, javaScriptEnabled }, '/strict.html', violations);
      if (javaScriptEnabled) {
        await settled(page);
        expect(await page.evaluate(() => document.documentElement.dataset.ready)).toBe('true');
        expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([]);
      }
      // The element's CSS applies: the step headings' numbers are in the accent colour, not the text's.
      const colours = await page.locator('attention-walkthrough').evaluate((host) => {
        const number = host.shadowRoot!.querySelector('.step-number')!;
        return [getComputedStyle(number).color, getComputedStyle(number.closest('h2')!).color];
      });
      expect(colours[0]).not.toBe(colours[1]);
      expect(errors).toEqual([]);
      await page.context().close();
    }
  });
});
