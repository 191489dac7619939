// @vitest-environment happy-dom
// The softmax step on real snapshots: the attention map of the shown head as percentages with
// each row's sum, the sentence that reads the chosen row, and the chosen cell's softmax by hand
// (row max subtracted, exponentials that add up to the shown total, the engine's weight).
import { describe, expect, test } from 'vitest';
import { softmaxStep } from '../../../web/src/steps/05-softmax/step';
import { rowSentence } from '../../../web/src/steps/05-softmax/prose';
import { fmt, percent } from '../../../web/src/ui/format';
import { COLOUR_STEPS } from '../../../web/src/ui/palette';
import type { Snapshot } from '../../../web/src/snapshot';
import { ARTICLE_TOKEN_LABELS, exampleSnapshotFor, snapshotFor } from '../fixtures';
import { mountStep } from '../mount-step';

const mount = () => mountStep(softmaxStep);

function weightsRow(snapshot: Snapshot, row: number): number[] {
  const { n, weights } = snapshot.pipeline;
  const h = snapshot.settings.head;
  return Array.from(weights.data.subarray((h * n + row) * n, (h * n + row + 1) * n));
}

const map = (body: HTMLElement) => body.querySelector('table.matrix') as HTMLTableElement;

describe('softmax step', () => {
  test('the attention map shows the shown head’s weights as percentages, each row summing to 100%', async () => {
    const snapshot = await snapshotFor({ head: 1 });
    const { pipeline: p } = snapshot;
    const { body, view } = mount();
    view.render(snapshot);
    const table = map(body);
    expect(table.classList.contains('sequential')).toBe(true);
    expect([...table.querySelectorAll('td[data-col]')].map((td) => td.textContent)).toEqual(
      Array.from(p.weights.data.subarray(p.n * p.n, 2 * p.n * p.n), (w) => percent(w)),
    );
    expect(table.querySelector('thead th:last-child')!.textContent).toBe('row sum');
    expect([...table.querySelectorAll('td.row-total')].map((td) => td.textContent)).toEqual(Array(p.n).fill('100%'));
    expect(table.querySelector('caption')!.textContent).toContain('head 2 of 2');
    // Stronger cells for larger shares: data-t is the weight relative to the largest in the head, in
    // steps of 1/COLOUR_STEPS.
    const cells = [...table.querySelectorAll('td[data-col]')] as HTMLElement[];
    const steps = cells.map((td) => Number(td.dataset.t));
    expect(Math.max(...steps)).toBe(COLOUR_STEPS);
    const weights = Array.from(p.weights.data.subarray(p.n * p.n, 2 * p.n * p.n));
    const peak = Math.max(...weights);
    expect(steps).toEqual(weights.map((w) => Math.round((w / peak) * COLOUR_STEPS)));
    // Each cell describes itself in words.
    const it = snapshot.tokens.indexOf('it');
    const animal = snapshot.tokens.indexOf('animal');
    expect(cells[it * p.n + animal].title).toBe(`“it” attends to “animal”: ${percent(weightsRow(snapshot, it)[animal])}`);
  });

  test('it starts on the row of “it”, at its largest weight, and reads the row in words', async () => {
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    const row = weightsRow(snapshot, 6);
    const best = row.indexOf(Math.max(...row));
    const selected = map(body).querySelector('td.selected') as HTMLElement;
    expect([selected.dataset.row, selected.dataset.col]).toEqual(['6', String(best)]);
    expect(body.querySelector('.softmax-reading')!.textContent).toBe(rowSentence(snapshot, 6));
  });

  test('the sentence for row 1 uses the real percentages, largest first', async () => {
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    (map(body).querySelector('td[data-row="0"][data-col="0"]') as HTMLElement).click();
    const sentence = body.querySelector('.softmax-reading')!.textContent!;
    const row = weightsRow(snapshot, 0);
    const order = row.map((_, j) => j).sort((a, b) => row[b] - row[a] || a - b);
    const named = order.slice(0, 4).map((j) => `${percent(row[j])} from ${j === 0 ? 'itself' : `“${ARTICLE_TOKEN_LABELS[j]}”`}`);
    const rest = order.slice(4).reduce((sum, j) => sum + row[j], 0);
    expect(sentence).toBe(`Row 1: “The (1)” draws ${named.join(', ')} and ${percent(rest)} from the other 5 tokens together.`);
  });

  test('the by-hand softmax subtracts the row max, and its exponentials add up to the shown total', async () => {
    const snapshot = await snapshotFor();
    const { pipeline: p } = snapshot;
    const { body, view } = mount();
    view.render(snapshot);
    (map(body).querySelector('td[data-row="6"][data-col="1"]') as HTMLElement).click();
    const scores = Array.from(p.scoresScaled.data.subarray(6 * p.n, 7 * p.n));
    const max = Math.max(...scores);
    const box = body.querySelector('.softmax-by-hand')!;
    expect(box.querySelector('.by-hand-title')!.textContent).toBe('Cell (7, 2): how much “it” draws from “animal”');
    const rows = [...box.querySelectorAll('tbody tr')];
    expect(rows).toHaveLength(p.n);
    rows.forEach((row, j) => {
      expect(row.children[1].textContent).toBe(fmt(scores[j]));
      expect(row.children[2].textContent).toBe(fmt(scores[j] - max));
    });
    // The row's largest score becomes 0, and e^0 = 1.
    const argmax = scores.indexOf(max);
    expect(rows[argmax].children[2].textContent).toBe('0.00');
    expect(rows[argmax].children[3].textContent).toBe('1.000');
    const exps = rows.map((row) => Number((row.querySelector('.softmax-exp') as HTMLElement).dataset.value));
    const total = Number((box.querySelector('.softmax-total') as HTMLElement).dataset.value);
    expect(exps.reduce((a, b) => a + b, 0)).toBeCloseTo(total, 10);
    // Each exponential over the total is the engine's weight.
    const weights = weightsRow(snapshot, 6);
    exps.forEach((e, j) => expect(e / total).toBeCloseTo(weights[j], 5));
    const result = box.querySelector('.softmax-line .by-hand-result') as HTMLElement;
    expect(result.textContent).toBe(percent(weights[1], 1));
    expect(box.querySelector('.softmax-line')!.textContent).toBe(
      `w[7, 2] = e^(${fmt(scores[1])} − ${fmt(max)}) / ${fmt(total, 3)} = ${fmt(exps[1], 3)} / ${fmt(total, 3)} = ${percent(weights[1], 1)}`,
    );
    expect(rows[1].classList.contains('chosen')).toBe(true);
  });

  test('causal mask: masked cells show 0% and are hatched, rows still sum to 100%', async () => {
    const snapshot = await snapshotFor({ causal: true });
    const { pipeline: p } = snapshot;
    const { body, view } = mount();
    view.render(snapshot);
    const table = map(body);
    const blocked = [...table.querySelectorAll('td.blocked')] as HTMLElement[];
    expect(blocked).toHaveLength((p.n * (p.n - 1)) / 2);
    expect(blocked.every((td) => td.textContent === '0%' && Number(td.dataset.col) > Number(td.dataset.row))).toBe(true);
    expect([...table.querySelectorAll('td.row-total')].map((td) => td.textContent)).toEqual(Array(p.n).fill('100%'));
    expect(body.querySelector('.softmax-reading')!.textContent).toContain('The 2 masked tokens get exactly 0%.');
    (table.querySelector('td[data-row="0"][data-col="0"]') as HTMLElement).click();
    expect(body.querySelector('.softmax-reading')!.textContent).toBe(
      'Row 1: “The (1)” draws 100% from itself. The 8 masked tokens get exactly 0%.',
    );
    // Masked keys are −∞ in the by-hand table and contribute e^−∞ = 0.
    const second = body.querySelectorAll('.softmax-by-hand tbody tr')[1];
    expect([...second.children].map((c) => c.textContent)).toEqual(['animal', '−∞', '−∞', '0.000', '0.0%']);
  });

  test('a fully masked row sums to 0% and is explained (a snapshot with an all-blocked row)', async () => {
    // The settings bar cannot block a whole row (causal masks keep the diagonal), so this takes a
    // real snapshot and blocks row 1 the way the engine reports it: zero weights, flagged.
    const snapshot = await snapshotFor({ heads: 1 });
    const p = snapshot.pipeline;
    for (let j = 0; j < p.n; j++) {
      p.mask.data[j] = 0;
      p.weights.data[j] = 0;
    }
    p.fullyMaskedRows[0] = 1;
    const { body, view } = mount();
    view.render(snapshot);
    const totals = [...map(body).querySelectorAll('td.row-total')];
    expect(totals[0].textContent).toBe('0%');
    expect(totals[0].classList.contains('softmax-empty')).toBe(true);
    expect(totals.slice(1).every((td) => td.textContent === '100%')).toBe(true);
    const note = body.querySelector('.softmax-empty-note') as HTMLElement;
    expect(note.hidden).toBe(false);
    expect(note.textContent).toContain('Row 1 has every key masked');
    (map(body).querySelector('td[data-row="0"][data-col="2"]') as HTMLElement).click();
    expect(body.querySelector('.softmax-reading')!.textContent).toContain('every key is masked for “The (1)”');
    expect(body.querySelector('.softmax-by-hand')!.textContent).toContain('its sum is 0%');
    expect(body.textContent).not.toMatch(/NaN|undefined|Infinity/);
  });

  test('on the article’s example it opens on row 1 and reads it as the article does: 31 / 26 / 25 / 18 %', async () => {
    const { body, view } = mount();
    view.render(await exampleSnapshotFor());
    expect(body.querySelector('.softmax-reading')!.textContent).toBe(
      'Row 1: “the” draws 31% from itself, 26% from “animal”, 25% from “was” and 18% from “tired”.',
    );
  });
});
