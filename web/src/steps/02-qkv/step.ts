// Query, key, value: three learned projections of the same embeddings. Shows X and one head's W_q,
// W_k, W_v (d_model, dₖ) and Q, K, V (n, dₖ), as the article does before it explains heads, and any
// cell of Q worked out by hand (with the same row and column of K and V next to it). In the small
// example every number of X and the three W matrices can be edited (typed, nudged, dragged); the edits
// live in the settings (and the URL), and every figure of the page marks what they changed.
// Its words are in prose.ts, its figures in x-figure.ts and projections-figure.ts, the edits in
// edits.ts and edit-panel.ts; this file places them and works the selected cell out by hand.
import { byHandSum } from '../../ui/arithmetic';
import { el, setText, showChildren } from '../../ui/dom';
import type { Matrix } from '../../engine/types';
import type { Snapshot } from '../../snapshot';
import type { StepDefinition } from '../types';
import { qkvStepInfo } from './step-info';
import { workedExampleNote } from '../shared/worked-example';
import { drawnInPieces } from '../shared/pieces';
import { dimWindow, type DimWindow } from './dim-window';
import { EditPanel } from './edit-panel';
import { EditSession } from './edits';
import { ProjectionsFigure } from './projections-figure';
import { cellTitle, intro, sizesText } from './prose';
import { XFigure } from './x-figure';

/** Above this many terms a by-hand sum scrolls inside its box. */
const LONG_SUM = 16;

export const qkvStep: StepDefinition = {
  ...qkvStepInfo,
  mount(body, context) {
    const worked = workedExampleNote(context, true);
    let snapshot: Snapshot | null = null;
    let dims: DimWindow = { colStart: 0, colCount: 0, rowCount: 0, windowed: false };
    /** Which head and window the selection was made in: a new one moves it to the new head's columns. */
    let selectionKey = '';

    const session = new EditSession(context);
    const sizes = el('p', { class: 'qkv-sizes' });
    const editPanel = new EditPanel(session, context);
    const x = new XFigure(context.embedCode, session);
    const projections = new ProjectionsFigure(context.embedCode, session, () => showArithmetic());
    const qTable = projections.products[0];
    const byHand = el('div', { class: 'by-hand-box qkv-by-hand', 'aria-live': 'polite' });

    body.append(worked.element, ...intro(), sizes, editPanel.element, x.element, projections.element, byHand);

    function showArithmetic(): void {
      if (!snapshot || !qTable.selection) return;
      const { pipeline: p } = snapshot;
      const [row, shownCol] = qTable.selection;
      const col = dims.colStart + shownCol;
      const d = p.dModel;
      const xRow = p.X.data.subarray(row * d, (row + 1) * d);
      // Named by the column within the head, as the tables label it; read at the column of the whole matrix.
      const line = (W: Matrix, out: Matrix, name: string) =>
        byHandSum(
          `${name}[${row + 1}, ${shownCol + 1}]`,
          Array.from(xRow, (a, t) => ({ a, b: W.data[t * W.cols + col] })),
          out.data[row * out.cols + col],
        );
      const long = d > LONG_SUM;
      const sums = el(
        'div',
        {
          class: long ? 'qkv-sums long' : 'qkv-sums',
          tabindex: long ? 0 : null,
          role: long ? 'region' : null,
          'aria-label': long ? 'The three sums, term by term' : null,
        },
        line(p.W_q, p.Q, 'Q'),
        el('p', { class: 'qkv-then' }, `The same row with column ${shownCol + 1} of W_k and W_v:`),
        line(p.W_k, p.K, 'K'),
        line(p.W_v, p.V, 'V'),
      );
      showChildren(
        byHand,
        el('p', { class: 'by-hand-title' }, cellTitle(snapshot, row, shownCol)),
        sums,
        el('p', { class: 'qkv-note' }, `${d} products, one per embedding dimension.`),
      );
      x.table.highlight([row], []);
      projections.highlight(shownCol);
    }

    // In pieces (steps/shared/pieces.ts): the step's tables were one task of 90–136 ms on a phone's CPU,
    // and the six tables of the projections one layout of 50–100 ms (step-renderer.ts): a piece per role.
    return drawnInPieces(function* (next) {
      worked.update(next);
      snapshot = next;
      const { pipeline: p, settings } = next;
      const h = settings.head;
      dims = dimWindow(p.dModel, p.dK, h);
      setText(sizes, sizesText(next, dims));

      session.show(next, dims.colStart);
      const editable = EditPanel.allows(next);
      for (const table of [x.table, ...projections.wTables]) table.setEditable(editable);
      editPanel.render(next);
      x.render(next);
      yield;
      yield* projections.renderInPieces(next);
      yield;

      // Keep the chosen cell while the head and window stay; otherwise start in the shown head's first column.
      const key = `${h}|${p.dModel}|${p.heads}`;
      const selected = qTable.selection;
      if (selected && key === selectionKey) showArithmetic();
      else qTable.select(selected ? Math.min(selected[0], p.n - 1) : 0, 0);
      selectionKey = key;
    });
  },
};
