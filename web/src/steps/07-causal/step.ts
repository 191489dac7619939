// Causal masking: a token may look at itself and earlier tokens only. Blocked scores become -inf
// before the softmax (weights exactly 0, rows still sum to 1). The mask editor is the step's one
// control for the page's mask: presets (none, causal, padding, sliding window, prefix-LM, painted),
// with the mask in force drawn as the table to paint on. Below it, always with the causal mask, the
// right way next to the wrong way (softmax first, zero afterwards), whose row sums fall short of 100%.
// Length: each step is one file; this one is long because it holds the mask editor with its presets as
// well as the causal comparison.
import { codeBlock, outputBlock } from '../../ui/code-block';
import { CAUSAL_MASK_LINE } from '../../features/hands-on/numpy-script';
import { controlForm, el, setText } from '../../ui/dom';
import { fmt, formatPercentDelta, percent, quoted } from '../../ui/format';
import { tex } from '../../ui/formula';
import { tokenLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import { Prediction } from '../../ui/predict';
import { describeMask, encodePaint, isCustomMask, MASK_PRESETS, parseMask, type MaskKind } from '../../features/hands-on/hands-on-settings';
import { LIMITS } from '../../settings';
import type { Snapshot } from '../../snapshot';
import type { StepContext, StepDefinition } from '../types';
import { headView } from '../shared/head-view';
import { workedExampleNote } from '../shared/worked-example';

/** Largest n whose weights are printed the way NumPy would. */
export const PRINT_MAX_TOKENS = 12;

/** (rows, cols) row sums of one head of a row-major (h, n, n) tensor. */
export function rowSums(data: Float32Array, head: number, n: number): number[] {
  return Array.from({ length: n }, (_, r) => {
    let sum = 0;
    for (let c = 0; c < n; c++) sum += data[(head * n + r) * n + c];
    return sum;
  });
}

/** NumPy's print of a rounded float array: "[[1.   0.  ]\n [0.51 0.49]]". */
export function numpyPrint(data: ArrayLike<number>, offset: number, rows: number, cols: number): string {
  const texts: string[] = [];
  for (let i = 0; i < rows * cols; i++) {
    const rounded = Number(Number(data[offset + i]).toFixed(2));
    let text = String(Object.is(rounded, -0) ? 0 : rounded);
    if (!text.includes('.')) text += '.';
    texts.push(text);
  }
  const intWidth = Math.max(...texts.map((t) => t.indexOf('.')));
  const fracWidth = Math.max(...texts.map((t) => t.length - t.indexOf('.') - 1));
  const cell = (t: string) => t.padStart(intWidth + (t.length - t.indexOf('.')), ' ').padEnd(intWidth + 1 + fracWidth, ' ');
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) {
    const row = texts
      .slice(r * cols, (r + 1) * cols)
      .map(cell)
      .join(' ');
    lines.push(`${r === 0 ? '[[' : ' ['}${row}]${r === rows - 1 ? ']' : ''}`);
  }
  return lines.join('\n');
}

export const causalStep: StepDefinition = {
  id: 'causal',
  number: 7,
  title: 'Causal masking: no peeking at the future',
  summary: 'Scores for later tokens become −∞ before the softmax, so each token attends only to itself and what came before.',
  formula: tex`\text{mask}_{ij} = \begin{cases} 1 & j \le i \\ 0 & j > i \end{cases}, \qquad \text{masked}_{ij} = \begin{cases} \text{scores}_{ij} & \text{mask}_{ij} = 1 \\ -\infty & \text{mask}_{ij} = 0 \end{cases}, \qquad \text{weights} = \operatorname{softmax}(\text{masked})`,
  mount(body, context) {
    const worked = workedExampleNote(context);
    let snapshot: Snapshot | null = null;

    // The one control for the mask: the editor's presets (painting is its "painted" option).
    const editor = maskEditor(context);
    const right = new MatrixTable({
      embed: context.embedCode,
      caption: 'weights, masked before softmax',
      scale: 'sequential',
      corner: 'query ↓ key →',
      describe: (r, c, v) => (snapshot ? `${quoted(snapshot.tokens[r])} takes ${percent(v)} from ${quoted(snapshot.tokens[c])}` : ''),
      formatDelta: formatPercentDelta,
      legend: 'more weight',
    });
    const wrong = new MatrixTable({
      embed: context.embedCode,
      caption: 'weights, zeroed after softmax',
      scale: 'sequential',
      corner: 'query ↓ key →',
      className: 'causal-wrong-table',
      describe: (r, c, v) => (snapshot ? `${quoted(snapshot.tokens[r])} keeps ${percent(v)} from ${quoted(snapshot.tokens[c])}` : ''),
      formatDelta: formatPercentDelta,
      legend: 'more weight',
    });
    const reading = el('p', { class: 'reading causal-reading' });
    const printed = outputBlock('What print(w.round(2)) shows for this page');
    const printedLabel = el('p', { class: 'causal-print-label' });

    const wrongFigure = el(
      'figure',
      { class: 'figure causal-wrong' },
      el(
        'p',
        { class: 'causal-verdict causal-verdict-wrong' },
        el('span', { 'aria-hidden': 'true' }, '✗ '),
        'Wrong: softmax, then zero the future',
      ),
      wrong.element,
    );
    const compare = el(
      'div',
      { class: 'figure-row causal-pair causal-compare' },
      el(
        'figure',
        { class: 'figure causal-right' },
        el('p', { class: 'causal-verdict causal-verdict-right' }, el('span', { 'aria-hidden': 'true' }, '✓ '), 'Right: mask, then softmax'),
        right.element,
      ),
      wrongFigure,
    );
    // Predict first: does a row still add up to 1 when the future is zeroed after the softmax? Only the
    // wrong way and the reading are the answer: the right way (the article's printed rows) stays readable.
    const predict = context.predictions ? new Prediction([wrongFigure, reading]) : null;

    body.append(
      worked.element,
      el(
        'p',
        {},
        'A language model learns by guessing the next word, so position 3 must not see positions 4 and 5. Where the mask says 0, the score becomes −∞ before the softmax: e',
        el('sup', {}, '−∞'),
        ' = 0, and each row still adds up to 1.',
      ),
      ...editor.elements,
      el('h3', {}, 'Mask first, then softmax'),
      el('p', {}, 'Both tables use the causal mask, whatever is chosen above.'),
      ...(predict ? [predict.element] : []),
      compare,
      reading,
      el('h3', {}, 'In code'),
      el('p', {}, 'In NumPy the causal mask is one comparison:'),
      codeBlock(`n = len(tokens)\n${CAUSAL_MASK_LINE}`, { label: 'The causal mask in NumPy' }),
      printedLabel,
      printed.element,
    );

    return {
      render(next) {
        worked.update(next);
        snapshot = next;
        const { pipeline: p, tokens } = next;
        const { n, labels, headNote, numbers } = headView(next);
        const base = next.baseline;

        // The comparison tables hold the shown head only: (n, n), no head offset. Each is the weights
        // with blocked cells shown as 0 and its row sums, one short of 100% where the mask came too late.
        const comparison = (table: MatrixTable, data: Float32Array, baseline: Float32Array | undefined, caption: string) => {
          const sums = rowSums(data, 0, n);
          table.update(
            {
              data,
              rows: n,
              cols: n,
              rowLabels: labels,
              colLabels: labels,
              extent: 1,
              showNumbers: numbers,
              blocked: (r, c) => c > r && data[r * n + c] === 0,
              blockedText: '0',
              rowTotals: {
                label: 'row sum',
                text: (r) => percent(sums[r]),
                className: (r) => (sums[r] < 0.995 ? 'row-total-short' : undefined),
              },
              baseline,
            },
            caption,
          );
          return sums;
        };
        const sumsRight = comparison(right, p.weightsCausal.data, base?.weightsCausal.data, `softmax(masked scores)${headNote}`);
        const sumsWrong = comparison(
          wrong,
          p.weightsMaskedAfter.data,
          base?.weightsMaskedAfter.data,
          `softmax(scores), then zeroed${headNote}`,
        );

        if (n === 1) {
          setText(
            reading,
            'With a single token there is no future to hide, so both ways give the same weight of 1. Add words to see them part.',
          );
        } else {
          let worst = 0;
          for (let r = 0; r < n - 1; r++) if (sumsWrong[r] < sumsWrong[worst]) worst = r;
          // Row 2 is the article's example; with two tokens row 2 is the last (whole) row, so use row 1.
          const second = Math.min(1, n - 2);
          const rowText = (r: number) => `row ${r + 1} (${quoted(tokens[r])})`;
          const pair =
            worst === second
              ? `${rowText(second)} would sum to only ${percent(sumsWrong[second])}`
              : `${rowText(second)} would sum to ${percent(sumsWrong[second])} and ${rowText(worst)} to just ${percent(sumsWrong[worst])}`;
          setText(
            reading,
            `Zeroed after the softmax, ${pair}; only the last row still reaches ${percent(sumsWrong[n - 1])}, ` +
              `and each output shrinks by its own factor (${fmt(sumsWrong[second])} for row ${second + 1}). ` +
              `Masked first, every row sums to ${percent(sumsRight[second])}.`,
          );
        }

        if (predict) {
          // Row 2 as in the article; with two tokens row 2 is the last (whole) row, so ask about row 1.
          const row = Math.min(1, n - 2);
          predict.update(
            n < 2
              ? null
              : {
                  key: 'causal-zero-after',
                  question: `Skip the mask and zero the future weights after the softmax instead: will row ${row + 1} (${quoted(tokens[row])}) still add up to 1?`,
                  choices: [
                    { id: 'yes', label: 'Yes, still 1' },
                    { id: 'no', label: 'No, less than 1' },
                  ],
                  correct: sumsWrong[row] >= 0.995 ? 'yes' : 'no',
                  explanation:
                    `Softmax already shared row ${row + 1}’s budget of 1 among all ${n} tokens, future ones included. Zeroing the future afterwards throws their share away and hands it to no one, ` +
                    `so the row keeps only ${percent(sumsWrong[row])}. Masking first gives the future −∞ before the sharing, so the whole 100% goes to the tokens that are allowed.`,
                },
          );
        }
        editor.render(next);

        setText(
          printedLabel,
          n <= PRINT_MAX_TOKENS
            ? `print(w.round(2)) for these ${n} token${n === 1 ? '' : 's'}${headNote.replace(', ', ' (') + (headNote ? ')' : '')}:`
            : `With ${n} tokens the printed array is ${n} × ${n}, too wide to show; the left-hand table above holds the same numbers.`,
        );
        printed.set(n <= PRINT_MAX_TOKENS ? numpyPrint(p.weightsCausal.data, 0, n, n) : '');
        printed.element.hidden = n > PRINT_MAX_TOKENS;
      },
    };
  },
};

let editorId = 0;

/**
 * The mask editor, the step's one control for the mask: presets, of which "painted" is free painting
 * on the mask table (painting any cell switches to it). The mask is a page setting (the URL's `mask`,
 * or its `causal` flag for the causal preset), applied before the softmax in every step.
 */
function maskEditor(context: Pick<StepContext, 'update' | 'embedCode'>): {
  elements: HTMLElement[];
  render(snapshot: Snapshot): void;
} {
  const id = `mask-editor-${++editorId}`;
  let snapshot: Snapshot | null = null;
  /** The mask as last painted (the settings arrive with the next frame). */
  let working: Uint8Array | null = null;
  const params: Record<string, number> = { pad: 2, window: 3, prefix: 2 };

  const radios = new Map<string, HTMLInputElement>();
  const presetLabels = [
    ...MASK_PRESETS.map((p) => ({ kind: p.kind as string, label: p.label })),
    { kind: 'paint', label: 'Painted by hand' },
  ];
  const paramInput = el('input', { type: 'number', min: 1, step: 1, id: `${id}-param`, class: 'mask-param-input', inputmode: 'numeric' });
  const paramLabel = el('label', { for: `${id}-param` });
  const paramBox = el('span', { class: 'mask-param', hidden: true }, paramLabel, paramInput);
  const presets = el(
    'fieldset',
    { class: 'mask-presets' },
    el('legend', {}, 'The mask for every step of this page'),
    ...presetLabels.map(({ kind, label }) => {
      const radio = el('input', { type: 'radio', name: `${id}-kind`, value: kind, class: 'mask-kind' });
      radios.set(kind, radio);
      radio.addEventListener('change', () => choose(kind));
      return el('label', { class: 'mask-preset' }, radio, label);
    }),
    paramBox,
  );
  const state = el('p', { class: 'mask-state', 'aria-live': 'polite' });
  const emptyNote = el('p', { class: 'mask-empty-note', hidden: true, 'aria-live': 'polite' });

  const painter: MatrixTable = new MatrixTable({
    embed: context.embedCode,
    caption: 'mask',
    scale: 'sequential',
    corner: 'query ↓ key →',
    className: 'mask-painter',
    format: (v) => (v === 1 ? '1' : '0'),
    legend: 'a 1: may look',
    describe: (r, c, v) =>
      snapshot ? `${quoted(snapshot.tokens[r])} ${v === 1 ? 'may' : 'may not'} look at ${quoted(snapshot.tokens[c])}` : '',
    paint: {
      paint(cells, on) {
        if (!snapshot) return;
        const n = snapshot.pipeline.n;
        working ??= snapshot.pipeline.mask.data.slice();
        for (const [r, c] of cells) working[r * n + c] = on ? 1 : 0;
        context.update({ mask: encodePaint(working) });
      },
    },
  });
  const weights = new MatrixTable({
    embed: context.embedCode,
    caption: 'weights with this mask',
    scale: 'sequential',
    corner: 'query ↓ key →',
    className: 'mask-weights',
    describe: (r, c, v) => (snapshot ? `${quoted(snapshot.tokens[r])} takes ${percent(v)} from ${quoted(snapshot.tokens[c])}` : ''),
    formatDelta: formatPercentDelta,
    legend: 'more weight',
  });

  function defaultParam(kind: string, n: number): number {
    return Math.max(1, Math.min(n, params[kind] ?? 1));
  }

  function choose(kind: string): void {
    if (!snapshot) return;
    const n = snapshot.pipeline.n;
    working = null;
    if (kind === 'none') context.update({ mask: 'none', causal: false });
    else if (kind === 'causal') context.update({ causal: true });
    else if (kind === 'paint') context.update({ mask: encodePaint(snapshot.pipeline.mask.data) });
    else context.update({ mask: `${kind}:${defaultParam(kind, n)}` });
  }

  paramInput.addEventListener('change', () => {
    if (!snapshot) return;
    const kind = [...radios].find(([, radio]) => radio.checked)?.[0];
    const value = paramInput.valueAsNumber;
    if (!kind || !(kind in params) || !Number.isFinite(value)) return;
    const n = snapshot.pipeline.n;
    params[kind] = Math.max(1, Math.min(n, Math.round(value)));
    context.update({ mask: `${kind}:${params[kind]}` });
  });

  // The weights a custom mask gives, drawn only for one: with no mask they are step 5's, with the causal
  // mask they are the "right" table below.
  const weightsFigure = el('figure', { class: 'figure' }, weights.element);
  const pair = el('div', { class: 'figure-row mask-pair' }, el('figure', { class: 'figure' }, painter.element));

  const elements = [
    el(
      'p',
      {},
      'Other masks: padding blocks a batch’s filler tokens, a sliding window shows only the nearest predecessors, a prefix-LM lets a prompt read itself both ways.',
    ),
    el(
      'div',
      { class: 'mask-editor' },
      controlForm({}, presets),
      state,
      el('p', { class: 'mask-help' }, 'To paint, click or drag across cells of the mask (or press ', el('kbd', {}, 'Space'), ').'),
      pair,
      emptyNote,
    ),
  ];

  return {
    elements,
    render(next) {
      snapshot = next;
      working = null;
      const { pipeline: p, tokens, settings } = next;
      const n = p.n;
      const h = settings.head;
      const labels = tokenLabels(tokens);
      const numbers = n <= LIMITS.maxTokensWithNumbers;
      const spec = parseMask(settings.mask, n);
      const kind: MaskKind = settings.causal ? 'causal' : (spec?.kind ?? 'none');
      for (const [k, radio] of radios) radio.checked = k === kind;
      const hasParam = kind === 'pad' || kind === 'window' || kind === 'prefix';
      paramBox.hidden = !hasParam;
      if (hasParam) {
        params[kind] = spec!.param;
        setText(paramLabel, MASK_PRESETS.find((m) => m.kind === kind)?.param ?? '');
        paramInput.max = String(n);
        if ((paramInput.getRootNode() as Document | ShadowRoot).activeElement !== paramInput) paramInput.value = String(spec!.param);
      }
      const custom = isCustomMask(settings.mask);
      state.classList.toggle('mask-override', custom);
      setText(
        state,
        custom
          ? `In force on every step: ${describeMask(settings.mask, false)}.`
          : settings.causal
            ? 'In force on every step: the causal mask.'
            : 'No mask: every token may look at every token.',
      );

      const bits = p.mask.data;
      const values = Float32Array.from(bits);
      const allowedIn = Array.from({ length: n }, (_, r) => {
        let count = 0;
        for (let c = 0; c < n; c++) count += bits[r * n + c];
        return count;
      });
      painter.update(
        {
          data: values,
          rows: n,
          cols: n,
          rowLabels: labels,
          colLabels: labels,
          extent: 1,
          showNumbers: numbers,
          blocked: (r, c) => bits[r * n + c] === 0,
          blockedText: '0',
          rowTotals: {
            label: 'keys',
            text: (r) => String(allowedIn[r]),
            className: (r) => (allowedIn[r] === 0 ? 'mask-row-empty' : undefined),
          },
        },
        `mask (${n}, ${n}) in force: 1 = may look, 0 = blocked`,
      );
      if (!custom) {
        weightsFigure.remove();
      } else {
        const sums = Array.from({ length: n }, (_, r) => {
          let sum = 0;
          for (let c = 0; c < n; c++) sum += p.weights.data[(h * n + r) * n + c];
          return sum;
        });
        const headNote = p.heads > 1 ? `, head ${h + 1} of ${p.heads}` : '';
        weights.update(
          {
            data: p.weights.data,
            offset: h * n * n,
            rows: n,
            cols: n,
            rowLabels: labels,
            colLabels: labels,
            extent: 1,
            showNumbers: numbers,
            blocked: (r, c) => bits[r * n + c] === 0,
            blockedText: '0',
            baseline: next.baseline?.weights.data,
            rowTotals: {
              label: 'row sum',
              text: (r) => percent(sums[r]),
              className: (r) => (p.fullyMaskedRows[r] ? 'mask-row-empty' : undefined),
            },
          },
          `softmax(masked scores)${headNote}: the weights every step uses`,
        );
        if (weightsFigure.parentElement !== pair) pair.append(weightsFigure);
      }
      const empty = Array.from(p.fullyMaskedRows).flatMap((flag, r) => (flag ? [r] : []));
      emptyNote.hidden = empty.length === 0;
      setText(
        emptyNote,
        empty.length === 0
          ? ''
          : `${empty.length === 1 ? `Row ${empty[0] + 1} (${quoted(tokens[empty[0]])}) has` : `Rows ${empty.map((r) => r + 1).join(', ')} have`} no key left to look at, so ${empty.length === 1 ? 'its' : 'their'} weights are all 0 and ${empty.length === 1 ? 'its' : 'each'} row sums to 0%, not 100%. ` +
              'With every score at −∞, softmax would divide e^−∞ + … = 0 by a total of 0. NumPy does exactly that and prints nan (not a number), which then spreads into every number computed from that row. ' +
              'The engine instead gives such a row all-zero weights: the token takes nothing from anyone, and its output row is 0.',
      );
    },
  };
}
