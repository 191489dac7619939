// "Avoiding the n × n matrix": on the sentence's shown head, full attention beside a sliding window,
// a window plus global tokens, a strided pattern and linear attention, each with its weights, the
// scores it computed and how far its output lands from full attention's. Every number comes from
// snapshot.longContext (features/long-context/compute.ts); the controls ask the state module for the
// lcWindow, lcGlobal and lcStride settings (URL lc_*, attributes window, global-tokens, stride).
import { columnHeads } from '../../ui/data-table';
import { controlForm, el, setText, showChildren, showField } from '../../ui/dom';
import { count, fmt, percent, quoted } from '../../ui/format';
import { tokenLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import { scrollRegion } from '../../ui/scroll-region';
import { LIMITS } from '../../settings';
import { WALKTHROUGH_SETTINGS } from '../../settings-schema';
import { LATER_KERNELS_LOADING, sentenceView, type Snapshot } from '../../snapshot';
import { sentenceStepNote } from '../../steps/shared/worked-example';
import { modelLine } from '../../steps/shared/figure';
import type { StepContext, StepDefinition } from '../../steps/types';
import { longContextStepInfo } from './step-info';
import type { LongContextSnapshot, Technique, TechniqueId } from './compute';
import { mountKVCache } from './kv-figure';
import { mountLongContextRun } from './run';
import { ModelRequest } from '../reader/model-request';
import { drawnInPieces } from '../../steps/shared/pieces';

/** Each technique's name and the family it stands for. */
export const TECHNIQUE_NAMES: Record<TechniqueId, { name: string; family: string }> = {
  window: { name: 'Sliding window', family: 'a band of w keys per query' },
  global: { name: 'Window + global tokens', family: 'Longformer / BigBird style' },
  strided: { name: 'Window + stride', family: 'Sparse Transformer style' },
  linear: { name: 'Linear attention', family: 'φ(x) = elu(x) + 1, no score matrix at all' },
};

/** "3 keys" / "1 key". */
const plural = (value: number, word: string) => `${count(value)} ${word}${value === 1 ? '' : 's'}`;

/** What the technique's pattern is, for this sentence, in words computed from the snapshot. */
export function patternSentence(lc: LongContextSnapshot, technique: Technique): string {
  const side = lc.causal
    ? `the ${plural(lc.window, 'key')} up to and including its own position`
    : `the keys fewer than ${lc.window} positions away`;
  switch (technique.id) {
    case 'window':
      return `Each query sees ${side}.`;
    case 'global':
      return lc.global === 0
        ? `No global tokens (0 chosen): the same cells as the window alone.`
        : `The window, plus ${lc.global === 1 ? 'the first token, which every token sees and which sees' : `the first ${plural(lc.global, 'token')}, which every token sees and which see`} every token${lc.causal ? ' (never a later one: the mask stays causal)' : ''}.`;
    case 'strided':
      return lc.stride === 0
        ? 'Stride 0: no strided keys, the window alone.'
        : `The window, plus every key a multiple of ${lc.stride} positions ${lc.causal ? 'earlier' : 'away'}.`;
    case 'linear':
      return 'No scores: φ(q)·(Σⱼ φ(kⱼ) vⱼᵀ) / φ(q)·Σⱼ φ(kⱼ). Its implied weights are φ(qᵢ)·φ(kⱼ) / Σₗ φ(qᵢ)·φ(kₗ).';
  }
}

/** What the technique does to step 1's answer (the trained reader model), or null without an answer. */
export function readerEffectSentence(lc: LongContextSnapshot, id: TechniqueId): string | null {
  const effect = lc.reader;
  if (!effect) return null;
  const model = `the trained ${effect.causal ? 'causal' : 'bidirectional'} reader model`;
  const full = `${quoted(effect.full.word)} (${percent(effect.full.probability)})`;
  if (id === 'linear')
    return `Step 1’s answer: ${model} was trained with softmax attention, so linear attention in its place is not computed; with full attention it resolves ${quoted(effect.pronoun.word)} to ${full}.`;
  const pick = effect.techniques.find((t) => t.id === id)?.pick;
  if (!pick) return null;
  const within = `${quoted(pick.word)} (${percent(pick.probability)})`;
  return pick.position === effect.full.position
    ? `Step 1’s answer within this pattern: ${model} still resolves ${quoted(effect.pronoun.word)} to ${within}, against ${full} with full attention.`
    : `Step 1’s answer within this pattern: ${model} now resolves ${quoted(effect.pronoun.word)} to ${within} instead of ${full} with full attention.`;
}

/** The line under a technique: cells, their share of full attention's, the output's distance. */
export function techniqueReading(lc: LongContextSnapshot, technique: Technique): string {
  const distance = `its output differs from full attention’s by at most ${fmt(technique.maxDifference, 3)} (mean ${fmt(technique.meanDifference, 3)}).`;
  if (technique.id === 'linear')
    return `0 of ${count(lc.full.cells)} scores, ${count(technique.multiplyAdds)} multiply-adds against full attention’s ${count(lc.full.multiplyAdds)}; ${distance}`;
  const share = technique.cells / lc.full.cells;
  return `${count(technique.cells)} of ${count(lc.full.cells)} scores (${percent(share)}); ${distance}`;
}

let uid = 0;

export const longContextStep: StepDefinition = {
  ...longContextStepInfo,
  mount(body, context) {
    return mountLongContext(body, context);
  },
};

interface NumberControl {
  input: HTMLInputElement;
  element: HTMLElement;
}

export function mountLongContext(body: HTMLElement, context: Pick<StepContext, 'update' | 'embedCode' | 'timing' | 'loadReaderModel'>) {
  const id = ++uid;
  const spec = WALKTHROUGH_SETTINGS;
  const numberControl = (key: 'lcWindow' | 'lcGlobal' | 'lcStride', label: string): NumberControl => {
    const inputId = `lc-${key}-${id}`;
    const input = el('input', { type: 'number', id: inputId, name: spec[key].attribute, min: spec[key].min, max: spec[key].max, step: 1 });
    input.addEventListener('change', () => {
      if (Number.isFinite(input.valueAsNumber)) context.update({ [key]: input.valueAsNumber });
    });
    return { input, element: el('div', { class: 'lc-control' }, el('label', { for: inputId }, label), input) };
  };
  const windowControl = numberControl('lcWindow', 'Window w');
  const globalControl = numberControl('lcGlobal', 'Global tokens');
  const strideControl = numberControl('lcStride', 'Stride');

  const reading = el('p', { class: 'reading lc-reading' });
  const table = el('table', { class: 'data-table lc-table' });
  const flashLink = el('span', { class: 'lc-flash-ref' });
  let tokens: string[] = [];
  const weightTable = (caption: string, className: string) =>
    new MatrixTable({
      embed: context.embedCode,
      describe: (r, c, v) => `${quoted(tokens[r] ?? '')} takes ${percent(v)} from ${quoted(tokens[c] ?? '')}`,
      caption,
      scale: 'sequential',
      corner: 'query ↓ key →',
      className,
      legend: 'more weight',
    });
  const fullTable = weightTable('full attention’s weights', 'lc-full');
  const panels = (Object.keys(TECHNIQUE_NAMES) as TechniqueId[]).map((techniqueId) => {
    const names = TECHNIQUE_NAMES[techniqueId];
    const figure = weightTable(`${names.name}: weights`, `lc-weights-${techniqueId}`);
    const pattern = el('p', { class: 'lc-pattern' });
    const line = el('p', { class: 'reading lc-technique-reading' });
    const answer = el('p', { class: 'reading lc-reader-effect' });
    const element = el(
      'figure',
      // Stable anchors: the cost step and the FAQ link each technique's live figure.
      { class: 'figure lc-panel', id: `lc-${techniqueId}`, 'data-technique': techniqueId },
      el('figcaption', {}, el('strong', {}, names.name), ` (${names.family})`),
      pattern,
      figure.element,
      line,
      answer,
    );
    return { techniqueId, figure, pattern, line, answer, element };
  });
  const linearCost = el('p', { class: 'reading lc-linear-cost' });
  const measured = mountLongContextRun(context);
  const kvCache = mountKVCache(context);
  const shownNote = sentenceStepNote(context);
  // Every pattern panel below is drawn from the same head of the sentence model.
  const whoseNumbers = modelLine();

  body.append(
    shownNote.element,
    el(
      'p',
      {},
      'Full attention scores every query against every key. The first three techniques below score only the cells of a pattern ',
      '(the engine’s sparse kernel visits those cells and no others); linear attention replaces softmax by a feature map φ so that ',
      'the sum over keys can be taken once for all queries. Each runs here on the same Q, K and V as full attention.',
    ),
    controlForm({ class: 'lc-controls' }, windowControl.element, globalControl.element, strideControl.element),
    whoseNumbers.element,
    reading,
    scrollRegion({ label: 'Scores computed and distance from full attention', className: 'matrix-scroll' }, table),
    el(
      'figure',
      { class: 'figure lc-panel lc-panel-full' },
      el('figcaption', {}, el('strong', {}, 'Full attention'), ' (every cell)'),
      fullTable.element,
    ),
    el('div', { class: 'lc-panels' }, ...panels.map((panel) => panel.element)),
    linearCost,
    el(
      'aside',
      { class: 'lc-flash', 'aria-labelledby': `lc-flash-title-${id}` },
      el('h3', { id: `lc-flash-title-${id}` }, 'The exact one'),
      el('p', {}, flashLink, ' scores every cell, a tile at a time, and never stores the n × n table: its output is full attention’s.'),
    ),
    measured.element,
    kvCache.element,
  );

  const modelRequest = new ModelRequest(body, (causal) => context.loadReaderModel?.(causal));

  // In pieces (steps/shared/pieces.ts): drawn whole off screen, the step was one task of 100–150 ms on a
  // phone's CPU (tests/bench/page-walk.ts).
  return drawnInPieces(function* (shown: Snapshot) {
    shownNote.update(shown);
    // Step 1's answer under each pattern needs the reader model: ask for it once this step is near the
    // viewport (it loads once, then the page recomputes).
    modelRequest.want(shown.reader?.status === 'loading' ? shown.reader.causal : null);
    const view = sentenceView(shown);
    whoseNumbers.render(view);
    const lc = view.longContext;
    if (!lc) {
      // The engine's later module computes this step: the walkthrough fetches it and computes again.
      setText(reading, LATER_KERNELS_LOADING);
      return;
    }
    const n = lc.tokens;
    tokens = view.tokens.slice(0, n);
    const labels = tokenLabels(tokens);
    const showNumbers = n <= LIMITS.maxTokensWithNumbers;
    showField(windowControl.input, shown.settings.lcWindow);
    showField(globalControl.input, shown.settings.lcGlobal);
    showField(strideControl.input, shown.settings.lcStride);

    setText(
      reading,
      `${plural(n, 'token')}, head ${lc.head + 1} of the ${view.settings.weights === 'random' ? 'seeded random weights' : 'trained model'} (Q, K, V each ${n} × ${lc.dK})` +
        `${lc.causal ? ', causal' : ''}: full attention computes ${count(lc.full.cells)} scores. ` +
        `Window w = ${lc.window}, ${plural(lc.global, 'global token')}, stride ${lc.stride}.`,
    );

    showChildren(
      table,
      el('caption', {}, `Scores computed and the output’s distance from full attention (n = ${n}, dₖ = ${lc.dK})`),
      columnHeads(['technique', 'scores computed', 'share of full', 'multiply-adds', 'max |Δ output|', 'mean |Δ output|']),
      el(
        'tbody',
        {},
        el(
          'tr',
          { 'data-technique': 'full' },
          el('th', { scope: 'row' }, 'Full attention'),
          ...[count(lc.full.cells), percent(1), count(lc.full.multiplyAdds), '0', '0'].map((text) => el('td', { class: 'num' }, text)),
        ),
        ...lc.techniques.map((t) =>
          el(
            'tr',
            { 'data-technique': t.id },
            el('th', { scope: 'row' }, TECHNIQUE_NAMES[t.id].name),
            el('td', { class: 'num', 'data-key': 'cells' }, count(t.cells)),
            el('td', { class: 'num', 'data-key': 'share' }, percent(t.cells / lc.full.cells)),
            el('td', { class: 'num', 'data-key': 'multiplyAdds' }, count(t.multiplyAdds)),
            el('td', { class: 'num', 'data-key': 'max' }, fmt(t.maxDifference, 3)),
            el('td', { class: 'num', 'data-key': 'mean' }, fmt(t.meanDifference, 3)),
          ),
        ),
      ),
    );
    yield;

    // Every weight table is (n, n) over the sentence's tokens; a cell outside the pattern shows '·'.
    const showWeights = (figure: MatrixTable, data: Float32Array, blocked?: (r: number, c: number) => boolean) =>
      figure.update({ data, rows: n, cols: n, rowLabels: labels, colLabels: labels, extent: 1, showNumbers, blocked, blockedText: '·' });
    const causalBlocked = lc.causal ? (r: number, c: number) => c > r : undefined;
    showWeights(fullTable, lc.full.weights.data, causalBlocked);
    for (const panel of panels) {
      yield;
      const technique = lc.techniques.find((t) => t.id === panel.techniqueId)!;
      const mask = technique.mask;
      setText(panel.pattern, patternSentence(lc, technique));
      showWeights(panel.figure, technique.weights.data, mask ? (r, c) => mask.data[r * n + c] === 0 : causalBlocked);
      setText(panel.line, techniqueReading(lc, technique));
      // While the reader model loads, a line holds the answer's place, so the page below does not move when it comes.
      const effect =
        readerEffectSentence(lc, technique.id) ??
        (shown.reader?.status === 'loading'
          ? 'Step 1’s answer within this pattern: waiting for the reader model, which loads while this step is in view.'
          : null);
      panel.answer.hidden = effect === null;
      setText(panel.answer, effect ?? '');
    }

    const linear = lc.techniques.find((t) => t.id === 'linear')!;
    const crossover = lc.linearCheaperFrom;
    setText(
      linearCost,
      `Linear attention’s cost grows like n·dₖ² instead of n²·dₖ: here ${count(linear.multiplyAdds)} multiply-adds against ${count(lc.full.multiplyAdds)}. ` +
        `With dₖ = ${lc.dK} it does less work than full attention from ${plural(crossover, 'token')} on` +
        `${n >= crossover ? `, and this sentence has ${count(n)}` : `; this sentence has only ${count(n)}`}.`,
    );

    yield;
    kvCache.render(view, shown.settings);

    const root = body.getRootNode() as Document | ShadowRoot;
    const hasFlash = Boolean(root.getElementById?.('flash') ?? document.getElementById('flash'));
    showChildren(flashLink, hasFlash ? el('a', { href: '#flash' }, 'FlashAttention') : 'FlashAttention');
  });
}
