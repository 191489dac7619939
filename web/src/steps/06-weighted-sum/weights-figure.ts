// Step 6's first figure: the shown head's attention weights, blocked cells written as 0.
import { formatPercentDelta, percent, quoted } from '../../ui/format';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { headSquare, headView } from '../shared/head-view';
import { OneTableFigure } from '../shared/matrix-figure';

export class WeightsFigure extends OneTableFigure {
  constructor(embed: EmbedCode | undefined) {
    super(
      { embed, caption: 'weights', scale: 'sequential', corner: 'query ↓ key →', formatDelta: formatPercentDelta, legend: 'more weight' },
      ({ tokens }, r, c, v) => `${quoted(tokens[r])} takes ${percent(v)} of ${quoted(tokens[c])}’s value`,
    );
  }

  protected draw(snapshot: Snapshot): void {
    const p = snapshot.pipeline;
    const { h, n, headNote } = headView(snapshot);
    this.table.update(
      {
        ...headSquare(snapshot, 'weights'),
        extent: 1,
        blocked: (r, c) => p.mask.data[r * n + c] === 0 && p.weights.data[(h * n + r) * n + c] === 0,
        blockedText: '0',
      },
      `weights${headNote}, (n, n) = (${n}, ${n}); each row adds up to 1`,
    );
  }

  /** Marks the weights row that makes the selected output row. */
  highlight(row: number): void {
    this.table.highlight([row], []);
  }
}
