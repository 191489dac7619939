// Step 3 of the article: softmax turns each row of scaled scores into attention weights. The
// attention map of the shown head with each row's sum, a sentence reading the chosen row, and the
// chosen cell's softmax worked out by hand (subtract the row's max, exponentiate, divide by the sum).
import { el, setText, showChildren } from '../../ui/dom';
import { fmt, formatPercentDelta, percent, quoted } from '../../ui/format';
import { tex } from '../../ui/formula';
import { focusTokenIndex, tokenLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import { scrollRegion } from '../../ui/scroll-region';
import { LIMITS } from '../../settings';
import type { Snapshot } from '../../snapshot';
import type { StepDefinition } from '../types';
import { headView } from '../shared/head-view';
import { workedExampleNote } from '../shared/worked-example';

/** How many tokens the row sentence names before summing up the rest. */
const NAMED = 4;

/** Row `row` of head `head` of an (h, n, n) tensor. */
function headRow(data: Float32Array, n: number, head: number, row: number): Float32Array {
  return data.subarray((head * n + row) * n, (head * n + row + 1) * n);
}

function joinParts(parts: string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** "“it” draws 31% from itself, 26% from “animal”, … and 9% from the other 5 tokens together." */
export function rowSentence(snapshot: Snapshot, row: number): string {
  const { pipeline: p, tokens, settings } = snapshot;
  const labels = tokenLabels(tokens);
  const who = quoted(labels[row]);
  if (p.fullyMaskedRows[row])
    return `Row ${row + 1}: every key is masked for ${who}, so it has nothing to draw from. Its weights are all 0%.`;
  const weights = headRow(p.weights.data, p.n, settings.head, row);
  const allowed = Array.from(weights, (_, j) => j).filter((j) => p.mask.data[row * p.n + j] === 1);
  const order = [...allowed].sort((a, b) => weights[b] - weights[a] || a - b);
  const from = (j: number) => (j === row ? 'itself' : quoted(labels[j]));
  const parts = order.slice(0, order.length <= NAMED + 1 ? order.length : NAMED).map((j) => `${percent(weights[j])} from ${from(j)}`);
  const rest = order.slice(parts.length);
  if (rest.length > 0) {
    let share = 0;
    for (const j of rest) share += weights[j];
    parts.push(`${percent(share)} from the other ${rest.length} tokens together`);
  }
  const masked = p.n - allowed.length;
  const maskNote = masked > 0 ? ` The ${masked} masked token${masked === 1 ? ' gets' : 's get'} exactly 0%.` : '';
  return `Row ${row + 1}: ${who} draws ${joinParts(parts)}.${maskNote}`;
}

export const softmaxStep: StepDefinition = {
  id: 'softmax',
  number: 5,
  title: 'Softmax: scores become attention weights',
  summary: 'Softmax turns each row of scaled scores into positive weights that add up to 100%: how much each token draws from every token.',
  formula: tex`w_{ij} = \operatorname{softmax}(s_i)_j = \frac{e^{\,s_{ij} - m_i}}{\sum_{l} e^{\,s_{il} - m_i}}, \qquad m_i = \max_k s_{ik}`,
  mount(body, context) {
    const worked = workedExampleNote(context);
    let snapshot: Snapshot | null = null;
    let sentenceKey = '';

    const map: MatrixTable = new MatrixTable({
      embed: context.embedCode,
      caption: 'attention weights',
      scale: 'sequential',
      corner: 'query ↓ key →',
      className: 'softmax-map',
      format: (v) => percent(v),
      describe: (r, c, v) => (snapshot ? `${quoted(snapshot.tokens[r])} attends to ${quoted(snapshot.tokens[c])}: ${percent(v)}` : ''),
      formatDelta: formatPercentDelta,
      legend: 'a larger share',
      onSelect: () => showRow(),
    });
    const legend = el('p', { class: 'softmax-legend' });
    const reading = el('p', { class: 'softmax-reading', 'aria-live': 'polite' });
    const emptyRows = el('p', { class: 'aside softmax-empty-note', hidden: true });
    const byHand = el('div', { class: 'by-hand-box softmax-by-hand', 'aria-live': 'polite' });

    body.append(
      worked.element,
      el(
        'p',
        {},
        'Softmax raises e to every score of a row and divides by the row’s total: positive weights that add up to 100%. One point more of score earns 2.7 times the weight.',
      ),
      el(
        'p',
        {},
        'Subtracting the row’s largest score first changes nothing (e',
        el('sup', {}, '−max'),
        ' cancels above and below the line) but keeps e',
        el('sup', {}, 'x'),
        ' from overflowing.',
      ),
      el('figure', { class: 'figure' }, map.element, legend),
      reading,
      emptyRows,
      byHand,
      el(
        'p',
        { class: 'aside' },
        'This is what attention maps draw: where each token’s information came from, not what was computed with it.',
      ),
    );

    function showRow(): void {
      if (!snapshot || !map.selection) return;
      const { pipeline: p, tokens, settings } = snapshot;
      const [row, col] = map.selection;
      const h = settings.head;
      setText(reading, rowSentence(snapshot, row));
      if (p.fullyMaskedRows[row]) {
        showChildren(
          byHand,
          el('p', { class: 'by-hand-title' }, `Row ${row + 1} (${quoted(tokens[row])}): every key is masked`),
          el(
            'p',
            {},
            'All its scores are −∞, so every exponential is 0 and the sum is 0 as well. Rather than divide 0 by 0, the engine gives the row all-zero weights: it draws nothing, and its sum is 0%.',
          ),
        );
        return;
      }
      const scores = headRow(p.scoresScaled.data, p.n, h, row);
      const weights = headRow(p.weights.data, p.n, h, row);
      const allowed = (j: number) => p.mask.data[row * p.n + j] === 1;
      let max = -Infinity;
      for (let j = 0; j < p.n; j++) if (allowed(j)) max = Math.max(max, scores[j]);
      const exps = Array.from(scores, (s, j) => (allowed(j) ? Math.exp(s - max) : 0));
      const total = exps.reduce((a, b) => a + b, 0);
      const labels = tokenLabels(tokens);
      const rows = Array.from(scores, (s, j) =>
        el(
          'tr',
          { class: j === col ? 'chosen' : null, 'data-col': j },
          el('th', { scope: 'row' }, labels[j]),
          el('td', {}, allowed(j) ? fmt(s) : '−∞'),
          el('td', {}, allowed(j) ? fmt(s - max) : '−∞'),
          el('td', { class: 'softmax-exp', 'data-value': exps[j] }, fmt(exps[j], 3)),
          el('td', { 'data-value': weights[j] }, percent(weights[j], 1)),
        ),
      );
      const long = p.n > 12;
      const scoreName = settings.scale ? 'the scaled scores s (score / √dₖ)' : 'the scores s (unscaled: scaling is off)';
      showChildren(
        byHand,
        el(
          'p',
          { class: 'by-hand-title' },
          `Cell (${row + 1}, ${col + 1}): how much ${quoted(labels[row])} draws from ${quoted(labels[col])}`,
        ),
        el('p', {}, `Row ${row + 1} of ${scoreName}, minus its largest (${fmt(max)}), exponentiated and divided by the total:`),
        scrollRegion(
          {
            label: `Softmax of row ${row + 1}, step by step`,
            className: long ? 'matrix-scroll softmax-steps long' : 'matrix-scroll softmax-steps',
          },
          el(
            'table',
            { class: 'data-table' },
            el('caption', {}, `Softmax of row ${row + 1} (${quoted(labels[row])}), step by step`),
            el(
              'thead',
              {},
              el(
                'tr',
                {},
                el('th', { scope: 'col' }, 'key'),
                el('th', { scope: 'col' }, 's'),
                el('th', { scope: 'col' }, `s − ${fmt(max)}`),
                el('th', { scope: 'col' }, 'e^(s − max)'),
                el('th', { scope: 'col' }, 'weight'),
              ),
            ),
            el('tbody', {}, ...rows),
            el(
              'tfoot',
              {},
              el(
                'tr',
                {},
                el('th', { scope: 'row' }, 'sum'),
                el('td', {}),
                el('td', {}),
                el('td', { class: 'softmax-total', 'data-value': total }, fmt(total, 3)),
                el(
                  'td',
                  {},
                  percent(
                    weights.reduce((a, b) => a + b, 0),
                    1,
                  ),
                ),
              ),
            ),
          ),
        ),
        el(
          'p',
          { class: 'by-hand softmax-line' },
          el('span', { class: 'by-hand-label' }, `w[${row + 1}, ${col + 1}]`),
          ' = ',
          allowed(col)
            ? `e^(${fmt(scores[col])} − ${fmt(max)}) / ${fmt(total, 3)} = ${fmt(exps[col], 3)} / ${fmt(total, 3)} = `
            : 'e^(−∞) / … = 0 = ',
          el('strong', { class: 'by-hand-result', 'data-value': weights[col] }, percent(weights[col], 1)),
        ),
      );
    }

    return {
      render(next) {
        worked.update(next);
        snapshot = next;
        const { pipeline: p, tokens, settings } = next;
        const { h, labels, headNote } = headView(next);
        const base = h * p.n * p.n;
        let peak = 0;
        for (let i = 0; i < p.n * p.n; i++) peak = Math.max(peak, p.weights.data[base + i]);
        const sums = Array.from({ length: p.n }, (_, r) => headRow(p.weights.data, p.n, h, r).reduce((a, b) => a + b, 0));
        map.update(
          {
            data: p.weights.data,
            offset: base,
            rows: p.n,
            cols: p.n,
            rowLabels: labels,
            colLabels: labels,
            blocked: (r, c) => p.mask.data[r * p.n + c] === 0,
            blockedText: '0%',
            showNumbers: p.n <= LIMITS.maxTokensWithNumbers,
            rowTotals: {
              label: 'row sum',
              text: (r) => percent(sums[r]),
              className: (r) => (p.fullyMaskedRows[r] ? 'softmax-empty' : undefined),
            },
            baseline: next.baseline?.weights.data,
          },
          `weights = softmax(${settings.scale ? 'scores / √dₖ' : 'scores'})${headNote}, (n, n) = (${p.n}, ${p.n}); row = query token, column = key token`,
        );
        setText(
          legend,
          `A stronger blue means a larger share; the strongest cell is ${percent(peak)}.` +
            (settings.causal || p.mask.data.includes(0) ? ' Hatched cells are masked (step 7): they get exactly 0%.' : ''),
        );
        const empty = Array.from(p.fullyMaskedRows).flatMap((flag, r) => (flag ? [r] : []));
        emptyRows.hidden = empty.length === 0;
        setText(
          emptyRows,
          empty.length === 0
            ? ''
            : `${empty.length === 1 ? 'Row' : 'Rows'} ${empty.map((r) => r + 1).join(', ')} ${empty.length === 1 ? 'has' : 'have'} every key masked, so there is nothing to share out: ` +
                'the weights are all 0 and the row sums to 0%, not 100%. Softmax would divide 0 by 0 here; the engine returns zeros instead.',
        );

        const key = tokens.join('\u0001');
        if (key !== sentenceKey || !map.selection) {
          // A new sentence: start on the row the page follows (“it”), at its largest weight; on the
          // article's example, on row 1, the row the article reads (31 / 26 / 25 / 18 %).
          sentenceKey = key;
          const row = settings.weights === 'example' ? 0 : focusTokenIndex(tokens);
          const weights = headRow(p.weights.data, p.n, h, row);
          let best = 0;
          for (let j = 1; j < p.n; j++) if (weights[j] > weights[best]) best = j;
          map.select(row, best);
        } else showRow();
      },
    };
  },
};
