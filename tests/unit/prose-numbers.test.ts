// @vitest-environment happy-dom
// Every number the steps' prose prints comes from the snapshot it sits beside. Each step (but the
// training one, which computes its own run) is rendered from a real snapshot under a set of settings,
// and every sentence (paragraphs, captions, list items) is read back:
// - a decimal or a percentage must be one of the snapshot's numbers as the page formats them, or one
//   the step's own figures show (a table cell, a bar), which the figure tests check against the snapshot;
// - "√N = F" must be the square root of N; "dₖ = N" must be a dₖ the snapshot computed with; and a
//   sentence that stretches by "× F" and names "dₖ = N" must have F = √N (the FAQ once printed
//   "softmax([1, 2, 3] × 8.00): the spread unscaled dₖ = 4 scores have" under "√4 = 2.00").
// Whole numbers (positions, counts, step numbers) are checked by the step tests, not here.
import { describe, expect, test } from 'vitest';
import { ARTICLE_DEVIATIONS } from '../../web/src/article-example';
import { PRESETS, type Settings } from '../../web/src/settings';
import type { Snapshot } from '../../web/src/snapshot';
import { STEPS } from '../../web/src/steps/index';
import { isLazyStep } from '../../web/src/elements/lazy-step';
import { exampleSnapshotFor, snapshotFor, trainedSnapshotFor } from './fixtures';

// These tests mount every step themselves: the steps whose code is a chunk of its own load first.
await Promise.all(STEPS.map((step) => (isLazyStep(step) ? step.load() : null)));

/** Mathematical constants the prose may state: e, which "one point more of score earns 2.7 times the weight" rounds. */
const CONSTANTS = [Math.E];

/** Where the rebuilt example differs from the article (step 2's list, generated with the example's inputs). */
const DEVIATION_NUMBERS = ARTICLE_DEVIATIONS.flatMap((d) =>
  [...`${d.article} ${d.reconstructed} ${d.difference}`.matchAll(/\d+\.\d+/g)].map((m) => Number(m[0])),
);

const CASES: [string, () => Promise<Snapshot>][] = [
  ['default (the article’s example)', () => exampleSnapshotFor()],
  ['random weights', () => snapshotFor({ heads: 1 })],
  ['trained', () => trainedSnapshotFor()],
  ['causal', () => exampleSnapshotFor({ causal: true })],
  ['trained, causal', () => trainedSnapshotFor({ causal: true })],
  ['unscaled', () => exampleSnapshotFor({ scale: false })],
  ['random, unscaled', () => snapshotFor({ scale: false })],
  // dₖ 64 is the big-heads preset below (d_model 512, 8 heads of 64).
  ['8 heads', () => snapshotFor({ dModel: 32, heads: 8, head: 3 })],
  ...PRESETS.map((preset): [string, () => Promise<Snapshot>] => [
    `preset ${preset.id}`,
    () => snapshotFor(preset.settings as Partial<Settings>),
  ]),
];

/** Arrays longer than this are not read for numbers the prose may quote. */
const MAX_QUOTED_ARRAY = 65_536;

/** Every number a snapshot holds, however deep (the sentence view and the trained model included). */
function snapshotNumbers(value: unknown, out: number[] = [], seen = new Set<unknown>()): number[] {
  if (typeof value === 'number') out.push(value);
  else if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    // The d_model 512 preset's (512, 512) weight matrices: no sentence quotes their entries (a cell the
    // reader picks is in its figure's table). Leaving them out only makes the check stricter, and quicker.
    if ((value as unknown as ArrayLike<number>).length > MAX_QUOTED_ARRAY) return out;
    for (const v of value as unknown as Iterable<number>) out.push(v);
  } else if (value && typeof value === 'object' && !seen.has(value)) {
    seen.add(value);
    for (const item of Array.isArray(value) ? value : Object.values(value)) snapshotNumbers(item, out, seen);
  }
  return out;
}

/** The page's minus sign and thousands commas back to what toFixed prints. */
const plain = (text: string) => text.replace(/\u2212/g, '-').replace(/,/g, '');

/**
 * Every way the page prints a number, as whole numbers of its last digit: fmt with 1 to 3 decimals
 * (k = 1..3) and percent with 0 or 1 (k = 2, 3 of the fraction). Numbers, not strings: the article's
 * multi-head shape holds a million of them.
 */
class PrintedForms {
  private readonly scaled = [1, 2, 3, 4].map(() => new Set<number>());

  add(values: Iterable<number>): this {
    for (const v of values) {
      if (!Number.isFinite(v)) continue;
      for (let k = 1; k <= 4; k++) {
        const x = Math.abs(v) * 10 ** k;
        // toFixed rounds the exact value half away from zero; x * 10^k may land a hair off a half.
        const r = Math.abs((x % 1) - 0.5) < 1e-6 ? Number(Math.abs(v).toFixed(k).replace('.', '')) : Math.round(x);
        this.scaled[k - 1].add(v < 0 && r !== 0 ? -r : r);
      }
    }
    return this;
  }

  /** "1.13", "−0.25", "31%", "99.6%" (the page's minus sign and commas allowed). */
  has(printed: string): boolean {
    const text = plain(printed);
    const isPercent = text.endsWith('%');
    const body = isPercent ? text.slice(0, -1) : text;
    const digits = body.split('.')[1]?.length ?? 0;
    const k = digits + (isPercent ? 2 : 0);
    if (k < 1 || k > 4) return false;
    return this.scaled[k - 1].has(Number(body.replace('.', '')));
  }
}

/** The numbers the step's own figures show: cells, bars, and the exact values they carry. */
function figureForms(body: HTMLElement): PrintedForms {
  const shown: number[] = [];
  for (const cell of body.querySelectorAll('td, th, .bar-value, text, tspan')) {
    for (const match of (cell.textContent ?? '').matchAll(NUMBER)) {
      const text = plain(match[0]);
      shown.push(text.endsWith('%') ? Number(text.slice(0, -1)) / 100 : Number(text));
    }
  }
  for (const node of body.querySelectorAll('[data-value]')) shown.push(Number(node.getAttribute('data-value')));
  return new PrintedForms().add(shown);
}

const NUMBER = /(?<![\p{L}\d.₀-₉_])[−-]?\d[\d,]*(?:\.\d+)?%?/gu;

/** The prose: paragraphs, captions and list items, not the cells of a table or code. */
function sentences(body: HTMLElement): string[] {
  const texts: string[] = [];
  for (const node of body.querySelectorAll('p, figcaption, caption, li')) {
    if (node.closest('td, th, pre, code, [hidden]')) continue;
    // A <p> holding other units is read through them.
    if (node.querySelector('p, li')) continue;
    const text = (node.textContent ?? '').replace(/\s+/g, ' ').trim();
    if (text) texts.push(text);
  }
  return texts;
}

function dKsOf(snapshot: Snapshot): Set<number> {
  const out = new Set<number>([snapshot.pipeline.dK, snapshot.dots.dK, snapshot.saturation.dK]);
  if (snapshot.articleDots) out.add(snapshot.articleDots.dK);
  if (snapshot.sentence) out.add(snapshot.sentence.pipeline.dK);
  return out;
}

/** What is wrong with the numbers of one sentence, or nothing. */
export function proseProblems(text: string, allowed: { has(printed: string): boolean }, dKs: Set<number>): string[] {
  const problems: string[] = [];
  for (const match of text.matchAll(NUMBER)) {
    const token = plain(match[0]);
    if (!token.includes('.') && !token.endsWith('%')) continue;
    // Memory sizes (bytes() of whole counts, "65.5 KiB") are checked by the cost and flash steps' tests.
    if (/^ ?[KMGT]i?B\b/.test(text.slice(match.index + match[0].length))) continue;
    if (!allowed.has(match[0])) problems.push(`${match[0]} is not a number of the snapshot or its figures`);
  }
  const close = (printed: string, exact: number) =>
    Math.abs(Number(plain(printed)) - exact) <= 0.5 * 10 ** -(printed.split('.')[1]?.length ?? 0) + 1e-9;
  // "√4 = 2.00", not the "√4 = 1.30 ÷ 2.00" of a division written out.
  for (const [, n, f] of text.matchAll(/√(\d+) = ([−-]?\d+(?:\.\d+)?)(?![\d.]| ÷)/g)) {
    if (!close(f, Math.sqrt(Number(n)))) problems.push(`√${n} = ${f} is not the square root of ${n}`);
  }
  // "dₖ = 16", not the "dₖ = 32 / 2" of a division written out.
  const named = [...text.matchAll(/dₖ = (\d+)(?!\d| [/÷])/g)].map((m) => Number(m[1]));
  for (const d of named) if (!dKs.has(d)) problems.push(`dₖ = ${d} is not a dₖ of this snapshot (${[...dKs].join(', ')})`);
  const stretches = [...text.matchAll(/× (\d+\.\d+)/g)].map((m) => m[1]);
  if (named.length > 0)
    for (const f of stretches)
      if (!named.some((d) => close(f, Math.sqrt(d))))
        problems.push(`× ${f} is not √dₖ for the dₖ this sentence names (${named.join(', ')})`);
  return problems;
}

const steps = STEPS.filter((step) => step.id !== 'train');

describe('the prose’s numbers are the snapshot’s', () => {
  test.each(CASES)('%s', async (_, make) => {
    const snapshot = await make();
    const base = new PrintedForms().add([...snapshotNumbers(snapshot), ...CONSTANTS, ...DEVIATION_NUMBERS]);
    const dKs = dKsOf(snapshot);
    const failures: string[] = [];
    document.body.replaceChildren();
    for (const step of steps) {
      const body = document.createElement('section');
      body.id = step.id;
      document.body.append(body);
      step.mount(body, { update: () => {} }).render(snapshot);
      const figures = figureForms(body);
      const allowed = { has: (printed: string) => base.has(printed) || figures.has(printed) };
      for (const text of sentences(body)) {
        for (const problem of proseProblems(text, allowed, dKs))
          failures.push(`step ${step.number} (${step.id}): ${problem}\n    in “${text}”`);
      }
    }
    expect(failures).toEqual([]);
  });

  test('the check catches a stretch that contradicts its dₖ, a wrong root and a canned number', () => {
    const allowed = new PrintedForms().add([8, 2, 0.5]);
    expect(proseProblems('softmax([1, 2, 3] × 8.00): the spread unscaled dₖ = 4 scores have', allowed, new Set([4, 64]))).toHaveLength(1);
    expect(proseProblems('softmax([1, 2, 3] × √64 = 8.00): the spread unscaled dₖ = 64 scores have', allowed, new Set([4, 64]))).toEqual(
      [],
    );
    expect(proseProblems('spread 1.98 (√4 = 2.00)', allowed, new Set([4]))).toEqual([
      '1.98 is not a number of the snapshot or its figures',
    ]);
    expect(proseProblems('√4 = 2.50', new PrintedForms().add([2.5]), new Set([4]))).toHaveLength(1);
    expect(proseProblems('1.30 ÷ √4 = 1.30 ÷ 2.00 = 0.65', new PrintedForms().add([1.3, 2, 0.65]), new Set([4]))).toEqual([]);
    expect(proseProblems('here dₖ = 16', allowed, new Set([4]))).toHaveLength(1);
    expect(proseProblems('it takes 50% and 0.50, not −0.50', allowed, new Set([4]))).toEqual([
      '−0.50 is not a number of the snapshot or its figures',
    ]);
    expect(proseProblems('it takes 51%', allowed, new Set([4]))).toHaveLength(1);
  });
});
