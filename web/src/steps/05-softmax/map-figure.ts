// Step 5's figure: the shown head's attention weights as a map, each row's sum beside it, and a
// legend naming the strongest share. Selecting a cell tells the step, which reads its row.
import { el, setText } from '../../ui/dom';
import { formatPercentDelta, percent, quoted } from '../../ui/format';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import { LIMITS } from '../../settings';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { modelLine, type Figure } from '../shared/figure';
import { headRow, headView } from '../shared/head-view';
import { legendText } from './prose';

export class MapFigure implements Figure {
  readonly element: HTMLElement;
  readonly map: MatrixTable;
  private readonly line = modelLine();
  private readonly legend = el('p', { class: 'softmax-legend' });
  private snapshot: Snapshot | null = null;

  constructor(embed: EmbedCode | undefined, onSelect: () => void) {
    this.map = new MatrixTable({
      embed,
      caption: 'attention weights',
      scale: 'sequential',
      corner: 'query ↓ key →',
      className: 'softmax-map',
      format: (v) => percent(v),
      describe: (r, c, v) =>
        this.snapshot ? `${quoted(this.snapshot.tokens[r])} attends to ${quoted(this.snapshot.tokens[c])}: ${percent(v)}` : '',
      formatDelta: formatPercentDelta,
      legend: 'a larger share',
      onSelect,
    });
    this.element = el('figure', { class: 'figure' }, this.line.element, this.map.element, this.legend);
  }

  render(snapshot: Snapshot): void {
    this.snapshot = snapshot;
    this.line.render(snapshot);
    const { pipeline: p, settings } = snapshot;
    const { h, labels, headNote } = headView(snapshot);
    const base = h * p.n * p.n;
    let peak = 0;
    for (let i = 0; i < p.n * p.n; i++) peak = Math.max(peak, p.weights.data[base + i]);
    const sums = Array.from({ length: p.n }, (_, r) => headRow(p.weights.data, p.n, h, r).reduce((a, b) => a + b, 0));
    this.map.update(
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
        baseline: snapshot.baseline?.weights.data,
      },
      `weights = softmax(${settings.scale ? 'scores / √dₖ' : 'scores'})${headNote}, (n, n) = (${p.n}, ${p.n}); row = query token, column = key token`,
    );
    setText(this.legend, legendText(snapshot, peak));
  }
}
