// @vitest-environment happy-dom
// The scores step on a fixed snapshot: the heatmap shows Q K^T for the chosen head, and the by-hand
// line's terms are exactly q_i and k_j and add up to the cell.
import { describe, expect, test } from 'vitest';
import { scoresStep } from '../../../web/src/steps/03-scores/step';
import { fmt } from '../../../web/src/ui/format';
import { ARTICLE_TOKEN_LABELS, snapshotFor } from '../fixtures';
import { mountStep } from '../mount-step';

const mount = () => mountStep(scoresStep);

const parse = (text: string) => Number(text.replace('\u2212', '-'));

describe('scores step', () => {
  test('the heatmap shows Q K^T of the shown head, one cell per token pair', async () => {
    const snapshot = await snapshotFor({ heads: 2, head: 1 });
    const { body, view } = mount();
    view.render(snapshot);
    const table = body.querySelectorAll('table')[2];
    const cells = table.querySelectorAll('td');
    const n = snapshot.pipeline.n;
    expect(cells.length).toBe(n * n);
    const head = 1;
    for (let i = 0; i < n * n; i++) expect(cells[i].textContent).toBe(fmt(snapshot.pipeline.scores.data[head * n * n + i]));
    expect(table.querySelector('caption')!.textContent).toContain('head 2 of 2');
    // Row headers are the tokens, with positions where a word repeats.
    expect([...table.querySelectorAll('tbody th')].map((th) => th.textContent)).toEqual(ARTICLE_TOKEN_LABELS);
  });

  test('clicking a cell writes its dot product term by term, and the terms add up to the cell', async () => {
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    const scoresTable = body.querySelectorAll('table')[2];
    (scoresTable.querySelector('td[data-row="6"][data-col="1"]') as HTMLElement).click();
    const line = body.querySelector('.by-hand')!;
    const terms = [...line.querySelectorAll('.term')].map(
      (t) => Number((t as HTMLElement).dataset.a) * Number((t as HTMLElement).dataset.b),
    );
    const { pipeline: p } = snapshot;
    expect(terms.length).toBe(p.dK);
    const shown = parse(line.querySelector('.by-hand-result')!.textContent!);
    expect(shown).toBeCloseTo(p.scores.data[6 * p.n + 1], 2);
    expect(terms.reduce((a, b) => a + b, 0)).toBeCloseTo(p.scores.data[6 * p.n + 1], 4);
    expect(body.querySelector('.by-hand-title')!.textContent).toContain('“it” attends to “animal”');
  });

  test('arrow keys move the selection through the grid', async () => {
    const snapshot = await snapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    const scoresTable = body.querySelectorAll('table')[2];
    const start = scoresTable.querySelector('td[data-row="0"][data-col="0"]') as HTMLElement;
    start.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
    document.activeElement!.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    const selected = scoresTable.querySelector('td.selected') as HTMLElement;
    expect([selected.dataset.row, selected.dataset.col]).toEqual(['1', '1']);
    expect(document.activeElement).toBe(selected);
    expect(body.querySelector('.by-hand-title')!.textContent).toContain('Cell (2, 2)');
  });
});
