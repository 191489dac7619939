// @vitest-environment happy-dom
// The FlashAttention step on real snapshots (the engine's own trace, computed by compute.ts): stepping
// through every tile ends at an output equal to step 6's (the snapshot's headOutputs) within 1e-5;
// rows are marked as rescaled exactly where their running max grew; causal tiles above the diagonal
// show as skipped; the memory meter counts n² against b² + 3b. Autoplay runs on a clock the test
// advances by hand. The step's "Run it on my machine" figure has its own file, 10-flash-run.test.ts.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { FLASH_MAX_TOKENS } from '../../../web/src/compute';
import { flashStep, FLASH_AUTOPLAY_MS, type AutoplayClock } from '../../../web/src/features/flash/step';
import { rescaledRows } from '../../../web/src/features/flash/trace';
import type { Snapshot } from '../../../web/src/snapshot';
import { snapshotFor } from '../fixtures';
import { mount, position, q, total } from './flash-fixture';

const number = (text: string | null) => Number((text ?? '').replace('\u2212', '-'));

function toEnd(body: HTMLElement): void {
  const next = q<HTMLButtonElement>(body, '.flash-next');
  for (let i = 0; i < 400 && !next.disabled; i++) next.click();
}

/** headOutputs of the shown head, first `rows` rows. */
function headOutput(s: Snapshot, rows: number): Float32Array {
  const { pipeline: p, settings } = s;
  const start = settings.head * p.n * p.dK;
  return p.headOutputs.data.slice(start, start + rows * p.dK);
}

/** Autoplay's clock, advanced by the test: every(ms, tick) registers a ticker, advance(ms) runs the due ticks in order. */
function manualClock() {
  let now = 0;
  const tickers = new Set<{ ms: number; next: number; tick: () => void }>();
  const clock: AutoplayClock = {
    every(ms, tick) {
      const ticker = { ms, next: now + ms, tick };
      tickers.add(ticker);
      return () => tickers.delete(ticker);
    },
  };
  return {
    clock,
    advance(ms: number): void {
      const end = now + ms;
      for (;;) {
        const due = [...tickers].filter((t) => t.next <= end).sort((a, b) => a.next - b.next)[0];
        if (!due) break;
        now = due.next;
        due.next += due.ms;
        due.tick();
      }
      now = end;
    },
    /** Tickers running, with their periods. */
    periods: () => [...tickers].map((t) => t.ms),
  };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('FlashAttention step', () => {
  test('is step 10, between the cost and training', async () => {
    const { STEPS } = await import('../../../web/src/steps/index');
    expect(STEPS.map((s) => `${s.number}:${s.id}`).slice(8)).toEqual(['9:cost', '10:flash', '11:long-context', '12:train', '13:faq']);
    expect(flashStep.formula).toBeDefined();
  });

  test.each([
    ['the defaults (9 tokens, block 4)', {}],
    ['causal, block 2', { causal: true, block: 2 }],
    ['block 1', { block: 1 }],
    ['block 3, head 2 of 4, d_model 16', { block: 3, dModel: 16, heads: 4, head: 1 }],
    ['no scaling, block 16 (one tile)', { scale: false, block: 16 }],
    ['d_model 512, 8 heads (d_k 64)', { dModel: 512, heads: 8, block: 5 }],
  ])('stepping to the last tile ends at step 6’s output within 1e-5: %s', async (_name, change) => {
    const snapshot = await snapshotFor(change);
    const { body, view } = mount();
    view.render(snapshot);
    const trace = snapshot.flash.trace!;
    expect(trace.nQ).toBe(snapshot.pipeline.n);
    expect(total(body)).toBe(trace.queryBlocks * trace.keyBlocks);
    // The engine's tiled output is the naive one.
    const naive = headOutput(snapshot, trace.nQ);
    let worst = 0;
    for (let i = 0; i < naive.length; i++) worst = Math.max(worst, Math.abs(trace.output.data[i] - naive[i]));
    expect(worst).toBeLessThan(1e-5);
    // And the figure says so at the end, next to step 6's table.
    expect(q(body, '.flash-diff').hidden).toBe(total(body) > 1);
    toEnd(body);
    expect(position(body)).toBe(total(body) - 1);
    const diff = q(body, '.flash-diff');
    expect(diff.hidden).toBe(false);
    expect(Number(diff.dataset.value)).toBeLessThan(1e-5);
    expect(Number(diff.dataset.value)).toBeCloseTo(worst, 10);
    expect(q(body, '.flash-naive-figure').hidden).toBe(false);
    if (trace.dK <= 16) {
      const cells = (selector: string) => [...body.querySelectorAll(`${selector} td`)].map((td) => number(td.textContent));
      const tiled = cells('table.flash-output');
      const reference = cells('table.flash-naive');
      expect(tiled).toHaveLength(naive.length);
      tiled.forEach((value, i) => expect(value).toBeCloseTo(naive[i], 2));
      reference.forEach((value, i) => expect(value).toBeCloseTo(naive[i], 2));
      expect(body.querySelectorAll('table.flash-output td.blocked')).toHaveLength(0);
    }
    expect(body.textContent).not.toMatch(/NaN|undefined|Infinity/);
  });

  test('the rescale highlight is on exactly the rows whose running max grew, with factor exp(m_old − m_new) < 1', async () => {
    let seen = 0;
    for (const seed of [1, 2, 3]) {
      const snapshot = await snapshotFor({ seed, block: 2, sentence: 'the animal crossed the road because it was tired and slow' });
      const { body, view } = mount();
      view.render(snapshot);
      const trace = snapshot.flash.trace!;
      for (let index = 0; index < trace.steps.length; index++) {
        const step = trace.steps[index];
        const previousM = step.keyBlock > 0 ? trace.steps[index - 1].m : null;
        const grew = Array.from(step.m, (m, r) =>
          previousM !== null && Number.isFinite(previousM[r]) && m > previousM[r] ? step.queryStart + r : -1,
        ).filter((r) => r >= 0);
        const marked = [...body.querySelectorAll<HTMLElement>('table.flash-state tr.flash-rescaled')].map((tr) => Number(tr.dataset.row));
        expect(marked).toEqual(grew);
        expect(rescaledRows(trace, index).map((r) => r + step.queryStart)).toEqual(grew);
        for (const row of grew) {
          const r = row - step.queryStart;
          expect(step.rescale[r]).toBeLessThan(1);
          expect(step.rescale[r]).toBeCloseTo(Math.exp(previousM![r] - step.m[r]), 5);
          const factor = q(body, `table.flash-state tr[data-row="${row}"] .flash-factor`).textContent!;
          expect(factor).toMatch(/^exp\(.+ − .+\) = \d\.\d{3}$/);
        }
        // Rows not marked: the factor is 1 (or there was nothing before).
        for (let r = 0; r < step.m.length; r++)
          if (!grew.includes(step.queryStart + r) && step.keyBlock > 0) expect(step.rescale[r]).toBe(1);
        seen += grew.length;
        if (grew.length) expect(q(body, '.flash-status').textContent).toMatch(/found a larger score and rescaled/);
        q<HTMLButtonElement>(body, '.flash-next').click();
      }
    }
    expect(seen).toBeGreaterThan(0); // the sentences above do rescale somewhere
  });

  test('causal: tiles above the diagonal are shown as skipped, with nothing loaded', async () => {
    const snapshot = await snapshotFor({ causal: true, block: 3 });
    const trace = snapshot.flash.trace!;
    const skipped = trace.steps.filter((s) => s.skipped);
    expect(skipped.length).toBe(3); // 3 x 3 tiles, the three above the diagonal
    const { body, view } = mount();
    view.render(snapshot);
    expect(body.querySelectorAll('table.flash-tiles td[data-state="skipped"]')).toHaveLength(3);
    const index = trace.steps.findIndex((s) => s.skipped);
    for (let i = 0; i < index; i++) q<HTMLButtonElement>(body, '.flash-next').click();
    expect(position(body)).toBe(index);
    expect(q(body, 'table.flash-tiles td[data-state="current"]').classList.contains('skipped')).toBe(true);
    expect(q(body, '.flash-status').textContent).toMatch(/skipped/);
    expect(q(body, '.flash-explain').textContent).toMatch(/skips it: no K or V rows are loaded/);
    expect(body.querySelectorAll('table.flash-k td.hl, table.flash-v td.hl')).toHaveLength(0);
    expect(body.querySelectorAll('table.flash-q td.hl').length).toBe(3 * snapshot.pipeline.dK);
    expect(q(body, 'table.flash-k caption').textContent).toContain('nothing loaded');
    expect(body.querySelectorAll('table.flash-scores td.blocked')).toHaveLength(9);
    // Without the mask nothing is skipped.
    view.render(await snapshotFor({ causal: false, block: 3 }));
    expect(body.querySelectorAll('table.flash-tiles td[data-state="skipped"]')).toHaveLength(0);
  });

  test('the rows on chip are outlined in Q, K and V', async () => {
    const snapshot = await snapshotFor({ block: 4 });
    const { body, view } = mount();
    view.render(snapshot);
    const rows = (table: string) => [
      ...new Set([...body.querySelectorAll<HTMLElement>(`table.${table} td.hl`)].map((td) => Number(td.dataset.row))),
    ];
    expect(rows('flash-q')).toEqual([0, 1, 2, 3]);
    expect(rows('flash-k')).toEqual([0, 1, 2, 3]);
    q<HTMLButtonElement>(body, '.flash-next').click();
    q<HTMLButtonElement>(body, '.flash-next').click(); // query block 1, key block 3: key 9 only
    expect(rows('flash-q')).toEqual([0, 1, 2, 3]);
    expect(rows('flash-v')).toEqual([8]);
    expect(q(body, 'table.flash-v caption').textContent).toBe('V: key 9 on chip');
    q<HTMLButtonElement>(body, '.flash-next').click();
    expect(rows('flash-q')).toEqual([4, 5, 6, 7]);
  });

  test('the memory meter: n² floats against b² + 3b, here and at 8k', async () => {
    const { body, view } = mount();
    view.render(await snapshotFor({ block: 4 }));
    const bars = (selector: string) =>
      [...body.querySelectorAll(`${selector} tbody tr`)].map((tr) => [
        tr.querySelector('th')!.textContent,
        tr.querySelector('.bar-value')!.textContent,
      ]);
    expect(bars('.flash-meter-here')).toEqual([
      ['naive: n × n matrix', '81 floats (324 B)'],
      ['tiled: 4 × 4 + 3 × 4', '28 floats (112 B)'],
    ]);
    expect(bars('.flash-meter-long')).toEqual([
      ['naive: n × n matrix', '67,108,864 floats (256 MiB)'],
      ['tiled: 4 × 4 + 3 × 4', '28 floats (112 B)'],
    ]);
    expect(q(body, '.flash-meter-here caption').textContent).toBe('This sentence, n = 9, block 4');
    expect(q(body, '.flash-meter-reading').textContent).toContain('2,396,745 times less');
    // A block larger than the sentence is clamped to n, as the kernel clamps it.
    view.render(await snapshotFor({ block: 16 }));
    expect(bars('.flash-meter-here')[1]).toEqual(['tiled: 9 × 9 + 3 × 9', '108 floats (432 B)']);
    expect(bars('.flash-meter-long')[1]).toEqual(['tiled: 16 × 16 + 3 × 16', '304 floats (1.19 KiB)']);
    expect(q(body, '.flash-block-control .hint').textContent).toContain('one tile, which is just the naive method');
  });

  test('longer sentences: the first 16 tokens, said so, compared with naive attention on the same tokens', async () => {
    const sentence = Array.from({ length: 21 }, (_, i) => `w${i}`).join(' ');
    for (const causal of [false, true]) {
      const snapshot = await snapshotFor({ sentence, causal });
      expect(snapshot.flash.tokens).toBe(FLASH_MAX_TOKENS);
      expect(Boolean(snapshot.flash.prefixNaive)).toBe(!causal);
      const { body, view } = mount();
      view.render(snapshot);
      expect(q(body, '.flash-subset').textContent).toContain('This sentence has 21 tokens; the step-through uses the first 16');
      expect(body.querySelectorAll('table.flash-q tbody tr')).toHaveLength(16);
      toEnd(body);
      expect(Number(q(body, '.flash-diff').dataset.value)).toBeLessThan(1e-5);
      expect(q(body, 'table.flash-naive caption').textContent).toContain(
        causal ? 'rows 1–16 of step 6’s table' : 'naive attention on the same 16 tokens',
      );
      if (causal) {
        // The causal rows 1..16 are exactly step 6's first 16 rows.
        const naive = headOutput(snapshot, 16);
        snapshot.flash.trace!.output.data.forEach((v, i) => expect(Math.abs(v - naive[i])).toBeLessThan(1e-5));
      }
    }
  });

  test('keyboard on the figure: ← → step, Home and End jump; arrow keys inside tables do not', async () => {
    const { body, view } = mount();
    view.render(await snapshotFor());
    const stepper = q(body, '.flash-stepper');
    expect(stepper.getAttribute('tabindex')).toBe('0');
    const key = (target: Element, k: string) => target.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
    key(stepper, 'ArrowRight');
    key(stepper, 'ArrowRight');
    expect(position(body)).toBe(2);
    key(stepper, 'ArrowLeft');
    expect(position(body)).toBe(1);
    key(stepper, 'End');
    expect(position(body)).toBe(8);
    key(stepper, 'ArrowRight');
    expect(position(body)).toBe(8);
    key(q(body, '.flash-prev'), 'ArrowLeft'); // from a focused button too
    expect(position(body)).toBe(7);
    key(q(body, '.flash-stepper .matrix-scroll'), 'ArrowLeft');
    expect(position(body)).toBe(7);
    key(stepper, 'Home');
    expect(position(body)).toBe(0);
    expect(q<HTMLButtonElement>(body, '.flash-prev').disabled).toBe(true);
  });

  test('Autoplay advances one tile per tick, stops at the end, and stops when the reader steps', async () => {
    const time = manualClock();
    const { body, view } = mount({ clock: time.clock });
    view.render(await snapshotFor());
    const autoplay = q<HTMLButtonElement>(body, '.flash-autoplay');
    expect(autoplay.getAttribute('aria-pressed')).toBe('false');
    expect(time.periods()).toEqual([]);
    autoplay.click();
    expect(autoplay.getAttribute('aria-pressed')).toBe('true');
    expect(time.periods()).toEqual([FLASH_AUTOPLAY_MS]);
    expect(q(body, '.flash-status').getAttribute('aria-live')).toBe('off');
    time.advance(FLASH_AUTOPLAY_MS - 1);
    expect(position(body)).toBe(0);
    time.advance(1);
    expect(position(body)).toBe(1);
    time.advance(FLASH_AUTOPLAY_MS * 2);
    expect(position(body)).toBe(3);
    q<HTMLButtonElement>(body, '.flash-next').click();
    expect(autoplay.getAttribute('aria-pressed')).toBe('false');
    expect(q(body, '.flash-status').getAttribute('aria-live')).toBe('polite');
    expect(time.periods()).toEqual([]); // stopped, not just paused
    time.advance(FLASH_AUTOPLAY_MS * 3);
    expect(position(body)).toBe(4);
    autoplay.click();
    time.advance(FLASH_AUTOPLAY_MS * 20);
    expect(position(body)).toBe(8);
    expect(autoplay.getAttribute('aria-pressed')).toBe('false');
    expect(time.periods()).toEqual([]);
    // From the end, Autoplay starts over.
    autoplay.click();
    expect(position(body)).toBe(0);
  });

  const reducedMotionList = { matches: false };
  test.each([
    ['no motion preference: it plays once in view, until the reader steps', false],
    ['prefers-reduced-motion: nothing moves by itself', true],
  ])('autoplay on coming into view, %s', async (_name, reduced) => {
    const observers: ((entries: { isIntersecting: boolean }[]) => void)[] = [];
    vi.stubGlobal(
      'IntersectionObserver',
      class {
        constructor(callback: (entries: { isIntersecting: boolean }[]) => void) {
          observers.push(callback);
        }
        observe(): void {}
        disconnect(): void {}
      },
    );
    // one live list per query, as a browser's: the step makes its query once and reads it on each check
    reducedMotionList.matches = reduced;
    vi.stubGlobal('matchMedia', (query: string) => (query === '(prefers-reduced-motion: reduce)' ? reducedMotionList : { matches: false }));
    const time = manualClock();
    const { body, view } = mount({ clock: time.clock });
    view.render(await snapshotFor());
    const autoplay = q<HTMLButtonElement>(body, '.flash-autoplay');
    expect(observers).toHaveLength(1);
    time.advance(FLASH_AUTOPLAY_MS * 3); // out of view: nothing plays
    expect(position(body)).toBe(0);
    observers[0]([{ isIntersecting: true }]);
    expect(autoplay.getAttribute('aria-pressed')).toBe(String(!reduced));
    time.advance(FLASH_AUTOPLAY_MS * 2);
    expect(position(body)).toBe(reduced ? 0 : 2);
    q<HTMLButtonElement>(body, '.flash-next').click();
    const stopped = position(body);
    expect(stopped).toBe(reduced ? 1 : 3);
    // Once the reader has stepped, coming into view again does not start it.
    observers[0]([{ isIntersecting: false }]);
    observers[0]([{ isIntersecting: true }]);
    time.advance(FLASH_AUTOPLAY_MS * 3);
    expect(position(body)).toBe(stopped);
    expect(autoplay.getAttribute('aria-pressed')).toBe('false');
  });

  test('the block control asks for a settings change; a new tiling starts at tile 1', async () => {
    const { body, view, updates } = mount();
    view.render(await snapshotFor({ block: 4 }));
    const input = q<HTMLInputElement>(body, '.flash-block-control input[type="range"]');
    expect([input.min, input.max, input.value]).toEqual(['1', '16', '4']);
    expect(q(body, '.flash-block-control label').getAttribute('for')).toBe(input.id);
    input.value = '2';
    input.dispatchEvent(new Event('input'));
    expect(updates).toEqual([{ block: 2 }]);
    q<HTMLButtonElement>(body, '.flash-next').click();
    view.render(await snapshotFor({ block: 2 }));
    expect(position(body)).toBe(0);
    expect(total(body)).toBe(25);
    // Same tiling, other numbers (seed): the position is kept.
    q<HTMLButtonElement>(body, '.flash-next').click();
    view.render(await snapshotFor({ block: 2, seed: 9 }));
    expect(position(body)).toBe(1);
  });

  test('heads wider than the trace allows: a message instead of the stepper, the meter still there', async () => {
    const snapshot = await snapshotFor({ dModel: 512, heads: 1 });
    expect(snapshot.flash.trace).toBeNull();
    const { body, view } = mount();
    view.render(snapshot);
    expect(q(body, '.flash-stepper').hidden).toBe(true);
    expect(q(body, '.flash-unavailable').textContent).toContain('dₖ = 512');
    expect(q(body, '.flash-meter-here .bar-value').textContent).toBe('81 floats (324 B)');
    expect(body.textContent).not.toMatch(/NaN|undefined/);
  });
});
