// @vitest-environment happy-dom
// Every step's renderer on the numerical edge cases, with real engine snapshots: fully masked rows
// (only reachable through the engine API's custom mask: all-zero weights, flagged), a large d_k with
// scaling off, all-equal rows, and a larger causal model. Rendering never throws and never
// shows NaN, Infinity, undefined or format.ts's "?" marker for a non-finite number.
import { beforeAll, describe, expect, test } from 'vitest';
import { computeSnapshot } from '../../web/src/compute';
import type { AttentionEngine } from '../../web/src/engine/engine';
import { DEFAULT_SETTINGS, validateSettings, type Settings } from '../../web/src/settings';
import type { Snapshot } from '../../web/src/snapshot';
import { STEPS } from '../../web/src/steps/index';
import { isLazyStep } from '../../web/src/elements/lazy-step';
import { loadSimdEngine } from './load-engine';

// These tests mount every step themselves: the steps whose code is a chunk of its own load first.
await Promise.all(STEPS.map((step) => (isLazyStep(step) ? step.load() : null)));

let engine: AttentionEngine;
beforeAll(async () => {
  engine = await loadSimdEngine();
});

// The edge cases are the seeded example's: random weights, at the reader's d_model and h.
const snapshot = (change: Partial<Settings>) =>
  computeSnapshot(engine, validateSettings({ weights: 'random', ...change }, DEFAULT_SETTINGS).settings);

/** The default snapshot with rows 2 and 4 fully masked: no key allowed for those queries. */
function fullyMasked(): Snapshot {
  const base = snapshot({ sentence: 'the cat sat down', scale: false });
  const n = 4;
  const mask = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) mask[i * n + j] = 1;
  mask.fill(0, 4, 8);
  mask.fill(0, 12, 16);
  const { settings } = base;
  const pipeline = engine.pipeline({
    tokens: base.tokens.map((t) => t.toLowerCase()),
    dModel: settings.dModel,
    heads: settings.heads,
    scale: false,
    seed: settings.seed,
    mask,
  });
  expect(Array.from(pipeline.fullyMaskedRows)).toEqual([0, 1, 0, 1]);
  return { ...base, pipeline };
}

const CASES: [string, () => Snapshot][] = [
  ['fully masked rows 2 and 4', fullyMasked],
  ['d_k = 512 with scaling off', () => snapshot({ dModel: 512, heads: 1, scale: false })],
  ['all-equal rows (“a a a a a”)', () => snapshot({ sentence: 'a a a a a', dModel: 64, heads: 4, scale: false })],
  // (The largest model, 128 tokens x 64 heads, is checked in Chromium: tests/browser/numerics.test.ts; happy-dom runs out of memory.)
  [
    '40 tokens, d_model 96, 12 heads, causal, seed 2^32 − 1',
    () =>
      snapshot({
        sentence: Array.from({ length: 40 }, (_, i) => `w${i % 15}`).join(' '),
        dModel: 96,
        heads: 12,
        causal: true,
        scale: false,
        seed: 4294967295,
      }),
  ],
];

function problems(body: HTMLElement): string[] {
  const found: string[] = [];
  const text = body.textContent ?? '';
  const match = /\bNaN\b|Infinity|undefined/.exec(text);
  if (match) found.push(`text: …${text.slice(Math.max(0, match.index - 50), match.index + 30)}…`);
  for (const cell of body.querySelectorAll('td, output, .stat, .by-hand-result')) {
    const value = (cell.textContent ?? '').trim();
    if (/^\?%?$/.test(value)) found.push(`cell “?”: ${cell.closest('table')?.querySelector('caption')?.textContent ?? ''}`);
  }
  return found;
}

describe('every step renders the numerical edge cases', () => {
  for (const [name, make] of CASES) {
    test(
      name,
      () => {
        const data = make();
        const found: string[] = [];
        for (const step of STEPS) {
          const body = document.createElement('div');
          document.body.replaceChildren(body);
          const view = step.mount(body, { update: () => {} });
          view.render(data);
          for (const problem of problems(body)) found.push(`${step.id}: ${problem}`);
        }
        expect(found).toEqual([]);
      },
      120_000,
    );
  }

  test('the softmax step says a fully masked row draws nothing and sums to 0, rather than dividing 0 by 0', () => {
    const data = fullyMasked();
    const step = STEPS.find((s) => s.id === 'softmax')!;
    const body = document.createElement('div');
    document.body.replaceChildren(body);
    step.mount(body, { update: () => {} }).render(data);
    expect(body.textContent).toMatch(/0%/);
  });
});
