// Step 5's figure: the shown head's attention weights as a map, each row's sum beside it, and a
// legend naming the strongest share. Selecting a cell tells the step, which reads its row.
import { el, setText } from '../../ui/dom';
import { formatPercentDelta, percent, quoted } from '../../ui/format';
import type { MatrixTable } from '../../ui/matrix-table/matrix-table';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { headRow, headSquare, headView } from '../shared/head-view';
import { MatrixFigure } from '../shared/matrix-figure';
import { legendText } from './prose';

export class MapFigure extends MatrixFigure {
  readonly element: HTMLElement;
  readonly map: MatrixTable;
  private readonly legend = el('p', { class: 'softmax-legend' });

  constructor(embed: EmbedCode | undefined, onSelect: () => void) {
    super();
    this.map = this.matrixTable(
      {
        embed,
        caption: 'attention weights',
        scale: 'sequential',
        corner: 'query ↓ key →',
        className: 'softmax-map',
        format: (v) => percent(v),
        formatDelta: formatPercentDelta,
        legend: 'a larger share',
        onSelect,
      },
      ({ tokens }, r, c, v) => `${quoted(tokens[r])} attends to ${quoted(tokens[c])}: ${percent(v)}`,
    );
    this.element = el('figure', { class: 'figure' }, this.line.element, this.map.element, this.legend);
  }

  protected draw(snapshot: Snapshot): void {
    const { pipeline: p, settings } = snapshot;
    const { h, headNote } = headView(snapshot);
    const base = h * p.n * p.n;
    let peak = 0;
    for (let i = 0; i < p.n * p.n; i++) peak = Math.max(peak, p.weights.data[base + i]);
    const sums = Array.from({ length: p.n }, (_, r) => headRow(p.weights.data, p.n, h, r).reduce((a, b) => a + b, 0));
    this.map.update(
      {
        ...headSquare(snapshot, 'weights'),
        blocked: (r, c) => p.mask.data[r * p.n + c] === 0,
        blockedText: '0%',
        rowTotals: {
          label: 'row sum',
          text: (r) => percent(sums[r]),
          className: (r) => (p.fullyMaskedRows[r] ? 'softmax-empty' : undefined),
        },
      },
      `weights = softmax(${settings.scale ? 'scores / √dₖ' : 'scores'})${headNote}, (n, n) = (${p.n}, ${p.n}); row = query token, column = key token`,
    );
    setText(this.legend, legendText(snapshot, peak));
  }
}
