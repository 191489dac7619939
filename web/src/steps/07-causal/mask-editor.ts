// Step 7's mask editor, the step's one control for the page's mask: presets (none, causal, padding,
// sliding window, prefix-LM, painted), with the mask in force drawn as the table to paint on, and, for a
// custom mask, the weights it gives beside it.
import { controlForm, el, setText } from '../../ui/dom';
import { formatPercentDelta, percent, quoted } from '../../ui/format';
import { tokenLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import { encodePaint, isCustomMask, MASK_PRESETS, parseMask, type MaskKind } from '../../features/hands-on/hands-on-settings';
import { LIMITS } from '../../settings';
import type { Snapshot } from '../../snapshot';
import type { StepContext } from '../types';
import { tokenMap } from '../shared/head-view';
import { modelLine } from '../shared/figure';
import { emptyRowsText, maskStateText, otherMasks, paintHelp } from './prose';

let editorId = 0;

/**
 * The mask editor, the step's one control for the mask: presets, of which "painted" is free painting
 * on the mask table (painting any cell switches to it). The mask is a page setting (the URL's `mask`,
 * or its `causal` flag for the causal preset), applied before the softmax in every step.
 */
export function maskEditor(context: Pick<StepContext, 'update' | 'embedCode'>): {
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
  const weightsLine = modelLine();
  const weightsFigure = el('figure', { class: 'figure' }, weightsLine.element, weights.element);
  const pair = el('div', { class: 'figure-row mask-pair' }, el('figure', { class: 'figure' }, painter.element));

  const elements = [otherMasks(), el('div', { class: 'mask-editor' }, controlForm({}, presets), state, paintHelp(), pair, emptyNote)];

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
      setText(state, maskStateText(next));

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
          ...tokenMap(n, labels, numbers),
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
            ...tokenMap(n, labels, numbers),
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
        weightsLine.render(next);
        if (weightsFigure.parentElement !== pair) pair.append(weightsFigure);
      }
      const empty = emptyRowsText(next);
      emptyNote.hidden = empty === '';
      setText(emptyNote, empty);
    },
  };
}
