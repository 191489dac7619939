// @vitest-environment happy-dom
// The causal step on real snapshots: the mask in force (the editor's table), the right-way weights
// with exact zeros and rows summing to 100%, and the wrong way with the real (short) row sums, whatever
// the page's own mask. The editor's presets are the step's one control (no checkbox of its own).
import { describe, expect, test } from 'vitest';
import { CAUSAL_MASK_LINE } from '../../../web/src/features/hands-on/numpy-script';
import { causalStep } from '../../../web/src/steps/07-causal/step';
import { numpyPrint, rowSums } from '../../../web/src/steps/07-causal/numpy-print';
import { fmt, percent } from '../../../web/src/ui/format';
import { snapshotFor } from '../fixtures';
import { mountStep } from '../mount-step';

const mount = () => mountStep(causalStep);

const tables = (body: HTMLElement) => [...body.querySelectorAll('table.matrix')];
/** The right way and the wrong way: the two tables of the comparison. */
const compared = (body: HTMLElement) => [...body.querySelectorAll('.causal-compare table.matrix')];
const cell = (table: Element, r: number, c: number) => table.querySelector(`td[data-row="${r}"][data-col="${c}"]`)!;
const totals = (table: Element) => [...table.querySelectorAll('td.row-total')].map((td) => td.textContent);

describe('causal step', () => {
  for (const causal of [false, true]) {
    test(`right way: exact zeros above the diagonal, every row 100% (page causal ${causal ? 'on' : 'off'})`, async () => {
      const snapshot = await snapshotFor({ causal });
      const { body, view } = mount();
      view.render(snapshot);
      const { pipeline: p } = snapshot;
      const n = p.n;
      const [right] = compared(body);
      for (let r = 0; r < n; r++) {
        for (let c = 0; c < n; c++) {
          const value = p.weightsCausal.data[r * n + c];
          const td = cell(right, r, c);
          if (c > r) {
            expect(value).toBe(0);
            expect(td.textContent).toBe('0');
            expect(td.classList.contains('blocked')).toBe(true);
          } else {
            expect(td.textContent).toBe(fmt(value));
          }
        }
      }
      expect(cell(right, 0, 0).textContent).toBe('1.00');
      expect(totals(right)).toEqual(Array(n).fill('100%'));
    });

    test(`wrong way: the row sums shown are the real sums and fall short of 100% (page causal ${causal ? 'on' : 'off'})`, async () => {
      const snapshot = await snapshotFor({ causal });
      const { body, view } = mount();
      view.render(snapshot);
      const { pipeline: p } = snapshot;
      const n = p.n;
      const [, wrong] = compared(body);
      const sums = rowSums(p.weightsMaskedAfter.data, 0, n);
      expect(totals(wrong)).toEqual(sums.map((s) => percent(s)));
      for (let r = 0; r < n - 1; r++) expect(sums[r]).toBeLessThan(1);
      expect(sums[n - 1]).toBeCloseTo(1, 5);
      expect(totals(wrong)[n - 1]).toBe('100%');
      const short = [...wrong.querySelectorAll('td.row-total-short')];
      expect(short.length).toBe(n - 1);
      // Above the diagonal: zeroed. On and below: the unmasked softmax, untouched.
      expect(cell(wrong, 1, 2).textContent).toBe('0');
      expect(cell(wrong, 2, 1).textContent).toBe(fmt(p.weightsMaskedAfter.data[2 * n + 1]));
      const reading = body.querySelector('.causal-reading')!.textContent!;
      expect(reading).toContain(`row 2 (“animal”) would sum to ${percent(sums[1])}`);
      expect(reading).toContain(`still reaches ${percent(sums[n - 1])}`);
    });
  }

  test('each figure once: the mask in force and the comparison, no score matrix; a custom mask adds its weights', async () => {
    const { body, view } = mount();
    const captions = () => tables(body).map((t) => t.querySelector('caption')!.textContent);
    // No mask: the mask table is all ones, and the weights it gives are step 5's, not drawn again.
    view.render(await snapshotFor({ heads: 2, head: 1 }));
    expect(captions()).toEqual([
      'mask (9, 9) in force: 1 = may look, 0 = blocked',
      'softmax(masked scores), head 2 of 2',
      'softmax(scores), then zeroed, head 2 of 2',
    ]);
    const mask = tables(body)[0];
    for (let r = 0; r < 9; r++) for (let c = 0; c < 9; c++) expect(cell(mask, r, c).textContent).toBe('1');
    // Causal: the mask table is lower-triangular, and its weights are the comparison's right-hand table.
    view.render(await snapshotFor({ heads: 2, head: 1, causal: true }));
    expect(tables(body)).toHaveLength(3);
    for (let r = 0; r < 9; r++) for (let c = 0; c < 9; c++) expect(cell(tables(body)[0], r, c).textContent).toBe(c <= r ? '1' : '0');
    // A custom mask: its weights are new, so they are drawn next to the mask.
    const window = await snapshotFor({ heads: 2, head: 1, mask: 'window:2' });
    view.render(window);
    expect(captions()[1]).toBe('softmax(masked scores), head 2 of 2: the weights every step uses');
    const weights = body.querySelector('table.mask-weights')!;
    expect(cell(weights, 3, 2).textContent).toBe(fmt(window.pipeline.weights.data[(9 + 3) * 9 + 2]));
    expect(cell(weights, 3, 1).textContent).toBe('0');
    view.render(await snapshotFor({ heads: 2, head: 1 }));
    expect(body.querySelector('table.mask-weights')).toBeNull();
  });

  test('the two weight tables are the shown head’s: softmax of that head’s scores, masked before or zeroed after', async () => {
    const snapshot = await snapshotFor({ heads: 2, head: 1 });
    const { body, view } = mount();
    view.render(snapshot);
    const { pipeline: p } = snapshot;
    const n = p.n;
    expect(p.comparisonHead).toBe(1);
    const [right, wrong] = compared(body);
    for (let r = 0; r < n; r++) {
      // Head 2's scaled scores, row r, softmaxed in float64 over the visible keys (before) or all of them (after).
      const row = Array.from(p.scoresScaled.data.subarray((n + r) * n, (n + r + 1) * n));
      const softmax = (values: number[]) => {
        const top = Math.max(...values);
        const e = values.map((v) => Math.exp(v - top));
        const total = e.reduce((a, b) => a + b, 0);
        return e.map((v) => v / total);
      };
      const before = softmax(row.slice(0, r + 1));
      const after = softmax(row);
      for (let c = 0; c <= r; c++) {
        expect(cell(right, r, c).textContent).toBe(fmt(before[c]!));
        expect(cell(wrong, r, c).textContent).toBe(fmt(after[c]!));
      }
    }
    expect(right.querySelector('caption')!.textContent).toContain('head 2 of 2');
  });

  test('one control for the mask: the presets show the page setting and change it, and there is no checkbox', async () => {
    const { body, view, changes } = mount();
    view.render(await snapshotFor({ causal: false }));
    expect(body.querySelectorAll('input[type="checkbox"]')).toHaveLength(0);
    const radio = (kind: string) => body.querySelector(`input.mask-kind[value="${kind}"]`) as HTMLInputElement;
    expect([...body.querySelectorAll<HTMLInputElement>('input.mask-kind')].map((r) => r.value)).toEqual([
      'none',
      'causal',
      'pad',
      'window',
      'prefix',
      'paint',
    ]);
    expect(radio('none').checked).toBe(true);
    expect(body.querySelector('.mask-state')!.textContent).toBe('No mask: every token may look at every token.');
    radio('causal').checked = true;
    radio('causal').dispatchEvent(new Event('change'));
    expect(changes).toEqual([{ causal: true }]);
    view.render(await snapshotFor({ causal: true }));
    expect(radio('causal').checked).toBe(true);
    expect(radio('none').checked).toBe(false);
    expect(body.querySelector('.mask-state')!.textContent).toBe('In force on every step: the causal mask.');
  });

  test('every field is inside a form that never submits (Enter in the lone number field stays on the page)', async () => {
    const { body, view } = mount();
    view.render(await snapshotFor({}));
    const fields = [...body.querySelectorAll<HTMLInputElement>('input, select, textarea')];
    expect(fields.length).toBeGreaterThanOrEqual(7);
    expect(fields.filter((field) => !field.form)).toEqual([]);
    const submit = new Event('submit', { cancelable: true });
    body.querySelector<HTMLInputElement>('.mask-param-input')!.form!.dispatchEvent(submit);
    expect(submit.defaultPrevented).toBe(true);
  });

  test('prints our mask line, and this page’s w the way NumPy would', async () => {
    const snapshot = await snapshotFor({ sentence: 'the animal was tired' });
    const { body, view } = mount();
    view.render(snapshot);
    const code = body.querySelector('pre.code')!.textContent!;
    expect(code).toContain(CAUSAL_MASK_LINE);
    const printed = body.querySelector('pre.code-output')!.textContent!;
    expect(printed.split('\n').length).toBe(4);
    expect(printed.startsWith('[[1.   0.   0.   0.  ]')).toBe(true);
    expect(printed.endsWith(']]')).toBe(true);
  });

  test('numpyPrint pads like NumPy', () => {
    const w = [1, 0, 0, 0, 0.51, 0.49, 0, 0, 0.38, 0.22, 0.4, 0, 0.24, 0.33, 0.2, 0.23];
    expect(numpyPrint(w, 0, 4, 4)).toBe('[[1.   0.   0.   0.  ]\n [0.51 0.49 0.   0.  ]\n [0.38 0.22 0.4  0.  ]\n [0.24 0.33 0.2  0.23]]');
  });

  test('two tokens: the only short row is row 1, and the reading says so', async () => {
    const snapshot = await snapshotFor({ sentence: 'hello world' });
    const { body, view } = mount();
    view.render(snapshot);
    const sums = rowSums(snapshot.pipeline.weightsMaskedAfter.data, 0, 2);
    const reading = body.querySelector('.causal-reading')!.textContent!;
    expect(reading).toContain(`row 1 (“hello”) would sum to only ${percent(sums[0])}`);
    expect(reading).toContain(`(${fmt(sums[0])} for row 1)`);
    expect(totals(compared(body)[1])).toEqual([percent(sums[0]), '100%']);
  });

  test('one token, and large n: no NaN, sensible words', async () => {
    const one = await snapshotFor({ sentence: 'alone' });
    const { body, view } = mount();
    view.render(one);
    expect(body.querySelector('.causal-reading')!.textContent).toContain('single token');
    expect(body.textContent).not.toMatch(/NaN|undefined|Infinity/);
    const long = await snapshotFor({ sentence: Array.from({ length: 66 }, (_, i) => `w${i}`).join(' ') });
    view.render(long);
    expect(body.textContent).not.toMatch(/NaN|undefined|Infinity/);
    // 66 × 66 without numbers: the three maps (mask, right, wrong) are pictures, and the two weights maps
    // keep their row sums as a table under the picture (the wrong way's sums are the lesson).
    const figures = [...body.querySelectorAll('.matrix-figure')];
    expect(figures).toHaveLength(3);
    expect(
      figures.map(
        (f) =>
          f
            .querySelector('.matrix-picture')
            ?.getAttribute('aria-label')
            ?.match(/a 66 × 66 heatmap/) !== null,
      ),
    ).toEqual([true, true, true]);
    expect((body.querySelector('.code-output')!.parentElement as HTMLElement).hidden).toBe(true);
    const sums = rowSums(long.pipeline.weightsMaskedAfter.data, 0, 66);
    const wrongTotals = figures[2].querySelector('table.picture-totals-table')!;
    expect(totals(wrongTotals)).toEqual(sums.map((s) => percent(s)));
    expect(sums.some((s) => Math.abs(s - 1) > 0.01)).toBe(true);
    expect(wrongTotals.querySelectorAll('td.row-total-short').length).toBeGreaterThan(0);
  });
});

describe('the opening names positions of the sentence shown', () => {
  test.each([
    ['the animal was tired', 'at “was” (position 3) it must not see “tired” (position 4),'],
    ['a cat sat', 'at “cat” (position 2) it must not see “sat” (position 3),'],
    ['the cat sat on the mat', 'at “sat” (position 3) it must not see positions 4 to 6,'],
    ['hello', 'with one token there is no later word to hide.'],
  ])('%s', async (sentence, expected) => {
    const snapshot = await snapshotFor({ sentence, weights: 'random' });
    const { body, view } = mount();
    view.render(snapshot);
    const opening = body.querySelector('p:not([class])')!.textContent!;
    expect(opening).toContain(expected);
    expect(opening).not.toMatch(/positions? 5\b/);
  });
});
