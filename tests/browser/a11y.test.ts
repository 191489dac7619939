// Accessibility beyond the walkthrough (whose axe run is in walkthrough.test.ts): axe-core on the docs
// page and on an author's page of every step's element, in light and dark, with each one started; on the
// walkthrough's figure menus opened with their "Embed this step" panels; and a
// keyboard-only pass through every control of <attention-walkthrough>'s settings bar — reached with
// Tab, operated with keys alone, each one changing the state it names, each one showing focus.
// Length (~550 lines): one browser launch and one server for every page axe-core checks; split, each file
// would launch Chromium again, and the browser suite is the one near its time budget.
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { STEP_ELEMENTS, WALKTHROUGH_ELEMENT } from '../../web/src/elements/registry';
import {
  axe,
  axeFor,
  collectErrors,
  COLOUR_RULES,
  goLive,
  hostPage,
  nextFrames,
  seriousViolations,
  settled,
  showAllSections,
  started,
  useServerAndBrowser,
} from './harness';

const TAGS = [...Object.values(STEP_ELEMENTS), WALKTHROUGH_ELEMENT];

// Every step's element as an author embeds it, a third of them without controls. The walkthrough element
// is left out: its markup is the same renderers' and axe checks it whole in walkthrough.test.ts (light and
// dark, every section drawn), where it took half of this page's axe time again.
const HOST = hostPage(
  `<h1>My article</h1><p>Prose around the figures.</p>
${Object.values(STEP_ELEMENTS)
  .map((tag, i) => `<h2>Figure ${i + 1}</h2><${tag} tokens="the cat sat on the mat" ${i % 3 === 0 ? 'controls="none"' : ''}></${tag}>`)
  .join('\n')}`,
  { title: "An author's article with embeds" },
);

const site = useServerAndBrowser({ serve: { routes: { '/host.html': { body: HOST } } } });

async function startAll(page: Page): Promise<number> {
  const elements = page.locator(`main :is(${TAGS.join(', ')})`);
  const count = await elements.count();
  for (let i = 0; i < count; i++) {
    const element = elements.nth(i);
    if (!(await element.evaluate((el) => customElements.get(el.localName) !== undefined))) continue; // named in the registry, not yet in the bundle
    await element.scrollIntoViewIfNeeded();
    expect(await started(element)).toBe('true');
  }
  return count;
}

async function violationsOn(path: string, colorScheme: 'light' | 'dark'): Promise<string[]> {
  const context = await site.browser.newContext({ colorScheme, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${site.server.url}${path}`);
  expect(await startAll(page)).toBeGreaterThanOrEqual(10);
  await showAllSections(page);
  // In light, every rule but the colour ones over the whole page, the elements' shadow roots included
  // (the dark run's markup is the same: harness.ts axeFor). The colour rules, in both schemes, over what
  // only this page has, its own text around the elements: the elements' figures are the walkthrough's
  // own renderers and stylesheet, whose colours walkthrough.test.ts checks in every section, light and
  // dark, and those rules take most of axe's time.
  const found: string[] = [];
  if (colorScheme === 'light') {
    const rules = await axe(page).disableRules(COLOUR_RULES).analyze();
    expect(rules.passes.length).toBeGreaterThan(10);
    found.push(...seriousViolations(rules, `${path} ${colorScheme}`));
  }
  const colours = await axeFor(page, colorScheme).withRules(COLOUR_RULES).exclude(TAGS.join(', ')).analyze();
  expect(colours.passes.map((rule) => rule.id)).toContain('color-contrast'); // it did find text to check
  found.push(...seriousViolations(colours, `${path} ${colorScheme}`));
  expect(errors).toEqual([]);
  await context.close();
  return found;
}

// The axe runs below are independent pages (one context each), one renderer thread each: run
// concurrently they use both cores. Their bound is long because four such runs share the machine;
// nothing waits for it.
const AXE_BOUND_MS = 1_500_000;

describe.concurrent('axe-core: no serious or critical violation', () => {
  for (const path of ['/docs.html', '/host.html']) {
    for (const scheme of ['light', 'dark'] as const) {
      test(`${path}, ${scheme}`, { timeout: AXE_BOUND_MS }, async ({ expect }) => {
        expect(await violationsOn(path, scheme)).toEqual([]);
      });
    }
  }
});

describe.concurrent('the figure menus with "Embed this step" open', () => {
  // The main page's author tools, opened: a table's menu with its embed panel, a chart's menu, and the
  // embed button at the end of a section without a figure menu in reach, each under axe, light and dark.
  for (const colorScheme of ['light', 'dark'] as const) {
    test(`axe finds nothing serious or critical in them, ${colorScheme}`, { timeout: AXE_BOUND_MS }, async ({ expect }) => {
      const context = await site.browser.newContext({ colorScheme, viewport: { width: 1280, height: 900 } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.server.url });
      const page = await context.newPage();
      const errors = collectErrors(page);
      await page.goto(`${site.server.url}/index.html?tokens=the+cat+sat+on+the+mat`);
      await goLive(page);
      await showAllSections(page);
      const table = page.locator('#softmax .export-tools').first();
      await table.locator('.export-toggle').click();
      await table.getByRole('button', { name: 'Embed this step' }).click();
      await page.locator('#cost .chart-tools .export-toggle').click();
      const end = page.locator('#train .step-tools');
      await end.locator('.export-toggle').click();
      // The panels open as the page reports it (Playwright waits for each to be shown; no time bound of its own).
      for (const tools of [table, end]) {
        await tools.locator('.embed-code').waitFor({ state: 'visible', timeout: 0 });
        expect(await tools.locator('.embed-code').isVisible()).toBe(true);
      }
      // Named for what it offers, with its state, and pointing at what it opens.
      expect(await table.locator('.export-toggle').getAttribute('aria-expanded')).toBe('true');
      expect(await table.getByRole('group', { name: /^Copy, save or embed: / }).isVisible()).toBe(true);
      expect(await end.getByRole('button', { name: 'Embed this step' }).getAttribute('aria-expanded')).toBe('true');
      await nextFrames(page);
      const results = await axeFor(page, colorScheme)
        .include({ fromShadowDom: ['attention-walkthrough', '#softmax'] })
        .include({ fromShadowDom: ['attention-walkthrough', '#cost'] })
        .include({ fromShadowDom: ['attention-walkthrough', '#train'] })
        .analyze();
      expect(results.passes.length).toBeGreaterThan(0); // it did look at them
      const serious = seriousViolations(results, colorScheme);
      expect(serious).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    });
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

/** How long a control that did nothing takes to be reported in the every-control pass. */
const EFFECT_BOUND_MS = 60_000;

describe('keyboard only', () => {
  test('Tab reaches every control of the settings bar in order, and each one works from the keyboard', async () => {
    const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = collectErrors(page);
    await page.goto(`${site.server.url}/index.html`);
    await goLive(page);

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

    // 1. The sentence: select all, type, leave with Tab (commits one history entry). A sentence of one's
    // own leaves the article's four-token example for the trained model.
    await step();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('a cat sat');
    await page.keyboard.press('Tab');
    await settled(page);
    expect(await settingsOf(page)).toMatchObject({ sentence: 'a cat sat', weights: 'trained' });

    // 2. Preset: arrow keys on a closed select pick the next option, "The article's four-token example".
    await step();
    await page.keyboard.press('ArrowDown');
    await settled(page);
    expect((await settingsOf(page)).weights).toBe('example');
    await page.keyboard.press('Tab');

    // 3. Weights: example -> trained -> random, which frees d_model.
    await step();
    await page.keyboard.press('ArrowDown');
    await settled(page);
    expect((await settingsOf(page)).weights).toBe('trained');
    await page.keyboard.press('ArrowDown');
    await settled(page);
    expect((await settingsOf(page)).weights).toBe('random');
    await page.keyboard.press('Tab');

    // 4. d_model: 8 -> 12.
    await step();
    await page.keyboard.press('ArrowDown');
    await settled(page);
    expect((await settingsOf(page)).dModel).toBe(12);
    await page.keyboard.press('Tab');

    // 5. Heads h: 1 -> 2, which enables the head shown (disabled, and skipped by Tab, with one head): 1 -> 2.
    await step();
    await page.keyboard.press('ArrowDown');
    await settled(page);
    expect((await settingsOf(page)).heads).toBe(2);
    await page.keyboard.press('Tab');
    await step();
    await page.keyboard.press('ArrowDown');
    await settled(page);
    expect((await settingsOf(page)).head).toBe(1);
    await page.keyboard.press('Tab');

    // 6, 7. The checkboxes: Space.
    await step();
    await page.keyboard.press('Space');
    await settled(page);
    expect((await settingsOf(page)).causal).toBe(true);
    await page.keyboard.press('Tab');
    await step();
    await page.keyboard.press('Space');
    await settled(page);
    expect((await settingsOf(page)).scale).toBe(false);
    await page.keyboard.press('Tab');

    // 8. Seed: arrow up steps it; typing a number and Enter sets it.
    await step();
    await page.keyboard.press('ArrowUp');
    await settled(page);
    expect((await settingsOf(page)).seed).toBe(2);
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('1234');
    await page.keyboard.press('Enter');
    await settled(page);
    expect((await settingsOf(page)).seed).toBe(1234);
    // Emptied and left: the seed stays, the field shows it again, and the notice says why.
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Tab');
    await settled(page);
    expect(await page.locator('attention-walkthrough .notices').innerText()).toMatch(
      /seed must be a number; the field was empty or unreadable, so it stays 1234/,
    );
    expect(await page.locator('input[name="seed"]').inputValue()).toBe('1234');

    // 9. "New random weights": Enter.
    await step();
    await page.keyboard.press('Enter');
    await settled(page);
    expect((await settingsOf(page)).seed).not.toBe(1234);

    expect(order).toEqual(['tokens', 'preset', 'weights', 'd_model', 'heads', 'head', 'causal', 'scale', 'seed', '.reseed']);
    expect(
      outlines.filter((o) => o === 'none'),
      `focus not visible on: ${order.filter((_, i) => outlines[i] === 'none').join(', ')}`,
    ).toEqual([]);
    // Everything the keys did is in the URL.
    expect(page.url()).toMatch(/d_model=12/);
    expect(page.url()).toMatch(/causal=1/);
    expect(page.url()).toMatch(/scale=0/);
    expect(errors).toEqual([]);
    await page.close();
  });
});

/** Runs in the page: every control a keyboard user can reach in the walkthrough, in DOM order (one per radio group). */
const CONTROLS_IN_PAGE = `
window.__deepActive = () => { let n = document.activeElement; while (n && n.shadowRoot && n.shadowRoot.activeElement) n = n.shadowRoot.activeElement; return n; };
window.__controls = (stepsOnly) => {
  const root = document.querySelector('attention-walkthrough').shadowRoot;
  const roots = [root];
  for (let i = 0; i < roots.length; i++) for (const n of roots[i].querySelectorAll('*')) if (n.shadowRoot) roots.push(n.shadowRoot);
  const seenGroups = new Set();
  const list = [];
  for (const r of roots) for (const el of r.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')) {
    if (el.tabIndex < 0 || el.disabled || el.closest('[inert]') || !el.checkVisibility({ visibilityProperty: true })) continue;
    if (stepsOnly && !el.closest('section.step')) continue;
    if (el.type === 'radio') { const g = el.name + '|' + (el.form ? '' : el.getRootNode().host?.localName); if (seenGroups.has(g)) continue; seenGroups.add(g); }
    list.push(el);
  }
  return list;
};
window.__describe = (el) => {
  const section = el.closest('section.step');
  const kind = el.localName === 'input' ? 'input[' + el.type + ']' : el.localName;
  const text = (el.getAttribute('aria-label') || el.textContent || el.getAttribute('name') || el.className || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
  return (section ? section.id : 'settings') + ' ' + kind + (el.className ? '.' + String(el.className).split(' ')[0] : '') + ' “' + text + '”';
};`;

describe('keyboard only, every control of every step', () => {
  test('Tab reaches every visible control in the walkthrough, each showing focus; each one works from the keyboard', async () => {
    // With the clipboard allowed, as in a reader's browser: the copy buttons copy instead of opening their fallback.
    const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.server.url });
    // Step 10's autoplay (the page's only interval) would step the tiles while the pass walks them, and a
    // tile's tables change shape (a cell of a one-column table has no neighbour to move to): the interval
    // never ticks here, so every run meets the same page. Autoplay itself is tested in flash.test.ts.
    await context.addInitScript(() => {
      window.setInterval = (() => 0) as unknown as typeof setInterval;
    });
    const page = await context.newPage();
    const errors = collectErrors(page);
    await page.goto(`${site.server.url}/index.html?tokens=the+cat+sat+on+the+mat`);
    await goLive(page);
    // Step 1's figure is redrawn when the reader model arrives: the pass starts once it is in.
    await page.locator('#problem .reader-figure[data-status="ready"]').waitFor({ state: 'attached' });
    await page.evaluate(CONTROLS_IN_PAGE);
    type W = {
      __controls(stepsOnly: boolean): Element[];
      __deepActive(): Element | null;
      __describe(el: Element): string;
      __ids: Map<Element, number>;
    };
    await page.evaluate(() => {
      const element = document.querySelector('attention-walkthrough')!;
      element.setAttribute('debug', '');
      (element as unknown as { debug: { flush(): void } }).debug.flush();
    });

    // 1. Reach: from the top of the page, Tab through the whole walkthrough; every control must take focus, visibly.
    const expected = await page.evaluate(() => {
      const w = window as unknown as W;
      const list = w.__controls(false);
      w.__ids = new Map(list.map((el, i) => [el, i]));
      return list.map((el) => w.__describe(el));
    });
    expect(expected.length).toBeGreaterThan(30);
    const reached = new Set<number>();
    const noFocusRing: string[] = [];
    let inside = false;
    for (let presses = 0; presses < 1500; presses++) {
      await page.keyboard.press('Tab');
      const stop = await page.evaluate(() => {
        const w = window as unknown as W;
        const el = w.__deepActive();
        if (!el) return { where: 'none' as const };
        const host = document.querySelector('attention-walkthrough')!;
        if (!host.shadowRoot!.contains(el) && el !== host) return { where: 'outside' as const };
        const style = getComputedStyle(el);
        const ring = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
        const radio =
          (el as HTMLInputElement).type === 'radio'
            ? [...w.__ids.keys()].find(
                (c) => (c as HTMLInputElement).type === 'radio' && (c as HTMLInputElement).name === (el as HTMLInputElement).name,
              )
            : undefined;
        return { where: 'inside' as const, id: w.__ids.get(radio ?? el) ?? -1, ring, label: w.__describe(el) };
      });
      if (stop.where === 'inside') {
        inside = true;
        if (stop.id >= 0) reached.add(stop.id);
        if (!stop.ring) noFocusRing.push(stop.label);
      } else if (inside) break;
    }
    const missed = expected.filter((_, i) => !reached.has(i));
    console.log(`[a11y] Tab reached ${reached.size} of ${expected.length} controls in the walkthrough`);
    expect(missed, 'controls Tab never reached').toEqual([]);
    expect(noFocusRing, 'controls focused without a visible focus indicator').toEqual([]);

    // 2. Operate: each control of every step, with the key a reader would use; something must happen.
    const operated: Record<string, number> = {};
    const failed: string[] = [];
    let downloads = 0;
    page.on('download', () => downloads++);
    let index = 0;
    for (let guard = 0; guard < 400; guard++, index++) {
      const target = await page.evaluate((index) => {
        const w = window as unknown as W & { __effect: { mutations: number; observer: MutationObserver } };
        const list = w.__controls(true);
        const el = list[index] as HTMLElement | undefined;
        if (!el) return null;
        el.focus();
        const input = el as HTMLInputElement;
        const kind =
          el.localName === 'input' ? input.type : el.getAttribute('role') === 'grid' || el.localName === 'td' ? 'cell' : el.localName;
        // Scroll regions and read-only text only take focus; an answered question's choices say aria-disabled.
        const region =
          el.localName === 'div' ||
          el.localName === 'pre' ||
          el.localName === 'figure' ||
          (el.localName === 'textarea' && (el as HTMLTextAreaElement).readOnly) ||
          el.getAttribute('aria-disabled') === 'true';
        const root = document.querySelector('attention-walkthrough')!.shadowRoot!;
        w.__effect?.observer.disconnect();
        const effect = { mutations: 0, observer: new MutationObserver((records) => (effect.mutations += records.length)) };
        effect.observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
        w.__effect = effect;
        (window as unknown as { __before: string }).__before = JSON.stringify([
          location.href,
          (document.querySelector('attention-walkthrough') as unknown as { config: unknown }).config,
        ]);
        (window as unknown as { __focusBefore: Element | null }).__focusBefore = w.__deepActive();
        const lastOption =
          el.localName === 'select' && (el as HTMLSelectElement).selectedIndex === (el as HTMLSelectElement).options.length - 1;
        // A table cell in the last column has nowhere to go on ArrowRight (the row total is not a grid cell).
        const lastColumn = el.localName === 'td' && (el.nextElementSibling as HTMLElement | null)?.dataset.col === undefined;
        // A cell of a one-column table (a FlashAttention tile one key wide) has no neighbour on its row: it moves down, or up from the last row.
        const onlyColumn = lastColumn && (el.previousElementSibling as HTMLElement | null)?.dataset.col === undefined;
        const lastRow = el.localName === 'td' && !el.parentElement?.nextElementSibling?.querySelector('td[data-col]');
        // The one cell of a 1 × 1 table (the last FlashAttention tile can be one query by one key) has no
        // neighbour at all: like a scroll region, it only takes focus.
        const firstRow = el.localName === 'td' && !el.parentElement?.previousElementSibling?.querySelector('td[data-col]');
        const onlyCell = onlyColumn && lastRow && firstRow;
        return { kind, region: region || onlyCell, lastOption, lastColumn, onlyColumn, lastRow, label: w.__describe(el) };
      }, index);
      if (!target) break;
      // A select already on its last option goes up instead, and a cell in the last column goes left.
      const key =
        {
          button: 'Enter',
          summary: 'Enter',
          a: 'Enter',
          checkbox: 'Space',
          radio: 'ArrowDown',
          select: target.lastOption ? 'ArrowUp' : 'ArrowDown',
          range: 'ArrowRight',
          number: 'ArrowUp',
          cell: target.onlyColumn ? (target.lastRow ? 'ArrowUp' : 'ArrowDown') : target.lastColumn ? 'ArrowLeft' : 'ArrowRight',
          text: 'x',
        }[target.kind] ?? null;
      if (target.region || key === null) {
        operated[`reach only: ${target.kind}`] = (operated[`reach only: ${target.kind}`] ?? 0) + 1;
        continue;
      }
      // An earlier control's late effect may move focus (the NumPy copy's no-clipboard fallback focuses the
      // script): put it back on the target before the key goes in.
      for (let tries = 0; tries < 5; tries++) {
        const onTarget = await page.evaluate((index) => {
          const w = window as unknown as W;
          const el = w.__controls(true)[index] as HTMLElement | undefined;
          if (el && w.__deepActive() !== el) el.focus();
          (window as unknown as { __focusBefore: Element | null }).__focusBefore = w.__deepActive();
          (window as unknown as { __target: [Element | undefined, boolean] }).__target = [
            el,
            (el?.parentElement as HTMLDetailsElement | null)?.open === true,
          ];
          // Count only what the key does: forget anything an earlier control did late.
          (window as unknown as { __effect: { mutations: number } }).__effect.mutations = 0;
          (window as unknown as { __before: string }).__before = JSON.stringify([
            location.href,
            (document.querySelector('attention-walkthrough') as unknown as { config: unknown }).config,
          ]);
          return el !== undefined && w.__deepActive() === el;
        }, index);
        if (onTarget) break;
        // Let the late effect finish (a drawing, then the frames after it) before focusing again.
        await settled(page);
        await nextFrames(page);
      }
      const downloadsBefore = downloads;
      const download = page.waitForEvent('download', { timeout: 0 }).then(() => true);
      await page.keyboard.press(key);
      // The key's effect is awaited as it happens (a DOM change, a focus move, a details toggle, a new URL
      // or config), not looked for frame by frame: frames can stall for many seconds on the loaded two-core
      // box. A Save button's download is seen by Playwright. EFFECT_BOUND_MS only bounds how long a control
      // that does nothing takes to be reported; no control passes by waiting.
      const effect = page.evaluate(
        () =>
          new Promise<boolean>((resolve) => {
            const w = window as unknown as {
              __effect: { mutations: number };
              __before: string;
              __focusBefore: Element | null;
              __deepActive(): Element | null;
            };
            const root = document.querySelector('attention-walkthrough')!.shadowRoot!;
            const seen = () => {
              const now = JSON.stringify([
                location.href,
                (document.querySelector('attention-walkthrough') as unknown as { config: unknown }).config,
              ]);
              // A summary's effect is its details opening or closing (seen even if that section was redrawn meanwhile).
              const [target, openBefore] = (window as unknown as { __target: [Element | undefined, boolean] }).__target;
              const toggled = target?.localName === 'summary' && (target.parentElement as HTMLDetailsElement).open !== openBefore;
              return w.__effect.mutations > 0 || now !== w.__before || w.__deepActive() !== w.__focusBefore || toggled;
            };
            const events = ['focusin', 'focusout', 'toggle'];
            const check = () => {
              if (!seen()) return;
              observer.disconnect();
              for (const type of events) root.removeEventListener(type, check, true);
              removeEventListener('hashchange', check);
              resolve(true);
            };
            const observer = new MutationObserver(check);
            observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
            for (const type of events) root.addEventListener(type, check, true);
            addEventListener('hashchange', check);
            check();
          }),
      );
      let bound: ReturnType<typeof setTimeout> | undefined;
      const happened = await Promise.race([
        effect,
        download,
        new Promise<boolean>((resolve) => {
          bound = setTimeout(() => resolve(downloads > downloadsBefore), EFFECT_BOUND_MS);
        }),
      ]);
      clearTimeout(bound);
      effect.catch(() => {}); // still pending if the download came first: it ends with the page
      download.catch(() => {});
      if (!happened)
        failed.push(
          `${target.label} (${key}); focus then on ${await page.evaluate(() => {
            const w = window as unknown as W;
            const a = w.__deepActive();
            return a ? w.__describe(a) : 'nothing';
          })} ${await page.evaluate(() => {
            const w = window as unknown as { __target: [Element | undefined, boolean]; __effect: { mutations: number } };
            const [t, before] = w.__target;
            return JSON.stringify({
              openBefore: before,
              openAfter: (t?.parentElement as HTMLDetailsElement | null)?.open,
              connected: t?.isConnected,
              mutations: w.__effect.mutations,
            });
          })}`,
        );
      operated[`${target.kind} (${key})`] = (operated[`${target.kind} (${key})`] ?? 0) + 1;
      // A cell moved focus to its neighbour: go on from the next control, not the next cell.
      if (target.kind === 'cell') await page.keyboard.press(target.onlyColumn ? (target.lastRow ? 'ArrowDown' : 'ArrowUp') : 'ArrowLeft');
    }
    console.log(`[a11y] operated from the keyboard: ${JSON.stringify(operated)}`);
    expect(failed, 'controls that did nothing when operated from the keyboard').toEqual([]);
    expect(
      Object.entries(operated)
        .filter(([k]) => !k.startsWith('reach only'))
        .reduce((n, [, v]) => n + v, 0),
    ).toBeGreaterThan(20);
    expect(errors).toEqual([]);
    await context.close();
  }, 600_000);
});
