// Fuzz: random parameter sets through the page's two outside boundaries, in the real page.
//   - URL: random queries on ONE walkthrough page (pushState + popstate, the page's own back/forward
//     path), and some more as full loads of index.html?<query>.
//   - Attributes: random attribute sets on running elements of every kind on ONE host page.
// For each: no uncaught error or console error, the settings shown are exactly what validation in
// settings.ts makes of the input, its notices are on screen, every step is drawn for them, no NaN /
// Infinity / undefined in any figure, every weight finite and every row summing to 1 (or 0 where fully
// masked), the page intact.
// Depth: by default 100 URL queries through popstate plus 4 full page loads, and 125 attribute sets,
// seed 20240611, so every run of `npm test` is the same run: a CI run never turns red on cases no run
// before it tried. Exploring is the deep run's job, and FUZZ_SEED=<n> tries another seed (the seed is in
// the suite's name, so a failure prints it). The deep run is
//   FUZZ_URL_CASES=700 FUZZ_ATTRIBUTE_CASES=700 npx vitest run --config vitest.browser.config.ts tests/browser/fuzz.test.ts
// (the page loads scale with FUZZ_URL_CASES: 30 at 700).
// Waiting: each case waits on what the page reports (attention-change, the element's updateComplete),
// never on a time.
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import { SETTING_ATTRIBUTES } from '../../web/src/elements/attributes';
import { STEP_ELEMENTS } from '../../web/src/elements/registry';
import { DEFAULT_SETTINGS, settingsFromParams, shownSettings, type Settings } from '../../web/src/settings';
import { TRAIN_ATTRIBUTES, trainSettingsFrom } from '../../web/src/features/training/train-settings';
import { FuzzRng, fuzzSeed, rawParams } from '../unit/fuzz-values';
import { collectErrors, goLive, hostPage, settled, started, useServerAndBrowser } from './harness';

const URL_CASES = Number(process.env.FUZZ_URL_CASES ?? 100);
/** Full page loads after the popstate cases: 30 for 700 cases (the deep run), at least 3. */
const URL_LOADS = Math.max(3, Math.round((URL_CASES * 30) / 700));
const ATTRIBUTE_CASES = Number(process.env.FUZZ_ATTRIBUTE_CASES ?? 125);
const SEED = fuzzSeed(20240611);
/** Per test. The hardening run took 1,479 s for the URL test and 1,376 s for the attributes on the shared two-core
 *  box at load 8–22: 25 minutes was too close. Every case still asserts everything; this only allows a slow machine. */
const FUZZ_TIMEOUT = 2_700_000;

/** Every step element the registry names (those the built bundle defines are used). */
const REGISTERED_TAGS = Object.values(STEP_ELEMENTS);
/** The whole walkthrough: one section per step, as its table of contents lists them (at least the article's 10). */
const ALL_STEPS = -1;
const HOST = hostPage(
  `${REGISTERED_TAGS.map((tag) => `<${tag}></${tag}>`).join('\n')}
<attention-walkthrough></attention-walkthrough>`,
  { title: 'Fuzz host' },
);

const site = useServerAndBrowser({ serve: { routes: { '/host.html': { body: HOST } } } });

interface PageReport {
  /** Every step shows the element's latest snapshot (nothing left for idle time). */
  drawn: boolean;
  settings: Settings | null;
  resultSettings: Settings | null;
  notices: string[];
  noticesVisible: boolean;
  sections: number;
  tocEntries: number;
  badText: string[];
  numericProblems: string[];
}

/**
 * Runs in the page: everything the test asserts about one element after a case. Figures must not show
 * NaN, Infinity or undefined; notices may quote the reader's own input (“NaN”) but nothing else.
 */
function inspect(element: Element): PageReport {
  type WithState = Element & {
    config: Settings | null;
    result: { settings: Settings; pipeline: Record<string, unknown> } | null;
    debug: { drawn(): boolean } | null;
  };
  const el = element as WithState;
  const root = el.shadowRoot!;
  const badText: string[] = [];
  const bad = /\bNaN\b|Infinity|undefined|\[object /;
  for (const part of root.querySelectorAll('section.step, .controls')) {
    // A step's own notice area (the train step's) may quote the reader's input: checked like the notices below.
    let text = part.textContent ?? '';
    if (part.querySelector('.notice-area')) {
      const copy = part.cloneNode(true) as Element;
      copy.querySelectorAll('.notice-area').forEach((area) => area.remove());
      text = copy.textContent ?? '';
    }
    for (const item of part.querySelectorAll('.notice-area li')) {
      const unquoted = (item.textContent ?? '').replace(/“[^”]*”/g, '');
      if (bad.test(unquoted)) badText.push(`step notice: ${item.textContent}`);
    }
    const match = bad.exec(text);
    if (match)
      badText.push(
        `${(part as HTMLElement).dataset.step ?? part.className}: …${text.slice(Math.max(0, match.index - 40), match.index + 40)}…`,
      );
    // format.ts draws NaN as "?" and ±Infinity as "∞": no computed cell may hold either (an open
    // histogram bin's edge "∞" and a masked score's "−∞" are by design).
    for (const cell of part.querySelectorAll('td, output, .stat, .by-hand-result')) {
      const value = (cell.textContent ?? '').trim();
      const computed = cell.hasAttribute('data-value') || cell.classList.contains('by-hand-result');
      if (/^\?%?$/.test(value) || (computed && /(^|[^\u2212-])∞/.test(value)))
        badText.push(`${(part as HTMLElement).dataset.step ?? part.className} cell: ${value}`);
    }
    for (const node of part.querySelectorAll('[aria-label], [title]')) {
      const label = `${node.getAttribute('aria-label') ?? ''} ${node.getAttribute('title') ?? ''}`;
      if (bad.test(label)) badText.push(`label: ${label.slice(0, 80)}`);
    }
  }
  const noticeBox = root.querySelector('.notices') as HTMLElement | null;
  const notices = [...(noticeBox?.querySelectorAll('li') ?? [])].map((li) => li.textContent ?? '');
  for (const notice of notices) {
    const unquoted = notice.replace(/“[^”]*”/g, '');
    if (bad.test(unquoted)) badText.push(`notice: ${notice}`);
  }
  const numericProblems: string[] = [];
  const result = el.result;
  if (result) {
    const p = result.pipeline as Record<string, { data?: ArrayLike<number> } | number>;
    for (const [key, value] of Object.entries(p)) {
      const data = typeof value === 'object' && value && 'data' in value ? value.data : null;
      if (!data) continue;
      for (let i = 0; i < data.length; i++) {
        if (!Number.isFinite(data[i])) {
          numericProblems.push(`${key}[${i}] = ${data[i]}`);
          break;
        }
      }
    }
    const n = p.n as number;
    const weights = (p.weights as { data: Float32Array }).data;
    const masked = p.fullyMaskedRows as unknown as Uint8Array;
    for (let r = 0; r < weights.length / n; r++) {
      let sum = 0;
      for (let c = 0; c < n; c++) sum += weights[r * n + c];
      const expected = masked[r % n] ? 0 : 1;
      if (Math.abs(sum - expected) > 1e-4) numericProblems.push(`weights row ${r} sums to ${sum}`);
    }
  }
  return {
    drawn: el.debug?.drawn() ?? false,
    settings: el.config,
    resultSettings: result?.settings ?? null,
    notices,
    noticesVisible: noticeBox ? !noticeBox.hidden : false,
    sections: root.querySelectorAll('section.step').length,
    tocEntries: root.querySelectorAll('nav.toc li').length,
    badText,
    numericProblems,
  };
}

function checkReport(report: PageReport, expected: { settings: Settings; notices: string[] }, sections: number, label: string): void {
  expect(report.drawn, label).toBe(true);
  // element.config reports the shape shown (the trained model's, the example's); the snapshot the settings.
  expect(report.settings, label).toEqual(shownSettings(expected.settings));
  expect(report.resultSettings, label).toEqual(expected.settings);
  if (sections === ALL_STEPS) {
    expect(report.sections, label).toBeGreaterThanOrEqual(10);
    expect(report.sections, label).toBe(report.tocEntries);
  } else {
    expect(report.sections, label).toBe(sections);
  }
  expect(report.badText, label).toEqual([]);
  expect(report.numericProblems, label).toEqual([]);
  if (expected.notices.length > 0) {
    expect(report.noticesVisible, label).toBe(true);
    for (const notice of expected.notices) expect(report.notices, label).toContain(notice);
  }
}

/** Makes inspect() callable in the page (and after every navigation) as window.__fuzzInspect. */
async function withInspect(page: Page): Promise<void> {
  await page.addInitScript(`window.__fuzzInspect = ${inspect.toString()};`);
}

declare global {
  interface Window {
    __fuzzInspect(element: Element | null): PageReport;
  }
}

function waitReady(page: Page): Promise<void> {
  return goLive(page, 60_000);
}

/** The slowest cases, for the log: a drawing-time regression shows up here first. */
const slowest: { ms: number; label: string }[] = [];
function timed(ms: number, label: string): void {
  slowest.push({ ms, label: label.slice(0, 160) });
  slowest.sort((a, b) => b.ms - a.ms);
  slowest.length = Math.min(slowest.length, 5);
}

let urlCount = 0;
let attributeCount = 0;

describe(`fuzz (seed ${SEED})`, () => {
  test(
    `${URL_CASES} random URLs on one walkthrough page, and ${URL_LOADS} as full page loads`,
    async () => {
      const rng = new FuzzRng(SEED);
      const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors = collectErrors(page);
      await withInspect(page);
      await page.goto(`${site.server.url}/index.html`);
      await waitReady(page);
      await page.evaluate(() => document.querySelector('attention-walkthrough')!.setAttribute('debug', ''));
      for (let i = 0; i < URL_CASES + URL_LOADS; i++) {
        const query = new URLSearchParams(rawParams(rng)).toString();
        const expected = settingsFromParams(new URLSearchParams(query));
        const label = `URL case ${i}: ?${query.slice(0, 300)}`;
        let report: PageReport;
        const begun = performance.now();
        if (i < URL_CASES) {
          // The page's own history path: a new entry, then back/forward's popstate reads it.
          report = await page.evaluate(async (query) => {
            type Walkthrough = Element & { debug: { flush(): void }; updateComplete: Promise<void> };
            const element = document.querySelector('attention-walkthrough') as Walkthrough;
            let changes = 0;
            const changed = () => changes++;
            element.addEventListener('attention-change', changed);
            history.pushState(null, '', `?${query}`);
            dispatchEvent(new PopStateEvent('popstate'));
            // The popstate handler has validated the URL and asked for a drawing. Steps off screen would
            // wait for idle time: compute the asked-for settings and draw every step now (one engine call),
            // then look at every one once the element says it is done.
            element.debug.flush();
            await element.updateComplete;
            element.removeEventListener('attention-change', changed);
            if (changes === 0) throw new Error('the popstate drew no snapshot (no attention-change)');
            return window.__fuzzInspect(element);
          }, query);
        } else {
          await page.goto(`${site.server.url}/index.html?${query}`);
          await waitReady(page).catch(async (error: unknown) => {
            const state = await page.evaluate(() => ({
              ready: document.documentElement.dataset.ready,
              status: document.getElementById('engine-status')?.textContent,
            }));
            throw new Error(`${label}: not ready (${JSON.stringify(state)}; errors ${JSON.stringify(errors)}): ${String(error)}`);
          });
          // The first attention-change of a loaded page comes once every step is drawn; updateComplete
          // also covers any change after it. Nothing is flushed: this is the page drawing on its own.
          await settled(page);
          report = await page.evaluate(() => {
            const element = document.querySelector('attention-walkthrough')!;
            element.setAttribute('debug', '');
            return window.__fuzzInspect(element);
          });
        }
        timed(performance.now() - begun, label);
        checkReport(report, expected, ALL_STEPS, label);
        expect(errors, label).toEqual([]);
        urlCount++;
      }
      expect(await page.locator('h1').innerText()).toBe('Attention, worked out by hand');
      await page.close();
    },
    FUZZ_TIMEOUT,
  );

  test(
    `${ATTRIBUTE_CASES} random attribute sets on running elements of every kind`,
    async () => {
      const rng = new FuzzRng(SEED ^ 0x5eed);
      const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors = collectErrors(page);
      await withInspect(page);
      await page.goto(`${site.server.url}/host.html`);
      const STEP_TAGS = await page.evaluate((tags) => tags.filter((tag) => customElements.get(tag)), REGISTERED_TAGS);
      expect(STEP_TAGS.length).toBeGreaterThanOrEqual(10);
      const tags = [...STEP_TAGS, 'attention-walkthrough'];
      for (const tag of tags) {
        const element = page.locator(tag);
        await element.scrollIntoViewIfNeeded();
        expect(await started(element), tag).toBe('true');
      }
      await page.evaluate((tags) => tags.forEach((tag) => document.querySelector(tag)!.setAttribute('debug', '')), tags);
      const paramToAttribute = Object.fromEntries(Object.entries(SETTING_ATTRIBUTES).map(([attribute, param]) => [param, attribute]));
      for (let i = 0; i < ATTRIBUTE_CASES; i++) {
        // Mostly single steps (cheap to draw); every tenth case the whole walkthrough.
        const tag = i % 10 === 9 ? 'attention-walkthrough' : rng.pick(STEP_TAGS);
        const attributes: [string, string][] = [];
        // theme first: the notices on screen are those of the last attribute that changed, a setting.
        if (rng.bool(0.05)) attributes.push(['theme', rng.pick(['dark', 'light', 'blue', ''])]);
        for (const [param, value] of rawParams(rng)) if (param in paramToAttribute) attributes.push([paramToAttribute[param], value]);
        const params = new URLSearchParams();
        for (const [attribute, value] of attributes)
          if (attribute in SETTING_ATTRIBUTES) params.set(SETTING_ATTRIBUTES[attribute as keyof typeof SETTING_ATTRIBUTES], value);
        // <attention-train> reads d-model, heads, seed and scale as its training run's settings: its
        // walkthrough settings stay the defaults, and its form shows the run's (checked below).
        const trains = tag === STEP_ELEMENTS.train;
        const expected = trains ? { settings: { ...DEFAULT_SETTINGS }, notices: [] } : settingsFromParams(params);
        const label = `attribute case ${i} on <${tag}>: ${JSON.stringify(attributes).slice(0, 300)}`;
        const begun = performance.now();
        const { report, form } = await page.evaluate(
          async ({ tag, attributes, settingAttributes, whole }) => {
            type Drawn = Element & { debug: { flush(): void }; updateComplete: Promise<void> };
            const element = document.querySelector(tag) as Drawn;
            // The author's new attribute set replaces the old one.
            for (const name of [...Object.keys(settingAttributes), 'theme'])
              if (!attributes.some(([a]) => a === name)) element.removeAttribute(name);
            for (const [name, value] of attributes) element.setAttribute(name, value);
            // A single step draws itself whole with each change (on screen or not); the walkthrough leaves
            // its off-screen steps to idle time: draw them now (computing the asked-for settings once).
            if (whole) element.debug.flush();
            await element.updateComplete;
            const report = window.__fuzzInspect(element);
            if (tag !== 'attention-train') return { report, form: null };
            const root = element.shadowRoot!;
            const value = (name: string) => root.querySelector<HTMLInputElement>(`[name="${name}"]`)!;
            return {
              report,
              form: {
                dModel: Number(value('train-d-model').value),
                heads: Number(value('train-heads').value),
                seed: Number(value('train-seed').value),
                scale: value('train-scale').checked,
              },
            };
          },
          { tag, attributes, settingAttributes: SETTING_ATTRIBUTES, whole: tag === 'attention-walkthrough' },
        );
        timed(performance.now() - begun, label);
        checkReport(report, expected, tag === 'attention-walkthrough' ? ALL_STEPS : 1, label);
        if (trains) {
          const given = Object.fromEntries(attributes);
          const training = trainSettingsFrom((name) => given[name] ?? null, TRAIN_ATTRIBUTES).settings;
          expect(form, label).toEqual({ dModel: training.dModel, heads: training.heads, seed: training.seed + 0, scale: training.scale }); // + 0: "-0" is seed 0
        }
        expect(errors, label).toEqual([]);
        attributeCount++;
      }
      await page.close();
    },
    FUZZ_TIMEOUT,
  );

  afterAll(() => {
    console.log(
      `[fuzz] seed ${SEED}: ${urlCount} URL cases (${Math.max(0, urlCount - URL_CASES)} as full page loads) and ${attributeCount} attribute cases passed`,
    );
    console.log(`[fuzz] slowest cases:\n${slowest.map((s) => `  ${Math.round(s.ms)} ms  ${s.label}`).join('\n')}`);
  });
});
