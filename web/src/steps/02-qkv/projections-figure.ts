// Step 2's second figure: one column per role, the shown head's W_q, W_k, W_v (editable on small
// examples) and under each what it makes of X: Q, K, V. Selecting a cell of Q tells the step, which
// works it out by hand.
import { el } from '../../ui/dom';
import { fmt, quoted } from '../../ui/format';
import { dimensionLabels, tokenLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import { EDIT_MATRIX_KEYS } from '../../features/hands-on/hands-on-settings';
import { LIMITS } from '../../settings';
import { allPieces } from '../shared/pieces';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { MatrixFigure } from '../shared/matrix-figure';
import { crop, cropBaseline, dimWindow } from './dim-window';
import type { EditSession } from './edits';

/** Above this many rows a W table scrolls vertically inside its box. */
const TALL = 16;

const ROLES = [
  { weights: 'W_q', edit: 'Wq', product: 'Q', title: 'Q = X W_q, queries', makes: 'queries', one: 'query' },
  { weights: 'W_k', edit: 'Wk', product: 'K', title: 'K = X W_k, keys', makes: 'keys', one: 'key' },
  { weights: 'W_v', edit: 'Wv', product: 'V', title: 'V = X W_v, values', makes: 'values', one: 'value' },
] as const;

export class ProjectionsFigure extends MatrixFigure {
  readonly element: HTMLElement;
  readonly wTables: MatrixTable[];
  readonly products: MatrixTable[];
  private readonly wFigures: HTMLElement[];

  constructor(embed: EmbedCode | undefined, session: EditSession, onSelectQuery: () => void) {
    super();
    this.wTables = ROLES.map(({ edit }) => {
      const name = EDIT_MATRIX_KEYS[edit];
      return new MatrixTable({
        embed,
        caption: name,
        scale: 'diverging',
        corner: 'row',
        edit: session.editing(edit),
        describe: (r, c, v) => `${name}, row ${r + 1} (dimension ${r + 1} of the embedding), column ${c + 1}: ${fmt(v)}`,
      });
    });
    this.wFigures = this.wTables.map((t) => el('figure', { class: 'figure qkv-w' }, t.element));
    // Q, K and V are read the same way; only Q is selectable.
    this.products = ROLES.map(({ product, one }) =>
      this.matrixTable(
        { embed, caption: product, scale: 'diverging', corner: 'token', onSelect: product === 'Q' ? onSelectQuery : undefined },
        ({ tokens }, r, c, v) => `${one} of ${quoted(tokens[r])}, column ${c + 1}: ${fmt(v)}`,
      ),
    );
    this.element = el(
      'div',
      { class: 'qkv-pairs' },
      this.line.element,
      ...this.products.map((product, i) =>
        el('div', { class: 'qkv-pair' }, this.wFigures[i], el('figure', { class: 'figure' }, product.element)),
      ),
    );
  }

  protected draw(snapshot: Snapshot): void {
    allPieces(this.drawInPieces(snapshot));
  }

  /** A piece per role: W_q and Q, then W_k and K, then W_v and V. */
  protected override *drawInPieces(snapshot: Snapshot): Generator<void, void> {
    const { pipeline: p, tokens } = snapshot;
    const { colStart, colCount, rowCount, windowed } = dimWindow(p.dModel, p.dK, snapshot.settings.head);
    const base = snapshot.baseline;
    const labels = tokenLabels(tokens);
    const colLabels = dimensionLabels(colCount);
    const rowLabels = dimensionLabels(rowCount);
    for (const [i, role] of ROLES.entries()) {
      if (i > 0) yield;
      this.wTables[i].update(
        {
          data: crop(p[role.weights], rowCount, colStart, colCount),
          rows: rowCount,
          cols: colCount,
          rowLabels,
          colLabels,
          baseline: cropBaseline(base?.[role.weights], rowCount, colStart, colCount),
        },
        `${role.weights} (${p.dModel}, ${p.dK}) makes ${role.makes}` +
          (windowed ? `; showing ${colCount < p.dK ? `rows 1–${rowCount}, columns 1–${colCount}` : `rows 1–${rowCount}`}` : ''),
      );
      // Tall matrices scroll inside a box of their own instead of stretching the page.
      this.wFigures[i].classList.toggle('tall', rowCount > TALL);
      this.products[i].update(
        {
          data: crop(p[role.product], p.n, colStart, colCount),
          rows: p.n,
          cols: colCount,
          rowLabels: labels,
          colLabels,
          showNumbers: p.n <= LIMITS.maxTokensWithNumbers,
          baseline: cropBaseline(base?.[role.product], p.n, colStart, colCount),
        },
        `${role.title} (${p.n}, ${p.dK})${colCount < p.dK ? `; showing columns 1–${colCount}` : ''}`,
      );
    }
  }

  /** Marks the column of W_q that makes the selected cell of Q. */
  highlight(shownCol: number): void {
    this.wTables[0].highlight([], [shownCol]);
    this.wTables[1].highlight([], []);
    this.wTables[2].highlight([], []);
  }
}
