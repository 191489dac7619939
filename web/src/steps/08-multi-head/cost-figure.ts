// Step 8's work count: one layer's multiply-adds and parameters for every h that divides d_model,
// from the shapes (the page's own h from the snapshot's tensors), and what the count shows.
import { columnHeads } from '../../ui/data-table';
import { el, setText, showChildren } from '../../ui/dom';
import { count } from '../../ui/format';
import { scrollRegion } from '../../ui/scroll-region';
import { costOfShape, costOfSnapshot, type LayerCost } from '../../features/cost/cost-model';
import { headChoices } from '../../settings';
import type { Snapshot } from '../../snapshot';
import type { Figure } from '../shared/figure';
import { costReadingText } from './prose';

const COST_PARTS: { key: keyof LayerCost; label: string; formula: string }[] = [
  { key: 'projections', label: 'Q, K, V projections', formula: '3 · n · d_model²' },
  { key: 'scores', label: 'Scores Qᵢ Kᵢᵀ, all heads', formula: 'h · n² · dₖ = n² · d_model' },
  { key: 'weightedSum', label: 'Weighted sums, all heads', formula: 'h · n² · dₖ = n² · d_model' },
  { key: 'output', label: 'Output projection × W_o', formula: 'n · d_model²' },
];

export class CostFigure implements Figure {
  readonly element: HTMLElement;
  /** The sentence under the table. */
  readonly reading = el('p', { class: 'reading multi-head-cost-reading' });
  private readonly table = el('table', { class: 'data-table multi-head-cost' });

  constructor() {
    this.element = scrollRegion({ label: 'Multiply-adds and parameters for each number of heads', className: 'matrix-scroll' }, this.table);
  }

  render(s: Snapshot): void {
    const p = s.pipeline;
    const actual = costOfSnapshot(p);
    const options = headChoices(p.dModel);
    const columns = options.map((h) => ({ h, cost: h === p.heads ? actual : costOfShape(p.n, p.dModel, h) }));
    const heads = columnHeads([
      'part of the layer',
      ...columns.map(({ h }) => ({ content: `h = ${h}`, className: h === p.heads ? 'multi-head-current' : null })),
    ]);
    const row = (label: string, formula: string, value: (c: LayerCost) => number, className?: string) =>
      el(
        'tr',
        { class: className ?? null },
        el('th', { scope: 'row' }, label, el('span', { class: 'multi-head-formula' }, formula)),
        ...columns.map(({ h, cost }) =>
          el('td', { class: `num${h === p.heads ? ' multi-head-current' : ''}`, 'data-heads': h }, count(value(cost))),
        ),
      );
    showChildren(
      this.table,
      el('caption', {}, `One layer’s work and weights, n = ${p.n}, d_model = ${p.dModel}`),
      heads,
      el('tbody', {}, ...COST_PARTS.map((part) => row(part.label, part.formula, (c) => c[part.key]))),
      el(
        'tfoot',
        {},
        row('Total multiply-adds', '3nd² + 2n²d + nd²', (c) => c.total, 'multi-head-total'),
        row('Parameters', 'W_q, W_k, W_v, W_o: 4 · d_model²', (c) => c.params, 'multi-head-params'),
      ),
    );
    const same = columns.every(({ cost }) => cost.total === actual.total && cost.params === actual.params);
    setText(this.reading, costReadingText(s, actual, options, same));
  }
}
