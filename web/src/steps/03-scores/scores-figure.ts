// Step 3's second figure: the shown head's score table Q Kᵀ, one cell per (query, key) pair; selecting
// a cell tells the step, which works it out by hand.
import { fmt, quoted } from '../../ui/format';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { headSquare, headView } from '../shared/head-view';
import { OneTableFigure } from '../shared/matrix-figure';

export class ScoresFigure extends OneTableFigure {
  constructor(embed: EmbedCode | undefined, onSelect: (row: number, col: number) => void) {
    super(
      { embed, caption: 'scores', scale: 'diverging', corner: 'query ↓ key →', onSelect },
      ({ tokens }, r, c, v) => `${quoted(tokens[r])} against ${quoted(tokens[c])}: ${fmt(v)}`,
    );
  }

  protected draw(snapshot: Snapshot): void {
    const { n, headNote } = headView(snapshot);
    this.table.update(
      headSquare(snapshot, 'scores'),
      `scores = Q Kᵀ${headNote}, (n, n) = (${n}, ${n}); row = query token, column = key token`,
    );
  }
}
