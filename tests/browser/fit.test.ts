// Figures that fit: at a desktop width and a phone width, for several settings, every figure, formula,
// table, chart and code block of every step either fits inside the viewport and its section (nothing
// sticks out, nothing is clipped by an overflow-hidden box) or sits in a scroll container a reader can
// see and use: overflow-x auto, a labelled region or group, reachable by keyboard, with a visible cue
// that there is more (a fade, a shadow or a scrollbar). The page itself never scrolls sideways.
import type { Page } from 'playwright-core';
import { describe, test } from 'vitest';
import { collectErrors, goLive, nextFrames, settled, useServerAndBrowser } from './harness';

const site = useServerAndBrowser();

const TWELVE_WORDS = 'the cat that the dog chased ran up the tree at night';

const SETTINGS: [name: string, query: string][] = [
  ['the article’s example (default)', ''],
  ['the trained model’s sentence', '?weights=trained'],
  ['random weights, d_model 16, 4 heads', '?weights=random&d_model=16&heads=4'],
  ['a 12-token sentence, causal', `?tokens=${encodeURIComponent(TWELVE_WORDS)}&causal=1`],
];

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 360, height: 740 },
];

interface Measured {
  /** What does not fit, one line each: step, element, why. */
  misfits: string[];
  /** How many elements were measured (so a selector that finds nothing cannot pass). */
  measured: number;
}

/**
 * Measures every figure-like element of one step, in the page. Self-contained: it is serialised into
 * the page by page.evaluate.
 */
function measureStep(stepId: string): Measured {
  const root = document.querySelector('attention-walkthrough')!.shadowRoot!;
  const section = root.getElementById(stepId)!;
  const viewport = document.documentElement.clientWidth;
  const sectionBox = section.getBoundingClientRect();
  const sectionStyle = getComputedStyle(section);
  const inner = {
    left: Math.max(0, sectionBox.left + parseFloat(sectionStyle.paddingLeft)),
    right: Math.min(viewport, sectionBox.right - parseFloat(sectionStyle.paddingRight)),
  };
  // Sub-pixel layout: a box may end a fraction of a pixel past its container.
  const SLACK = 1;
  const misfits: string[] = [];

  const nameOf = (node: Element): string => {
    const classes = [...node.classList].slice(0, 3).join('.');
    const name =
      node.getAttribute('aria-label') ||
      node.querySelector(':scope > caption')?.textContent ||
      node.closest('figure')?.querySelector('figcaption')?.textContent ||
      node.closest('.matrix-figure, .figure')?.querySelector('caption')?.textContent ||
      node.textContent ||
      '';
    const words = name.replace(/\s+/g, ' ').trim().slice(0, 60);
    return `<${node.localName}${classes ? `.${classes}` : ''}>${words ? ` “${words}”` : ''}`;
  };

  /** The element and its ancestors up to (not including) the section. */
  const chain = (node: Element): Element[] => {
    const nodes: Element[] = [];
    for (let at: Element | null = node; at && at !== section; at = at.parentElement) nodes.push(at);
    return nodes;
  };

  const scrolls = (node: Element) =>
    /^(auto|scroll)$/.test(getComputedStyle(node).overflowX) && node.scrollWidth > node.clientWidth + SLACK;
  const clips = (node: Element) => /^(hidden|clip)$/.test(getComputedStyle(node).overflowX) && node.scrollWidth > node.clientWidth + SLACK;

  /** Why a scroll container is not one a reader sees and can use, or '' if it is. */
  const unusableScroller = (scroller: Element): string => {
    const problems: string[] = [];
    const role = scroller.getAttribute('role');
    const named = scroller.hasAttribute('aria-label') || scroller.hasAttribute('aria-labelledby');
    if (!(role === 'region' || role === 'group') || !named) problems.push('not a labelled region or group');
    // A keyboard reaches every part of it: the scroller itself is a tab stop, or it holds a keyboard
    // grid (matrix tables: one cell in the tab order, arrow keys move the focus and scroll it into view).
    const keyboard = scroller.getAttribute('tabindex') === '0' || scroller.querySelector('td[tabindex="0"], th[tabindex="0"]') !== null;
    if (!keyboard) problems.push('no tabindex="0" (or keyboard grid) to scroll it from the keyboard');
    const style = getComputedStyle(scroller);
    const border = parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
    const scrollbar = (scroller as HTMLElement).offsetHeight - scroller.clientHeight - border > 0;
    const mask = style.maskImage || style.getPropertyValue('-webkit-mask-image');
    const cue = scrollbar || /gradient/.test(mask) || style.boxShadow !== 'none' || /gradient/.test(style.backgroundImage);
    if (!cue) problems.push('no visible cue that it scrolls (fade, shadow or scrollbar)');
    return problems.join('; ');
  };

  /** Checks that `node` fits (or its overflowing scroll container is usable, and that fits). */
  const check = (node: Element, what: string, seen: Set<Element>): void => {
    const nodes = chain(node);
    const scroller = nodes.find(scrolls);
    const upTo = scroller ? nodes.slice(0, nodes.indexOf(scroller)) : nodes;
    const clipper = upTo.find(clips);
    if (clipper) {
      misfits.push(`${what}: clipped by ${nameOf(clipper)} (overflow hidden, ${clipper.scrollWidth} > ${clipper.clientWidth} px)`);
      return;
    }
    if (scroller) {
      if (seen.has(scroller)) return;
      seen.add(scroller);
      const problem = unusableScroller(scroller);
      if (problem) misfits.push(`${what}: scrolls inside ${nameOf(scroller)}, which is ${problem}`);
      check(scroller, `${what} (its scroll container)`, seen);
      return;
    }
    const box = node.getBoundingClientRect();
    if (box.right > inner.right + SLACK || box.left < inner.left - SLACK) {
      misfits.push(
        `${what}: ${Math.round(box.left)}–${Math.round(box.right)} px is outside the section’s ${Math.round(inner.left)}–${Math.round(inner.right)} px`,
      );
    }
  };

  const candidates = section.querySelectorAll('figure, .figure, .formula, math, table, svg, canvas, pre, .matrix-picture, .head-grid');
  const seen = new Set<Element>();
  let measured = 0;
  for (const node of candidates) {
    if (node.closest('.visually-hidden, .export-probe')) continue; // not shown
    if (node.localName === 'svg' && node.parentElement?.closest('svg')) continue; // part of a drawing
    if (node.getClientRects().length === 0) continue; // hidden
    measured += 1;
    check(node, `#${stepId} ${nameOf(node)}`, seen);
  }
  // A section out of view clips what sticks out of it (content-visibility: auto), so the page's own
  // width is read with each section in view.
  const page = document.documentElement;
  if (page.scrollWidth > page.clientWidth)
    misfits.push(`#${stepId}: the page scrolls sideways (${page.scrollWidth} > ${page.clientWidth} px)`);
  return { misfits, measured };
}

async function open(query: string, viewport: { width: number; height: number }): Promise<{ page: Page; errors: string[] }> {
  // Reduced motion: the tiled step-through stays on its first tile instead of playing while measured.
  const page = await site.browser.newPage({ viewport, reducedMotion: 'reduce' });
  const errors = collectErrors(page);
  await page.goto(`${site.server.url}/${query}`);
  await goLive(page);
  return { page, errors };
}

/** Every section drawn with the current settings, every <details> open, then each step measured in view. */
async function measureAll(page: Page): Promise<Measured> {
  await settled(page); // includes the sections the renderer leaves for idle time
  const steps = await page.evaluate(() => {
    const root = document.querySelector('attention-walkthrough')!.shadowRoot!;
    // What a reader can open must fit as well.
    for (const details of root.querySelectorAll('details')) details.open = true;
    return [...root.querySelectorAll('section.step')].map((section) => section.id);
  });
  await settled(page);
  const all: Measured = { misfits: [], measured: 0 };
  for (const id of steps) {
    // In view: an off-screen section skips layout (content-visibility: auto) until it is near.
    await page.evaluate(
      (stepId) => document.querySelector('attention-walkthrough')!.shadowRoot!.getElementById(stepId)!.scrollIntoView(),
      id,
    );
    await nextFrames(page);
    const result = await page.evaluate(measureStep, id);
    all.misfits.push(...result.misfits);
    all.measured += result.measured;
  }
  return all;
}

// Every test has a page of its own and waits only on what it reports (the drawing, then frames): the
// two screens' blocks run their tests side by side.
describe.concurrent.each(VIEWPORTS)('at $width px ($name)', (viewport) => {
  test.for(SETTINGS)('%s: every figure fits or scrolls in a usable container', async ([, query], { expect }) => {
    const { page, errors } = await open(query, viewport);
    const { misfits, measured } = await measureAll(page);
    expect(measured).toBeGreaterThan(50);
    expect(misfits, misfits.join('\n')).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
