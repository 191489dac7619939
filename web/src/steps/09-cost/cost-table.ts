// Step 9's table: the score matrix's entries, bytes and multiply-adds at this page's n, 2n, 4n, 8n and
// the reference lengths, with the ratios of doubling n and of 2k -> 8k. Counted from the shapes.
import { columnHeads } from '../../ui/data-table';
import { el, showChildren } from '../../ui/dom';
import { scrollRegion } from '../../ui/scroll-region';
import { ratioLabel, tokenCountLabel } from '../../features/cost/cost-model';
import type { Figure } from '../shared/figure';
import type { Snapshot } from '../../snapshot';
import { columns, costLengths, costRow, type CostRow } from './cost-rows';

export class CostTable implements Figure {
  readonly element: HTMLElement;
  private readonly table = el('table', { class: 'data-table cost-table' });

  constructor() {
    this.element = scrollRegion({ label: 'Size and work of the score matrix as n grows', className: 'matrix-scroll' }, this.table);
  }

  render({ pipeline: p }: Snapshot): void {
    const n = p.n;
    const COLUMNS = columns(p.heads);
    const rows = costLengths(n).map((length) => costRow(length, p.dModel, p.heads));
    const find = (length: number) => rows.find((row) => row.n === length)!;
    const ratioRow = (label: string, from: CostRow, to: CostRow, className: string) =>
      el(
        'tr',
        { class: className },
        el('th', { scope: 'row' }, label),
        ...COLUMNS.map((column) => el('td', { class: 'num', 'data-key': column.key }, ratioLabel(to[column.key] / from[column.key]))),
      );
    showChildren(
      this.table,
      el('caption', {}, `The score matrix as n grows, for d_model = ${p.dModel} and h = ${p.heads}`),
      columnHeads(['tokens n', ...COLUMNS.map((column) => column.header)]),
      el(
        'tbody',
        {},
        ...rows.map((row) =>
          el(
            'tr',
            { class: row.n === n ? 'cost-current' : null, 'data-n': row.n },
            el('th', { scope: 'row' }, tokenCountLabel(row.n), row.n === n ? el('span', { class: 'cost-here' }, ' (this page)') : null),
            ...COLUMNS.map((column) =>
              el('td', { class: 'num', 'data-key': column.key, 'data-value': row[column.key] }, column.format(row[column.key])),
            ),
          ),
        ),
      ),
      el(
        'tfoot',
        {},
        ratioRow(`doubling n: ${tokenCountLabel(n)} → ${tokenCountLabel(2 * n)}`, find(n), find(2 * n), 'cost-ratio-double'),
        ratioRow('4× the context: 2k → 8k', find(2048), find(8192), 'cost-ratio-2k-8k'),
      ),
    );
  }
}
