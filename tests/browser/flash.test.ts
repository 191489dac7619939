// Step 10 (FlashAttention) in Chromium, as a reader uses it: every tile stepped through with the
// buttons and the keyboard, ending at the same output table as step 6; autoplay and
// prefers-reduced-motion; the block size from the URL and from the step's own control; and the
// "Run it on my machine" measurement in its Web Worker (capped at small n through the figure's
// data-max-n test hook): progress, a responsive page while it runs, a fitted slope, cancel. Then the
// <attention-flash> element from the embed bundle, same-origin under a strict CSP and from another origin.
import type { Page } from 'playwright-core';
import { describe, test } from 'vitest';
import {
  attributeMatching,
  axeFor,
  collectErrors,
  goLive,
  hostPage,
  seriousViolations,
  serve,
  settled,
  started,
  stillTop,
  useServerAndBrowser,
} from './harness';

const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
const AUTOPLAY_MS = 1400;

/** The author's article around `body`, loading the bundle from `script`. */
const tilesPage = (script: string, body: string) =>
  hostPage(`<h1>Tiles</h1><p>Prose by the author.</p>${body}`, { title: 'Host article', script });

const FLASH_ELEMENT =
  '<attention-flash tokens="we predict the next word one tile at a time" block="3" causal controls="none"></attention-flash>';

const site = useServerAndBrowser({
  serve: {
    headers: (path) => ({
      'access-control-allow-origin': '*',
      ...(path.endsWith('.html') ? { 'content-security-policy': STRICT_CSP } : {}),
    }),
    routes: { '/host.html': { body: tilesPage('./embed/attention-by-hand.js', FLASH_ELEMENT) } },
  },
});

/**
 * @param clock installs Playwright's fake clock before the page loads: its timers (autoplay's
 * setInterval among them) then run only as the test advances time with page.clock.runFor().
 */
async function open(
  query = '',
  reducedMotion: 'reduce' | 'no-preference' = 'reduce',
  clock = false,
): Promise<{ page: Page; errors: string[] }> {
  const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 }, reducedMotion });
  const errors = collectErrors(page);
  if (clock) await page.clock.install();
  await page.goto(`${site.server.url}/${query}`);
  await goLive(page);
  return { page, errors };
}

/**
 * For autoplay: the page is loaded and every step drawn (the fake clock still runs as real time), then
 * the clock stops, so no tile moves unless the test advances it.
 */
async function drawnThenPaused(page: Page): Promise<void> {
  await settled(page);
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
}

/**
 * Scrolls the stepper into view and resolves once the step's own IntersectionObserver has been told: an
 * observer made here, with the step's margin, is notified in the same task, after the step's (observers
 * are notified in the order they were made).
 */
function scrollIntoStepperView(page: Page): Promise<void> {
  return stepperOf(page).evaluate(
    (stepper) =>
      new Promise<void>((resolve) => {
        const observer = new IntersectionObserver(
          (entries) => {
            if (!entries.some((entry) => entry.isIntersecting)) return;
            observer.disconnect();
            resolve();
          },
          { rootMargin: '0px 0px -40% 0px' },
        );
        observer.observe(stepper);
        stepper.scrollIntoView({ block: 'center' });
      }),
  );
}

const stepperOf = (page: Page) => page.locator('#flash .flash-stepper');
const positionOf = async (page: Page) => Number(await stepperOf(page).getAttribute('data-position'));
const totalOf = async (page: Page) => Number(await stepperOf(page).getAttribute('data-total'));
/** How long a tile cell's transition lasts, in seconds (none under reduced motion). */
const tileTransitionSeconds = (page: Page) =>
  page
    .locator('#flash .flash-tile-cell')
    .first()
    .evaluate((td) => parseFloat(getComputedStyle(td).transitionDuration));

/** Runs the measurement with the test hook's cap and waits for it to finish. */
async function runCapped(page: Page, scope: string, maxN: number): Promise<void> {
  const figure = page.locator(`${scope} .flash-run`);
  await figure.evaluate((el, n) => {
    (el as HTMLElement).dataset.maxN = String(n);
  }, maxN);
  await figure.locator('.flash-run-start').click();
  await attributeMatching(figure, 'data-phase', /^(done|failed|cancelled)$/);
}

/** The progress bar's value once a first measurement has come in (start() removes it; 'started' sets 0). */
const SOME_PROGRESS = /^(0\.\d*[1-9]|[1-9])/;

// Every test has a page of its own and waits only on what it reports (autoplay's timers on a clock the test
// moves), so the three blocks run their tests side by side (consecutive concurrent blocks do).
describe.concurrent('FlashAttention in the walkthrough', () => {
  test('every tile, with the buttons and the keyboard; the last one shows step 6’s output and a difference below 1e-5', async ({
    expect,
  }) => {
    const { page, errors } = await open('?weights=random&heads=2'); // d_k 4: 9 × 4 = 36 entries
    const stepper = stepperOf(page);
    // textContent: innerText is empty for a section the browser has not rendered yet (content-visibility: auto, off screen).
    expect(await page.locator('#flash h2').textContent()).toMatch(/^\s*10\.\s*FlashAttention/);
    expect(await page.locator('#train h2').textContent()).toMatch(/^\s*12\.\s*Train it yourself/);
    expect(await page.locator('#faq h2').textContent()).toMatch(/^\s*13\./);
    const total = await totalOf(page);
    expect(total).toBe(9); // 9 tokens in blocks of 4: 3 x 3 tiles
    expect(await positionOf(page)).toBe(0);

    // Buttons: click, then keyboard on a focused button.
    await page.locator('#flash .flash-next').click();
    expect(await positionOf(page)).toBe(1);
    await page.locator('#flash .flash-prev').focus();
    await page.keyboard.press('Tab'); // to Next, with a visible focus ring
    expect(await page.locator('#flash .flash-next').evaluate((b) => b === (b.getRootNode() as ShadowRoot).activeElement)).toBe(true);
    expect(await page.locator('#flash .flash-next').evaluate((b) => getComputedStyle(b).outlineStyle)).not.toBe('none');
    await page.keyboard.press('Enter');
    expect(await positionOf(page)).toBe(2);
    await page.keyboard.press('Space');
    expect(await positionOf(page)).toBe(3);

    // Arrow keys on the figure, one tile per press, to the end.
    await stepper.focus();
    for (let expected = 4; expected < total; expected++) {
      await page.keyboard.press('ArrowRight');
      expect(await positionOf(page)).toBe(expected);
      expect(await page.locator('#flash .flash-position').innerText()).toBe(`Tile ${expected + 1} of ${total}`);
    }
    await page.keyboard.press('ArrowRight');
    expect(await positionOf(page)).toBe(total - 1);
    expect(await page.locator('#flash .flash-next').isDisabled()).toBe(true);
    await page.keyboard.press('Home');
    expect(await positionOf(page)).toBe(0);
    expect(await page.locator('#flash .flash-diff').isHidden()).toBe(true);
    await page.keyboard.press('End');
    expect(await positionOf(page)).toBe(total - 1);

    // The end: the difference is shown and tiny, and the output table is step 6's table.
    const diff = page.locator('#flash .flash-diff');
    expect(await diff.isVisible()).toBe(true);
    expect(Number(await diff.getAttribute('data-value'))).toBeLessThan(1e-5);
    expect(await diff.innerText()).toMatch(/Largest difference between the two, over all 36 entries: (0|\d\.\d × 10⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+)\./);
    const cells = (selector: string) => page.locator(selector).locator('td').allTextContents();
    const stepSix = await cells('#weighted-sum table.matrix:has(caption:text-matches("^output = weights V"))');
    expect(stepSix).toHaveLength(36);
    expect(await cells('#flash table.flash-output')).toEqual(stepSix);
    expect(await cells('#flash table.flash-naive')).toEqual(stepSix);
    // And the numbers behind them agree to 1e-5 in the page's own snapshot.
    const worst = await page.evaluate(() => {
      const s = window.attentionWalkthrough!.result;
      const p = s.pipeline;
      const out = s.flash.trace!.output.data;
      let w = 0;
      for (let i = 0; i < out.length; i++) w = Math.max(w, Math.abs(out[i] - p.headOutputs.data[s.settings.head * p.n * p.dK + i]));
      return w;
    });
    expect(worst).toBeLessThan(1e-5);

    // The cost step links here, inside the same shadow root.
    expect(await page.locator('#cost .cost-flash a[href="#flash"]').count()).toBe(1);
    expect(await page.locator('#cost .cost-flash a[href="#flash-run"]').count()).toBe(1);
    expect(await page.locator('#faq a[href="#flash-run"]').count()).toBe(1);
    await page.locator('#cost .cost-flash a[href="#flash"]').click();
    // The step realigns its target for a few frames as sections near it get their real height
    // (attention-element.ts, scrollToStep: until it stays put for 3 frames, 20 at most): wait for 4 still ones.
    const top = Math.round(await stillTop(page.locator('#flash h2'), 4));
    expect(top).toBeLessThan(200);
    const text = await page.locator('#flash').innerText();
    expect(text).not.toMatch(/\bNaN\b|undefined|Infinity/);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('reduced motion: nothing plays by itself; Autoplay, once pressed, advances without transitions', async ({ expect }) => {
    const { page } = await open('', 'reduce', true);
    const autoplay = page.locator('#flash .flash-autoplay');
    await drawnThenPaused(page);
    await scrollIntoStepperView(page);
    // Two autoplay intervals of the page's (fake) time with the figure in view: nothing moved.
    await page.clock.runFor(AUTOPLAY_MS * 2);
    expect(await positionOf(page)).toBe(0);
    expect(await autoplay.getAttribute('aria-pressed')).toBe('false');
    await autoplay.click();
    expect(await autoplay.getAttribute('aria-pressed')).toBe('true');
    // One tile an interval, exactly.
    await page.clock.runFor(AUTOPLAY_MS - 1);
    expect(await positionOf(page)).toBe(0);
    await page.clock.runFor(1);
    expect(await positionOf(page)).toBe(1);
    await page.clock.runFor(AUTOPLAY_MS);
    expect(await positionOf(page)).toBe(2);
    const duration = await tileTransitionSeconds(page);
    expect(duration).toBeLessThan(0.001);
    await autoplay.click();
    expect(await autoplay.getAttribute('aria-pressed')).toBe('false');
    await page.clock.runFor(AUTOPLAY_MS * 2);
    expect(await positionOf(page)).toBe(2);
    await page.close();
  });

  test('no reduced-motion preference: the tiles play when the figure comes into view, until the reader steps', async ({ expect }) => {
    const { page } = await open('', 'no-preference', true);
    const autoplay = page.locator('#flash .flash-autoplay');
    await drawnThenPaused(page);
    expect(await autoplay.getAttribute('aria-pressed')).toBe('false');
    await page.clock.runFor(AUTOPLAY_MS * 2); // out of view, nothing plays
    expect(await positionOf(page)).toBe(0);
    await scrollIntoStepperView(page);
    expect(await autoplay.getAttribute('aria-pressed')).toBe('true');
    expect(await positionOf(page)).toBe(0);
    await page.clock.runFor(AUTOPLAY_MS);
    expect(await positionOf(page)).toBe(1);
    const duration = await tileTransitionSeconds(page);
    expect(duration).toBeGreaterThan(0.05);
    await page.locator('#flash .flash-next').click();
    expect(await autoplay.getAttribute('aria-pressed')).toBe('false');
    expect(await positionOf(page)).toBe(2);
    await page.clock.runFor(AUTOPLAY_MS * 3);
    expect(await positionOf(page)).toBe(2);
    await page.close();
  });

  test('block and causal from the URL: 25 tiles, 10 skipped, the same output; the step’s control writes `block` to the URL', async ({
    expect,
  }) => {
    const { page, errors } = await open('?block=2&causal=1');
    expect(await totalOf(page)).toBe(25);
    expect(await page.locator('#flash table.flash-tiles td[data-state="skipped"]').count()).toBe(10);
    await stepperOf(page).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight'); // query block 1 x key block 3: above the diagonal
    expect(await page.locator('#flash .flash-status').innerText()).toMatch(/skipped/);
    expect(await page.locator('#flash table.flash-k td.hl').count()).toBe(0);
    await page.keyboard.press('End');
    expect(Number(await page.locator('#flash .flash-diff').getAttribute('data-value'))).toBeLessThan(1e-5);

    const range = page.locator('#flash .flash-block-control input[type="range"]');
    expect(await range.inputValue()).toBe('2');
    await range.focus();
    await page.keyboard.press('ArrowRight');
    await settled(page);
    expect(await page.evaluate(() => location.search)).toContain('block=3');
    expect(await totalOf(page)).toBe(9);
    expect(await positionOf(page)).toBe(0);
    expect(errors).toEqual([]);
    await page.close();

    const bad = await open('?block=99');
    expect(await bad.page.locator('.notices').first().innerText()).toContain('The block size must be from 1 to 16; 99 was changed to 16');
    expect(await totalOf(bad.page)).toBe(1);
    await bad.page.close();
  });

  test('Run it on my machine: nothing before Run; progress while a worker measures, the page stays responsive; a slope; Cancel', async ({
    expect,
  }) => {
    const { page, errors } = await open();
    const figure = page.locator('#flash .flash-run');
    const progress = figure.locator('progress');
    await settled(page); // every step drawn: the measurement has not started by itself
    expect(await figure.getAttribute('data-phase')).toBeNull();
    expect(await figure.locator('.flash-run-results').isHidden()).toBe(true);

    // A capped run (the test hook): 128 .. 1024 for both kernels.
    await figure.evaluate((el) => {
      (el as HTMLElement).dataset.maxN = '1024';
    });
    await figure.locator('.flash-run-start').click();
    expect(await figure.locator('.flash-run-start').isDisabled()).toBe(true);
    expect(await figure.locator('.flash-run-cancel').isEnabled()).toBe(true);
    await attributeMatching(progress, 'value', SOME_PROGRESS);
    expect(await progress.evaluate((p) => (p as HTMLProgressElement).position)).toBeGreaterThan(0);
    // The measurement runs in a worker (its script was fetched), and the stepper answers meanwhile. Whether
    // the run is still going at the click depends on the machine's speed, so it is not asserted; how fast
    // the page answers during a run is a timing, measured by npm run bench.
    const before = await positionOf(page);
    await page.locator('#flash .flash-next').click();
    expect(await positionOf(page)).toBe(before + 1);
    expect(site.server.requests.some((path) => /^\/assets\/cost-worker-[\w-]+\.js$/.test(path))).toBe(true);
    expect(await attributeMatching(figure, 'data-phase', /^(done|failed|cancelled)$/)).toBe('done');
    expect(await progress.evaluate((p) => (p as HTMLProgressElement).value)).toBe(1);
    const slope = figure.locator('.flash-run-slope');
    expect(await slope.innerText()).toMatch(/naive time slope [−-]?\d\.\d\d, tiled time slope [−-]?\d\.\d\d/);
    for (const kernel of ['naive', 'tiled']) {
      const value = Number(await slope.getAttribute(`data-${kernel}-slope`));
      // A fitted number, whatever its sign: a capped run's few small sizes on a busy machine can time
      // a larger n faster, and tests never assert a time.
      expect(Number.isFinite(value)).toBe(true);
    }
    expect(await figure.locator('table.flash-run-table tbody tr').count()).toBe(4);
    expect(await figure.locator('table.flash-run-table td.flash-run-empty').count()).toBe(0);
    expect(await figure.locator('svg.line-chart').count()).toBe(2);
    expect(await figure.locator('svg.line-chart circle.series-naive').count()).toBe(8); // 4 sizes on each of the two charts
    expect(await figure.innerText()).not.toMatch(/\bNaN\b|undefined|Infinity/);

    // Cancel, uncapped this time: it stops at once and keeps what was measured.
    await figure.evaluate((el) => {
      delete (el as HTMLElement).dataset.maxN;
    });
    const worker = page.waitForEvent('worker');
    await figure.locator('.flash-run-start').click();
    const terminated = new Promise<void>((resolve) => void worker.then((w) => w.once('close', () => resolve())));
    await attributeMatching(progress, 'value', SOME_PROGRESS); // a first size measured
    expect(await figure.locator('table.flash-run-table td[data-ms]').count()).toBeGreaterThan(0);
    await figure.locator('.flash-run-cancel').click();
    expect(await figure.getAttribute('data-phase')).toBe('cancelled');
    expect(await figure.locator('.flash-run-status').innerText()).toMatch(/^Cancelled/);
    expect(await figure.locator('.flash-run-start').isEnabled()).toBe(true);
    expect(await figure.locator('.flash-run-cancel').isDisabled()).toBe(true);
    expect(await progress.evaluate((p) => (p as HTMLProgressElement).value)).toBeLessThan(1);
    const table = await figure.locator('table.flash-run-table').innerText();
    // The worker is terminated (nothing it measures can arrive any more), and the table stays as it was.
    await terminated;
    await settled(page);
    expect(await figure.locator('table.flash-run-table').innerText()).toBe(table);
    expect(table).toContain('16k');
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.concurrent('axe-core on step 10', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    test(`no serious accessibility violation in the step at its last tile (skipped tiles, comparison) with measured results, ${colorScheme}`, async ({
      expect,
    }) => {
      const context = await site.browser.newContext({ colorScheme, reducedMotion: 'reduce', viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${site.server.url}/?causal=1&block=3`);
      await goLive(page);
      await runCapped(page, '#flash', 512);
      const problems: string[] = [];
      for (const key of ['End']) {
        await stepperOf(page).focus();
        await page.keyboard.press(key);
        // Only the flash section (inside the walkthrough's shadow root): the rest of the page has its own axe test.
        const results = await axeFor(page, colorScheme)
          .include({ fromShadowDom: ['attention-walkthrough', '#flash'] })
          .analyze();
        problems.push(...seriousViolations(results, `${colorScheme} tile ${await positionOf(page)}`));
      }
      expect(problems).toEqual([]);
      await context.close();
    }, 240_000);
  }
});

describe.concurrent('<attention-flash> from the embed bundle', () => {
  test('same origin under a strict CSP: the tiles and the measurement (worker) both run, no violation', async ({ expect }) => {
    const page = await site.browser.newPage({ reducedMotion: 'reduce' });
    const errors = collectErrors(page);
    await page.addInitScript(() => {
      const list: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = list;
      document.addEventListener('securitypolicyviolation', (e) => list.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await page.goto(`${site.server.url}/host.html`);
    const element = page.locator('attention-flash');
    await element.scrollIntoViewIfNeeded();
    expect(await started(element)).toBe('true');
    const stepper = element.locator('.flash-stepper');
    expect(await stepper.getAttribute('data-total')).toBe('16'); // 10 tokens in blocks of 3: 4 x 4 tiles
    expect(await element.locator('table.flash-tiles td[data-state="skipped"]').count()).toBe(6);
    await element.locator('.flash-stepper').focus();
    await page.keyboard.press('End');
    expect(Number(await element.locator('.flash-diff').getAttribute('data-value'))).toBeLessThan(1e-5);
    await runCapped(page, 'attention-flash', 1024);
    expect(await element.locator('.flash-run').getAttribute('data-phase')).toBe('done');
    expect(await element.locator('.flash-run-slope').innerText()).toMatch(/naive time slope [−-]?\d\.\d\d/);
    expect(site.server.requests.some((path) => /^\/embed\/cost-worker-[\w-]+\.js$/.test(path))).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('from another origin: the tiles work; the measurement says it runs on the walkthrough’s own page', async ({ expect }) => {
    const host = await serve({
      root: '/nonexistent',
      routes: { '/article.html': { body: tilesPage(`${site.server.url}/embed/attention-by-hand.js`, FLASH_ELEMENT) } },
    });
    const page = await site.browser.newPage({ reducedMotion: 'reduce' });
    const errors = collectErrors(page);
    await page.goto(`${host.url}/article.html`);
    const element = page.locator('attention-flash');
    await element.scrollIntoViewIfNeeded();
    expect(await started(element)).toBe('true');
    expect(await element.locator('.flash-stepper').getAttribute('data-total')).toBe('16');
    await element.locator('.flash-run-start').click();
    // A worker script must come from the page's own origin: the browser refuses it, and the figure says so.
    expect(await attributeMatching(element.locator('.flash-run'), 'data-phase', /^(done|failed|cancelled)$/)).toBe('failed');
    expect(await element.locator('.flash-run-status').innerText()).toMatch(/runs on the walkthrough’s own page/);
    expect(await element.locator('.flash-run-start').isEnabled()).toBe(true);
    // The rest keeps working.
    await element.locator('.flash-next').click();
    expect(await element.locator('.flash-stepper').getAttribute('data-position')).toBe('1');
    expect(errors.filter((e) => !/cost-worker/.test(e))).toEqual([]);
    await page.close();
    await host.close();
  });
});
