// Step 2's first figure: X, one row of embedding per token (editable on small examples).
import { fmt, quoted } from '../../ui/format';
import { dimensionLabels, tokenLabels } from '../../ui/labels';
import { LIMITS } from '../../settings';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { OneTableFigure } from '../shared/matrix-figure';
import { crop, cropBaseline, dimWindow } from './dim-window';
import type { EditSession } from './edits';

export class XFigure extends OneTableFigure {
  constructor(embed: EmbedCode | undefined, session: EditSession) {
    super(
      { embed, caption: 'X', scale: 'diverging', corner: 'token', edit: session.editing('X') },
      ({ tokens }, r, c, v) => `embedding of ${quoted(tokens[r])}, dimension ${c + 1}: ${fmt(v)}`,
    );
  }

  protected draw(snapshot: Snapshot): void {
    const { pipeline: p, tokens } = snapshot;
    const { rowCount, windowed } = dimWindow(p.dModel, p.dK, snapshot.settings.head);
    this.table.update(
      {
        data: crop(p.X, p.n, 0, rowCount),
        rows: p.n,
        cols: rowCount,
        rowLabels: tokenLabels(tokens),
        colLabels: dimensionLabels(rowCount),
        showNumbers: p.n <= LIMITS.maxTokensWithNumbers,
        baseline: cropBaseline(snapshot.baseline?.X, p.n, 0, rowCount),
      },
      `X: token embeddings, (n, d_model) = (${p.n}, ${p.dModel})${windowed ? `; showing columns 1–${rowCount}` : ''}`,
    );
  }
}
