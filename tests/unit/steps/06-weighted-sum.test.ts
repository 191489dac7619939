// @vitest-environment happy-dom
// The weighted-sum step on real snapshots: the three matrices are the shown head's weights, V and
// output, and the by-hand line for any output cell has exactly the weights row times the V column
// as its terms, which add up to the cell.
import { describe, expect, test } from 'vitest';
import { ATTENTION_FUNCTION } from '../../../web/src/features/hands-on/numpy-script';
import { weightedSumStep } from '../../../web/src/steps/06-weighted-sum/step';
import { fmt } from '../../../web/src/ui/format';
import type { Snapshot } from '../../../web/src/snapshot';
import { snapshotFor } from '../fixtures';
import { mountStep } from '../mount-step';

const mount = () => mountStep(weightedSumStep);

const parse = (text: string) => Number(text.replace('\u2212', '-'));

function terms(body: HTMLElement) {
  return [...body.querySelectorAll('.by-hand .term')].map((t) => ({
    a: Number((t as HTMLElement).dataset.a),
    b: Number((t as HTMLElement).dataset.b),
  }));
}

function checkCell(body: HTMLElement, snapshot: Snapshot, row: number, col: number) {
  const { pipeline: p, settings } = snapshot;
  const h = settings.head;
  const shown = terms(body);
  expect(shown.length).toBe(p.n);
  shown.forEach((term, t) => {
    expect(term.a).toBeCloseTo(p.weights.data[(h * p.n + row) * p.n + t], 6);
    expect(term.b).toBeCloseTo(p.V_heads.data[(h * p.n + t) * p.dK + col], 6);
  });
  const expected = p.headOutputs.data[(h * p.n + row) * p.dK + col];
  expect(shown.reduce((sum, term) => sum + term.a * term.b, 0)).toBeCloseTo(expected, 5);
  const result = body.querySelector('.by-hand-result')!.textContent!;
  expect(result).toBe(fmt(expected));
  expect(parse(result)).toBeCloseTo(expected, 2);
}

describe('weighted-sum step', () => {
  test('shows the shown head’s weights, V slice and output (n, d_k)', async () => {
    const snapshot = await snapshotFor({ heads: 2, head: 1 });
    const { body, view } = mount();
    view.render(snapshot);
    const { pipeline: p } = snapshot;
    const [weights, values, output] = [...body.querySelectorAll('table.matrix')];
    const h = 1;
    const cellsOf = (table: Element) => [...table.querySelectorAll('td')].map((td) => td.textContent);
    expect(cellsOf(weights)).toEqual(Array.from(p.weights.data.subarray(h * p.n * p.n, (h + 1) * p.n * p.n), (v) => fmt(v)));
    expect(cellsOf(values)).toEqual(Array.from(p.V_heads.data.subarray(h * p.n * p.dK, (h + 1) * p.n * p.dK), (v) => fmt(v)));
    expect(cellsOf(output)).toEqual(Array.from(p.headOutputs.data.subarray(h * p.n * p.dK, (h + 1) * p.n * p.dK), (v) => fmt(v)));
    expect(output.querySelector('caption')!.textContent).toContain('(n, dₖ) = (9, 4)');
    expect(output.querySelector('caption')!.textContent).toContain('head 2 of 2');
  });

  test('the first output cell is worked out on first paint, and its terms add up to it', async () => {
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    checkCell(body, snapshot, 0, 0);
    expect(body.querySelector('.by-hand-label')!.textContent).toBe('out₁,₁');
  });

  test('clicking an output cell shows its arithmetic and outlines the weights row and the V column', async () => {
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    const [weights, values, output] = [...body.querySelectorAll('table.matrix')];
    (output.querySelector('td[data-row="6"][data-col="2"]') as HTMLElement).click();
    checkCell(body, snapshot, 6, 2);
    expect(body.querySelector('.by-hand-title')!.textContent).toContain('Output row 7 (“it”), dimension 3');
    const outlinedWeights = [...weights.querySelectorAll('td.hl')] as HTMLElement[];
    expect(outlinedWeights.length).toBe(snapshot.pipeline.n);
    expect(outlinedWeights.every((td) => td.dataset.row === '6')).toBe(true);
    const outlinedValues = [...values.querySelectorAll('td.hl')] as HTMLElement[];
    expect(outlinedValues.length).toBe(snapshot.pipeline.n);
    expect(outlinedValues.every((td) => td.dataset.col === '2')).toBe(true);
  });

  test('arrow keys move through the output grid and the arithmetic follows', async () => {
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    const output = body.querySelectorAll('table.matrix')[2];
    (output.querySelector('td[data-row="0"][data-col="0"]') as HTMLElement).dispatchEvent(
      new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }),
    );
    document.activeElement!.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
    const selected = output.querySelector('td.selected') as HTMLElement;
    expect([selected.dataset.row, selected.dataset.col]).toEqual(['1', '1']);
    checkCell(body, snapshot, 1, 1);
  });

  test('the reading keeps the result between the V column’s extremes, with the real numbers', async () => {
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    const { pipeline: p } = snapshot;
    const column = Array.from({ length: p.n }, (_, t) => p.V_heads.data[t * p.dK]);
    const text = body.querySelector('.reading')!.textContent!;
    expect(text).toContain(`smallest value (${fmt(Math.min(...column))})`);
    expect(text).toContain(`largest (${fmt(Math.max(...column))})`);
    expect(text).toContain('add up to 1.00');
    const value = p.headOutputs.data[0];
    expect(value).toBeGreaterThanOrEqual(Math.min(...column));
    expect(value).toBeLessThanOrEqual(Math.max(...column));
  });

  test('with the causal mask on, blocked weights read 0 and still enter the sum as zero terms', async () => {
    const snapshot = await snapshotFor({ causal: true });
    const { body, view } = mount();
    view.render(snapshot);
    const weights = body.querySelectorAll('table.matrix')[0];
    const blocked = [...weights.querySelectorAll('td.blocked')] as HTMLElement[];
    const n = snapshot.pipeline.n;
    expect(blocked.length).toBe((n * (n - 1)) / 2);
    expect(blocked.every((td) => td.textContent === '0' && Number(td.dataset.col) > Number(td.dataset.row))).toBe(true);
    const output = body.querySelectorAll('table.matrix')[2];
    (output.querySelector('td[data-row="2"][data-col="0"]') as HTMLElement).click();
    checkCell(body, snapshot, 2, 0);
    expect(
      terms(body)
        .slice(3)
        .every((term) => term.a === 0),
    ).toBe(true);
  });

  test('shows our attention_heads(), the script’s own function, and maps its lines to the steps', async () => {
    const { body, view } = mount();
    view.render(await snapshotFor());
    const code = body.querySelector('pre.code')!.textContent!;
    for (const line of ATTENTION_FUNCTION.split('\n')) expect(code).toContain(line);
    expect(code).toContain('scores = np.where(mask, scores, -np.inf)');
    const hrefs = [...body.querySelectorAll('p a')].map((a) => a.getAttribute('href'));
    expect(hrefs).toEqual(['#qkv', '#scores', '#scale', '#causal', '#softmax', '#multi-head']);
    // The prose cites lines by number: each cited line holds what the prose says it does.
    const line = (i: number) => ATTENTION_FUNCTION.split('\n')[i - 1];
    expect(line(3)).toContain('X @ W_q');
    expect(line(9)).toContain('scores =');
    expect(line(11)).toContain('np.sqrt(d_k)');
    expect(line(13)).toContain('-np.inf');
    expect(line(16)).toContain('np.exp');
    expect(line(18)).toContain('weights =');
    expect(line(19)).toContain('outputs = weights @');
    expect(line(21)).toContain('@ W_o');
  });

  test('never shows NaN, at the edges of the settings', async () => {
    for (const settings of [
      { sentence: 'alone' },
      { dModel: 1, heads: 1 },
      { dModel: 512, heads: 64, head: 63 },
      { sentence: Array.from({ length: 66 }, (_, i) => `w${i}`).join(' ') },
    ]) {
      const snapshot = await snapshotFor(settings);
      const { body, view } = mount();
      view.render(snapshot);
      expect(body.textContent).not.toMatch(/NaN|undefined|Infinity/);
      checkCell(body, snapshot, 0, 0);
    }
  });
});

describe('the NumPy script’s copy line', () => {
  test('stays while another snapshot leaves the script as it was, and goes when the numbers change', async () => {
    const written: string[] = [];
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: (text: string) => (written.push(text), Promise.resolve()) },
    });
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    const status = body.querySelector('.numpy-repro-status')!;
    body.querySelector<HTMLButtonElement>('.numpy-repro-bar button')!.click();
    await expect.poll(() => status.textContent).toMatch(/^Copied: \d+ lines of Python/);
    expect(written).toHaveLength(1);
    view.render({ ...snapshot }); // e.g. step 1's model arriving: the same numbers here
    expect(status.textContent).toMatch(/^Copied: /);
    view.render(await snapshotFor({ weights: 'random', seed: 7 }));
    expect(status.textContent).toBe('');
  });
});
