// @vitest-environment happy-dom
// The query/key/value step on real snapshots: X, the three projections and their products as
// tables, the shown head's columns marked, and a cell of Q worked out from a row of X and a column
// of W_q (with K and V from the same row and column).
import { describe, expect, test } from 'vitest';
import { qkvStep } from '../../../web/src/steps/02-qkv/step';
import { fmt } from '../../../web/src/ui/format';
import { exampleSnapshotFor, snapshotFor } from '../fixtures';
import { mountStep } from '../mount-step';

const mount = () => mountStep(qkvStep);

const parse = (text: string) => Number(text.replace('\u2212', '-'));
const tables = (body: HTMLElement) => [...body.querySelectorAll('table.matrix')] as HTMLTableElement[];
/** X, W_q, Q, W_k, K, W_v, V in page order. */
const byName = (body: HTMLElement) => {
  const [X, Wq, Q, Wk, K, Wv, V] = tables(body);
  return { X, Wq, Q, Wk, K, Wv, V };
};
const cellTexts = (table: HTMLTableElement) => [...table.querySelectorAll('td')].map((td) => td.textContent);

describe('query, key, value step', () => {
  test('one head as the article shows it: W_q (d_model, dₖ), Q/K/V (n, dₖ), head 1’s columns', async () => {
    const snapshot = await snapshotFor();
    const { pipeline: p } = snapshot;
    const { body, view } = mount();
    view.render(snapshot);
    const t = byName(body);
    expect(tables(body)).toHaveLength(7);
    const head = (m: { rows: number; cols: number; data: Float32Array }, c0: number) =>
      Array.from({ length: m.rows * 4 }, (_, i) => fmt(m.data[Math.floor(i / 4) * m.cols + c0 + (i % 4)]));
    expect(cellTexts(t.X)).toEqual(Array.from(p.X.data, (v) => fmt(v)));
    expect(cellTexts(t.Wq)).toEqual(head(p.W_q, 0));
    expect(cellTexts(t.Wk)).toEqual(head(p.W_k, 0));
    expect(cellTexts(t.Wv)).toEqual(head(p.W_v, 0));
    expect(cellTexts(t.Q)).toEqual(head(p.Q, 0));
    expect(cellTexts(t.K)).toEqual(head(p.K, 0));
    expect(cellTexts(t.V)).toEqual(head(p.V, 0));
    expect(t.X.querySelector('caption')!.textContent).toBe('X: token embeddings, (n, d_model) = (9, 8)');
    expect(t.Wq.querySelector('caption')!.textContent).toBe('W_q (8, 4) makes queries');
    expect(t.Q.querySelector('caption')!.textContent).toBe('Q = X W_q, queries (9, 4)');
    expect(body.querySelector('.qkv-sizes')!.textContent).toContain('one head with dₖ = 4 (head 1 of the 2 that step 8 explains)');
    // Nothing greys out another head's columns: the other head is not on this step at all.
    expect(body.querySelectorAll('.qkv-other, .qkv-slice')).toHaveLength(0);
  });

  test('the second head: its own columns, numbered within the head', async () => {
    const snapshot = await snapshotFor({ head: 1 });
    const { pipeline: p } = snapshot;
    const { body, view } = mount();
    view.render(snapshot);
    const { Wq, Q } = byName(body);
    expect([...Wq.querySelectorAll('thead th')].slice(1).map((th) => th.textContent)).toEqual(['1', '2', '3', '4']);
    expect(Wq.querySelector('td[data-row="2"][data-col="1"]')!.textContent).toBe(fmt(p.W_q.data[2 * 8 + 5]));
    expect(Q.querySelector('td[data-row="3"][data-col="0"]')!.textContent).toBe(fmt(p.Q.data[3 * 8 + 4]));
    (Q.querySelector('td[data-row="3"][data-col="0"]') as HTMLElement).click();
    const terms = [...body.querySelector('.by-hand')!.querySelectorAll('.term')] as HTMLElement[];
    terms.forEach((term, t) => expect(Number(term.dataset.b)).toBeCloseTo(p.W_q.data[t * 8 + 4], 6));
    expect(body.querySelector('.by-hand-title')!.textContent).toContain('Cell (4, 1) of Q');
  });

  test('the article’s example: W_q is its (8, 4), Q its (4, 4)', async () => {
    const snapshot = await exampleSnapshotFor();
    const { body, view } = mount();
    view.render(snapshot);
    const { Wq, Q } = byName(body);
    expect(Wq.querySelector('caption')!.textContent).toBe('W_q (8, 4) makes queries');
    expect(Q.querySelector('caption')!.textContent).toBe('Q = X W_q, queries (4, 4)');
    expect(cellTexts(Q).slice(0, 2)).toEqual(['1.00', '0.50']);
    expect(body.querySelector('.qkv-sizes')!.textContent).toContain('Here d_model = 8 and dₖ = 4');
  });

  test('a cell of Q is a row of X times a column of W_q, term by term, adding up to the cell', async () => {
    const snapshot = await snapshotFor();
    const { pipeline: p } = snapshot;
    const { body, view } = mount();
    view.render(snapshot);
    const { Q, X, Wq } = byName(body);
    (Q.querySelector('td[data-row="6"][data-col="2"]') as HTMLElement).click();
    const d = p.dModel;
    const lines = [...body.querySelectorAll('.by-hand')];
    expect(lines).toHaveLength(3);
    [p.Q, p.K, p.V].forEach((out, k) => {
      const W = [p.W_q, p.W_k, p.W_v][k];
      const terms = [...lines[k].querySelectorAll('.term')] as HTMLElement[];
      expect(terms).toHaveLength(d);
      terms.forEach((term, t) => {
        expect(Number(term.dataset.a)).toBeCloseTo(p.X.data[6 * d + t], 6);
        expect(Number(term.dataset.b)).toBeCloseTo(W.data[t * d + 2], 6);
      });
      const sum = terms.reduce((acc, term) => acc + Number(term.dataset.a) * Number(term.dataset.b), 0);
      expect(sum).toBeCloseTo(out.data[6 * d + 2], 4);
      expect(parse(lines[k].querySelector('.by-hand-result')!.textContent!)).toBeCloseTo(out.data[6 * d + 2], 2);
    });
    expect(body.querySelector('.by-hand-title')!.textContent).toBe('Cell (7, 3) of Q: row 7 of X (“it”) times column 3 of W_q');
    // The inputs light up: row 7 of X and column 3 of W_q.
    expect([...X.querySelectorAll('td.hl')].map((td) => (td as HTMLElement).dataset.row)).toEqual(Array(d).fill('6'));
    expect([...Wq.querySelectorAll('td.hl')].map((td) => (td as HTMLElement).dataset.col)).toEqual(Array(d).fill('2'));
  });

  test('d_model 512: the tables show a window of the shown head’s 64 columns; the sum still uses all 512 terms', async () => {
    const snapshot = await snapshotFor({ dModel: 512, heads: 8, head: 1 });
    const { pipeline: p } = snapshot;
    const { body, view } = mount();
    view.render(snapshot);
    const { X, Wq, Q } = byName(body);
    expect([...Q.querySelectorAll('thead th')].slice(1).map((th) => th.textContent)).toEqual(
      Array.from({ length: 64 }, (_, i) => String(1 + i)),
    );
    expect(Q.querySelector('caption')!.textContent).toBe('Q = X W_q, queries (9, 64)');
    expect(Wq.querySelector('caption')!.textContent).toBe('W_q (512, 64) makes queries; showing rows 1–16');
    expect(Wq.querySelectorAll('tbody tr')).toHaveLength(16);
    expect(X.querySelectorAll('td')).toHaveLength(p.n * 16);
    // Window cell (row 2, col 3) is Q[2, 64 + 3].
    expect(Q.querySelector('td[data-row="2"][data-col="3"]')!.textContent).toBe(fmt(p.Q.data[2 * 512 + 67]));
    expect(Wq.querySelector('td[data-row="5"][data-col="1"]')!.textContent).toBe(fmt(p.W_q.data[5 * 512 + 65]));
    (Q.querySelector('td[data-row="2"][data-col="3"]') as HTMLElement).click();
    const terms = [...body.querySelector('.by-hand')!.querySelectorAll('.term')] as HTMLElement[];
    expect(terms).toHaveLength(512);
    const sum = terms.reduce((acc, term) => acc + Number(term.dataset.a) * Number(term.dataset.b), 0);
    expect(sum).toBeCloseTo(p.Q.data[2 * 512 + 67], 3);
    expect(body.querySelector('.by-hand-title')!.textContent).toContain('Cell (3, 4) of Q');
    expect(body.querySelector('.qkv-sums')!.classList.contains('long')).toBe(true);
  });

  test('more than 64 tokens: colour only, no numbers', async () => {
    const snapshot = await snapshotFor({ sentence: Array.from({ length: 70 }, (_, i) => `t${i}`).join(' ') });
    const { body, view } = mount();
    view.render(snapshot);
    const { X, Wq, Q } = byName(body);
    expect(X.classList.contains('no-numbers')).toBe(true);
    expect(Q.classList.contains('no-numbers')).toBe(true);
    expect(Wq.classList.contains('no-numbers')).toBe(false);
    expect(Q.querySelector('td')!.getAttribute('aria-label')).toBe(fmt(snapshot.pipeline.Q.data[0]));
  });
});
