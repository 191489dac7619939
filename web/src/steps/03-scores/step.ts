// Step 1 of the article: every query against every key. scores = Q K^T, one number per pair.
import { byHandSum } from '../../ui/arithmetic';
import { el, setText, showChildren } from '../../ui/dom';
import { fmt, quoted, sub } from '../../ui/format';
import { tex } from '../../ui/formula';
import { dimensionLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import type { Snapshot } from '../../snapshot';
import type { StepDefinition } from '../types';
import { headView } from '../shared/head-view';
import { workedExampleNote } from '../shared/worked-example';

/** (rows, cols) slice of head `head` of a Tensor3, transposed to (cols, rows). */
function transposeHead(data: Float32Array, head: number, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  const base = head * rows * cols;
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[base + r * cols + c];
  return out;
}

export const scoresStep: StepDefinition = {
  id: 'scores',
  number: 3,
  title: 'Scores: every query against every key',
  summary: 'Q Kᵀ compares each token’s query with every token’s key: one dot product per pair.',
  formula: tex`\text{scores} = Q K^{\top}, \qquad \text{scores}_{ij} = q_i \cdot k_j = \sum_{t=1}^{d_k} q_{it}\, k_{jt}`,
  mount(body, context) {
    const worked = workedExampleNote(context);
    let snapshot: Snapshot | null = null;
    const selection = { row: 0, col: 0 };

    const byHand = el('div', { class: 'by-hand-box', 'aria-live': 'polite' });
    const reading = el('p', { class: 'reading' });
    const queries = new MatrixTable({
      embed: context.embedCode,
      caption: 'Q',
      scale: 'diverging',
      corner: 'token',
      describe: (r, c, v) => (snapshot ? `query of ${quoted(snapshot.tokens[r])}, dimension ${c + 1}: ${fmt(v)}` : ''),
    });
    const keysT = new MatrixTable({
      embed: context.embedCode,
      caption: 'Kᵀ',
      scale: 'diverging',
      corner: 'dim',
      describe: (r, c, v) => (snapshot ? `key of ${quoted(snapshot.tokens[c])}, dimension ${r + 1}: ${fmt(v)}` : ''),
    });
    const scores: MatrixTable = new MatrixTable({
      embed: context.embedCode,
      caption: 'scores',
      scale: 'diverging',
      corner: 'query ↓ key →',
      describe: (r, c, v) => (snapshot ? `${quoted(snapshot.tokens[r])} against ${quoted(snapshot.tokens[c])}: ${fmt(v)}` : ''),
      onSelect: (row, col) => {
        selection.row = row;
        selection.col = col;
        showArithmetic();
      },
    });

    body.append(
      worked.element,
      el(
        'p',
        {},
        'How well does token ',
        el('em', {}, 'i'),
        '’s query match token ',
        el('em', {}, 'j'),
        '’s key? Take their dot product: multiply component by component and add up. Every pair gives one score, a square table.',
      ),
      el('p', {}, 'Row ', el('em', {}, 'i'), ' is how strongly token ', el('em', {}, 'i'), ' is drawn to each token, itself included.'),
      el(
        'div',
        { class: 'figure-row' },
        el('figure', { class: 'figure' }, queries.element),
        el('figure', { class: 'figure' }, keysT.element),
      ),
      el('figure', { class: 'figure' }, scores.element),
      byHand,
      reading,
      el('p', { class: 'aside' }, 'One row and one column per token: n × n numbers. The quadratic cost of step 9 starts here.'),
    );

    function showArithmetic(): void {
      if (!snapshot) return;
      const { pipeline: p, tokens, settings } = snapshot;
      const { row, col } = selection;
      const h = settings.head;
      const dK = p.dK;
      const q = p.Q_heads.data.subarray((h * p.n + row) * dK, (h * p.n + row + 1) * dK);
      const k = p.K_heads.data.subarray((h * p.n + col) * dK, (h * p.n + col + 1) * dK);
      const value = p.scores.data[(h * p.n + row) * p.n + col];
      const terms = Array.from(q, (a, t) => ({ a, b: k[t] }));
      showChildren(
        byHand,
        el(
          'p',
          { class: 'by-hand-title' },
          `Cell (${row + 1}, ${col + 1}): how much ${quoted(tokens[row])} attends to ${quoted(tokens[col])}`,
        ),
        byHandSum(`q${sub(row + 1)} · k${sub(col + 1)}`, terms, value),
      );
      queries.highlight([row], []);
      keysT.highlight([], [col]);
      // Which key does this query match best?
      let best = 0;
      for (let j = 1; j < p.n; j++) if (p.scores.data[(h * p.n + row) * p.n + j] > p.scores.data[(h * p.n + row) * p.n + best]) best = j;
      setText(
        reading,
        `Row ${row + 1} (${quoted(tokens[row])}) scores highest against ${quoted(tokens[best])} ` +
          `(${fmt(p.scores.data[(h * p.n + row) * p.n + best])}). Scores can be negative and need not add up to anything yet.`,
      );
    }

    return {
      render(next) {
        worked.update(next);
        snapshot = next;
        const p = next.pipeline;
        const { h, labels, headNote, numbers, dimNumbers } = headView(next);
        queries.update(
          {
            data: p.Q_heads.data,
            offset: h * p.n * p.dK,
            rows: p.n,
            cols: p.dK,
            rowLabels: labels,
            colLabels: dimensionLabels(p.dK),
            showNumbers: dimNumbers,
            baseline: next.baseline?.Q_heads.data,
          },
          `Q${headNote}: queries, (n, dₖ) = (${p.n}, ${p.dK})`,
        );
        keysT.update(
          {
            data: transposeHead(p.K_heads.data, h, p.n, p.dK),
            rows: p.dK,
            cols: p.n,
            rowLabels: dimensionLabels(p.dK),
            colLabels: labels,
            showNumbers: dimNumbers,
            baseline: next.baseline ? transposeHead(next.baseline.K_heads.data, h, p.n, p.dK) : null,
          },
          `Kᵀ${headNote}: keys turned on their side, (dₖ, n) = (${p.dK}, ${p.n})`,
        );
        scores.update(
          {
            data: p.scores.data,
            offset: h * p.n * p.n,
            rows: p.n,
            cols: p.n,
            rowLabels: labels,
            colLabels: labels,
            showNumbers: numbers,
            baseline: next.baseline?.scores.data,
          },
          `scores = Q Kᵀ${headNote}, (n, n) = (${p.n}, ${p.n}); row = query token, column = key token`,
        );
        selection.row = Math.min(selection.row, p.n - 1);
        selection.col = Math.min(selection.col, p.n - 1);
        if (!scores.selection) scores.select(selection.row, selection.col);
        else showArithmetic();
      },
    };
  },
};
