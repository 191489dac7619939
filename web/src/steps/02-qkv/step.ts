// Query, key, value: three learned projections of the same embeddings. Shows X and one head's W_q,
// W_k, W_v (d_model, dₖ) and Q, K, V (n, dₖ), as the article does before it explains heads, and any
// cell of Q worked out by hand (with the same row and column of K and V next to it). In the small example every number of X and the
// three W matrices can be edited (typed, nudged, dragged); the edits live in the settings (and the
// URL), and every figure of the page marks what they changed.
// Length: each step is one file; this one is long because it holds four editable matrices, three products
// and the worked cell.
import { byHandSum } from '../../ui/arithmetic';
import { el, replaceChildren, setText, showChildren } from '../../ui/dom';
import { fmt, quoted } from '../../ui/format';
import { tex } from '../../ui/formula';
import { dimensionLabels, tokenLabels } from '../../ui/labels';
import type { MatrixEdit } from '../../ui/matrix-table/edit';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import type { Matrix, PipelineSnapshot } from '../../engine/types';
import {
  EDIT_LIMITS,
  EDIT_MATRIX_KEYS,
  editsAllowed,
  parseEdits,
  roundEdit,
  withEdit,
  type EditMatrix,
} from '../../features/hands-on/hands-on-settings';
import { LIMITS } from '../../settings';
import type { Snapshot } from '../../snapshot';
import type { StepDefinition } from '../types';
import { workedExampleNote } from '../shared/worked-example';

/** Above this many rows or columns a matrix is shown as a window of WINDOW rows or columns. */
const FULL_UP_TO = LIMITS.maxTokensWithNumbers;
const WINDOW = 16;
/** Above this many rows a W table scrolls vertically inside its box. */
const TALL = 16;
/** Above this many terms a by-hand sum scrolls inside its box. */
const LONG_SUM = 16;

/** Which rows and columns the tables show: the shown head's columns of W and Q/K/V, windowed when large. */
export interface DimWindow {
  /** First column of W and of Q/K/V shown (0-based: the head's first), and how many. */
  colStart: number;
  colCount: number;
  /** Rows of W (= columns of X) shown. */
  rowCount: number;
  /** True when the matrices are too large to show whole. */
  windowed: boolean;
}

export function dimWindow(dModel: number, dK: number, head: number): DimWindow {
  const rowCount = dModel <= FULL_UP_TO ? dModel : WINDOW;
  const colCount = dK <= FULL_UP_TO ? dK : WINDOW;
  return { colStart: head * dK, colCount, rowCount, windowed: rowCount < dModel || colCount < dK };
}

/** Rows [0, rows) and columns [c0, c0 + cols) of m, as a packed row-major array. */
function crop(m: Matrix, rows: number, c0: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) out.set(m.data.subarray(r * m.cols + c0, r * m.cols + c0 + cols), r * cols);
  return out;
}

const ROLES: { name: string; symbol: string; text: string }[] = [
  { name: 'query', symbol: 'q', text: 'what this token is looking for.' },
  { name: 'key', symbol: 'k', text: 'what it offers, for queries to match against.' },
  { name: 'value', symbol: 'v', text: 'what it hands over once picked.' },
];

export const qkvStep: StepDefinition = {
  id: 'qkv',
  number: 2,
  title: 'Query, key, value',
  summary:
    'Three learned matrices turn each token’s embedding into a query (what it looks for), a key (what it offers) and a value (what it passes on).',
  formula: tex`Q = X W_q, \qquad K = X W_k, \qquad V = X W_v`,
  mount(body, context) {
    const worked = workedExampleNote(context, true);
    let snapshot: Snapshot | null = null;
    let dims: DimWindow = { colStart: 0, colCount: 0, rowCount: 0, windowed: false };
    /** Which head and window the selection was made in: a new one moves it to the new head's columns. */
    let selectionKey = '';
    /** The edits as last sent (settings arrive with the next frame's snapshot), and as they were when an edit began. */
    let working = '';
    let before: string | null = null;

    /** One matrix's cells as editable numbers: every change goes to the settings as the `edits` text. */
    const editing = (matrix: EditMatrix): MatrixEdit => ({
      label: (r, c) =>
        matrix === 'X'
          ? `X, row ${r + 1} (${quoted(snapshot?.tokens[r] ?? '')}), dimension ${c + 1}`
          : `${EDIT_MATRIX_KEYS[matrix]}, row ${r + 1}, column ${c + 1} of this head`,
      start: () => {
        before = working;
      },
      change: (r, shownCol, value) => {
        if (!snapshot) return;
        // A W table shows the head's columns; X shows every column from the first.
        const c = matrix === 'X' ? shownCol : dims.colStart + shownCol;
        const clamped = Math.max(-EDIT_LIMITS.maxValue, Math.min(EDIT_LIMITS.maxValue, value));
        // Back to the seed's own number (at the URL's 3 decimals): no edit at all.
        const seeded = (snapshot.baseline ?? snapshot.pipeline)[EDIT_MATRIX_KEYS[matrix]];
        const same = roundEdit(clamped) === roundEdit(seeded.data[r * seeded.cols + c]);
        const next = withEdit(working, matrix, r, c, same ? null : clamped);
        if (next === working) return;
        working = next;
        context.update({ edits: next });
      },
      end: (_r, _c, keep) => {
        if (!keep && before !== null && before !== working) {
          working = before;
          context.update({ edits: before });
        }
        before = null;
      },
    });
    const describeDim = (name: string) => (r: number, c: number, v: number) =>
      snapshot ? `${name} of ${quoted(snapshot.tokens[r])}, column ${c + 1}: ${fmt(v)}` : '';

    const sizes = el('p', { class: 'qkv-sizes' });
    const xTable = new MatrixTable({
      embed: context.embedCode,
      caption: 'X',
      scale: 'diverging',
      corner: 'token',
      edit: editing('X'),
      describe: (r, c, v) => (snapshot ? `embedding of ${quoted(snapshot.tokens[r])}, dimension ${c + 1}: ${fmt(v)}` : ''),
    });
    const wTables = (['Wq', 'Wk', 'Wv'] as const).map((matrix) => {
      const name = EDIT_MATRIX_KEYS[matrix];
      return new MatrixTable({
        embed: context.embedCode,
        caption: name,
        scale: 'diverging',
        corner: 'row',
        edit: editing(matrix),
        describe: (r, c, v) => `${name}, row ${r + 1} (dimension ${r + 1} of the embedding), column ${c + 1}: ${fmt(v)}`,
      });
    });
    const wFigures = wTables.map((t) => el('figure', { class: 'figure qkv-w' }, t.element));
    const qTable: MatrixTable = new MatrixTable({
      embed: context.embedCode,
      caption: 'Q',
      scale: 'diverging',
      corner: 'token',
      describe: (r, c, v) => (snapshot ? `query of ${quoted(snapshot.tokens[r])}, column ${c + 1}: ${fmt(v)}` : ''),
      onSelect: () => showArithmetic(),
    });
    const kTable = new MatrixTable({
      embed: context.embedCode,
      caption: 'K',
      scale: 'diverging',
      corner: 'token',
      describe: describeDim('key'),
    });
    const vTable = new MatrixTable({
      embed: context.embedCode,
      caption: 'V',
      scale: 'diverging',
      corner: 'token',
      describe: describeDim('value'),
    });
    const byHand = el('div', { class: 'by-hand-box qkv-by-hand', 'aria-live': 'polite' });

    // The edit panel: how to edit, what is edited, Reset; or, when the example is too large, the way to a small one.
    const editHelp = el(
      'div',
      { class: 'qkv-edit-help' },
      el(
        'p',
        {},
        'Every number of X and the W matrices is yours: drag it sideways, or select it and press ',
        el('kbd', {}, 'Enter'),
        ' to type or ',
        el('kbd', {}, '↑'),
        ' ',
        el('kbd', {}, '↓'),
        ' to nudge (',
        el('kbd', {}, 'Escape'),
        ' undoes). What it changed gets a dashed outline everywhere.',
      ),
    );
    const editStatus = el('p', { class: 'qkv-edit-status', 'aria-live': 'polite' });
    const editList = el('ul', { class: 'qkv-edit-list' });
    const resetButton = el('button', { type: 'button', class: 'hands-button qkv-reset' }, 'Undo every edit');
    resetButton.addEventListener('click', () => {
      working = '';
      context.update({ edits: '' });
    });
    const smallButton = el('button', { type: 'button', class: 'hands-button primary qkv-small' }, 'Use the article’s four-token example');
    smallButton.addEventListener('click', () => context.update({ weights: 'example' }));
    const editPanel = el(
      'div',
      { class: 'qkv-edit', role: 'group', 'aria-label': 'Edit the numbers' },
      el('p', { class: 'qkv-edit-title' }, 'Work it by hand: edit the numbers'),
      editHelp,
      el('div', { class: 'qkv-edit-bar' }, editStatus, resetButton, smallButton),
      editList,
    );

    body.append(
      worked.element,
      el('p', {}, 'Each token’s embedding, d_model numbers, is a row of X. Attention gives every token three vectors:'),
      el(
        'dl',
        { class: 'qkv-roles' },
        ...ROLES.flatMap((role) => [el('dt', {}, `${role.name} (${role.symbol})`), el('dd', {}, role.text)]),
      ),
      el(
        'p',
        {},
        'Kept apart, they let a token match one query (its key) yet pass on something else (its value). Each is X times a learned matrix.',
      ),
      sizes,
      editPanel,
      el('figure', { class: 'figure' }, xTable.element),
      // One column per role: the matrix, and under it what it makes of X.
      el(
        'div',
        { class: 'qkv-pairs' },
        ...[qTable, kTable, vTable].map((product, i) =>
          el('div', { class: 'qkv-pair' }, wFigures[i], el('figure', { class: 'figure' }, product.element)),
        ),
      ),
      byHand,
    );

    function showArithmetic(): void {
      if (!snapshot || !qTable.selection) return;
      const { pipeline: p, tokens } = snapshot;
      const [row, shownCol] = qTable.selection;
      const col = dims.colStart + shownCol;
      const d = p.dModel;
      const x = p.X.data.subarray(row * d, (row + 1) * d);
      // Named by the column within the head, as the tables label it; read at the column of the whole matrix.
      const line = (W: Matrix, out: Matrix, name: string) =>
        byHandSum(
          `${name}[${row + 1}, ${shownCol + 1}]`,
          Array.from(x, (a, t) => ({ a, b: W.data[t * W.cols + col] })),
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
        el(
          'p',
          { class: 'by-hand-title' },
          `Cell (${row + 1}, ${shownCol + 1}) of Q: row ${row + 1} of X (${quoted(tokens[row])}) times column ${shownCol + 1} of W_q`,
        ),
        sums,
        el('p', { class: 'qkv-note' }, `${d} products, one per embedding dimension.`),
      );
      xTable.highlight([row], []);
      wTables[0].highlight([], [shownCol]);
      wTables[1].highlight([], []);
      wTables[2].highlight([], []);
    }

    /** The edit panel for this snapshot: editable or not, what is edited, how to undo it. */
    function showEdits(next: Snapshot): void {
      const { pipeline: p, settings, tokens } = next;
      if (before === null) working = settings.edits;
      const allowed = editsAllowed(p.n, p.dModel);
      for (const table of [xTable, ...wTables]) table.setEditable(allowed);
      editHelp.hidden = !allowed;
      smallButton.hidden = allowed;
      const edits = parseEdits(settings.edits).edits;
      resetButton.disabled = edits.length === 0;
      resetButton.hidden = !allowed && edits.length === 0;
      if (!allowed) {
        setText(
          editStatus,
          `Editing works on small examples, where you can follow every number: up to ${EDIT_LIMITS.maxTokens} tokens and d_model up to ${EDIT_LIMITS.maxDModel}. ` +
            `This one has ${p.n} token${p.n === 1 ? '' : 's'} and d_model ${p.dModel}. Shorten the sentence or pick a smaller d_model in the settings bar, or:`,
        );
        editList.replaceChildren();
        return;
      }
      if (edits.length === 0) {
        setText(
          editStatus,
          settings.weights === 'random' ? 'No edits yet: every number is the seed’s.' : 'No edits yet: every number is as it was given.',
        );
        editList.replaceChildren();
        return;
      }
      const seeded = next.baseline ?? p;
      const moved = countMoved(p, seeded, settings.head);
      setText(
        editStatus,
        `You changed ${edits.length} number${edits.length === 1 ? '' : 's'}. ` +
          `Of this head’s ${p.n * p.n} attention weights, ${moved.weights} moved; of the ${p.n * p.dModel} numbers of the layer’s output, ${moved.output} did.`,
      );
      const shown = edits.slice(0, 8);
      replaceChildren(
        editList,
        ...shown.map((e) => {
          const M = seeded[EDIT_MATRIX_KEYS[e.matrix]];
          const where =
            e.matrix === 'X'
              ? `X[${e.row + 1}, ${e.col + 1}] (${quoted(tokens[e.row])})`
              : `${EDIT_MATRIX_KEYS[e.matrix]}[${e.row + 1}, ${e.col + 1}]`;
          return el('li', {}, `${where}: ${fmt(M.data[e.row * M.cols + e.col], 3)} → ${fmt(e.value, 3)}`);
        }),
        edits.length > shown.length ? el('li', {}, `and ${edits.length - shown.length} more`) : null,
      );
    }

    /** How many of the shown head's weights and of the output moved since the edits. */
    function countMoved(p: PipelineSnapshot, seeded: PipelineSnapshot, h: number): { weights: number; output: number } {
      let weights = 0;
      let output = 0;
      for (let i = 0; i < p.n * p.n; i++)
        if (Math.abs(p.weights.data[h * p.n * p.n + i] - seeded.weights.data[h * p.n * p.n + i]) >= 5e-4) weights++;
      for (let i = 0; i < p.output.data.length; i++) if (Math.abs(p.output.data[i] - seeded.output.data[i]) >= 5e-4) output++;
      return { weights, output };
    }

    return {
      render(next) {
        worked.update(next);
        snapshot = next;
        const { pipeline: p, tokens, settings } = next;
        const h = settings.head;
        const d = p.dModel;
        dims = dimWindow(d, p.dK, h);
        const { colStart, colCount, rowCount, windowed } = dims;
        const labels = tokenLabels(tokens);
        const tokenNumbers = p.n <= LIMITS.maxTokensWithNumbers;
        const colLabels = dimensionLabels(colCount);
        const rowLabels = dimensionLabels(rowCount);
        const partial = (what: string) => (windowed ? `; showing ${what}` : '');

        // One head, as the article shows it before it explains heads (step 8): W_q is (d_model, dₖ).
        const sizeText =
          p.heads > 1
            ? `Here d_model = ${d}, and these tables show one head with dₖ = ${p.dK} (head ${h + 1} of the ${p.heads} that step 8 explains): ` +
              `its W_q, W_k and W_v are (${d}, ${p.dK}), so its Q, K and V are (n, dₖ) = (${p.n}, ${p.dK}).`
            : `Here d_model = ${d} and dₖ = ${p.dK}: W_q, W_k and W_v are (${d}, ${p.dK}), so Q, K and V are (n, dₖ) = (${p.n}, ${p.dK}).`;
        setText(
          sizes,
          sizeText +
            (windowed
              ? ` At this size the matrices are too large to print, so the tables show the first ${rowCount} rows and ${colCount} columns.`
              : ''),
        );

        const base = next.baseline;
        const baseOf = (M: Matrix | undefined, rows: number, c0: number, cols: number) => (M ? crop(M, rows, c0, cols) : null);
        showEdits(next);
        xTable.update(
          {
            data: crop(p.X, p.n, 0, rowCount),
            rows: p.n,
            cols: rowCount,
            rowLabels: labels,
            colLabels: rowLabels,
            showNumbers: tokenNumbers,
            baseline: baseOf(base?.X, p.n, 0, rowCount),
          },
          `X: token embeddings, (n, d_model) = (${p.n}, ${d})${partial(`columns 1–${rowCount}`)}`,
        );
        (
          [
            ['W_q', p.W_q, 'queries'],
            ['W_k', p.W_k, 'keys'],
            ['W_v', p.W_v, 'values'],
          ] as const
        ).forEach(([name, W, role], i) => {
          wTables[i].update(
            {
              data: crop(W, rowCount, colStart, colCount),
              rows: rowCount,
              cols: colCount,
              rowLabels,
              colLabels,
              baseline: baseOf(base?.[(['W_q', 'W_k', 'W_v'] as const)[i]], rowCount, colStart, colCount),
            },
            `${name} (${d}, ${p.dK}) makes ${role}${partial(colCount < p.dK ? `rows 1–${rowCount}, columns 1–${colCount}` : `rows 1–${rowCount}`)}`,
          );
          // Tall matrices scroll inside a box of their own instead of stretching the page.
          wFigures[i].classList.toggle('tall', rowCount > TALL);
        });
        (
          [
            [qTable, 'Q = X W_q, queries', p.Q, base?.Q],
            [kTable, 'K = X W_k, keys', p.K, base?.K],
            [vTable, 'V = X W_v, values', p.V, base?.V],
          ] as const
        ).forEach(([table, title, M, B]) => {
          table.update(
            {
              data: crop(M, p.n, colStart, colCount),
              rows: p.n,
              cols: colCount,
              rowLabels: labels,
              colLabels,
              showNumbers: tokenNumbers,
              baseline: baseOf(B, p.n, colStart, colCount),
            },
            `${title} (${p.n}, ${p.dK})${colCount < p.dK ? `; showing columns 1–${colCount}` : ''}`,
          );
        });

        // Keep the chosen cell while the head and window stay; otherwise start in the shown head's first column.
        const key = `${h}|${d}|${p.heads}`;
        const selected = qTable.selection;
        if (selected && key === selectionKey) showArithmetic();
        else qTable.select(selected ? Math.min(selected[0], p.n - 1) : 0, 0);
        selectionKey = key;
      },
    };
  },
};
