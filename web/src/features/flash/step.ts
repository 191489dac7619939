// Step 10: FlashAttention, tile by tile. The engine's tiled kernel (cpp/flash.h) recorded every
// (query block, key block) step on the shown head's Q, K and V (compute.ts puts the trace in
// snapshot.flash); this step replays it: which rows are on chip, the tile's scores, the running max
// m, sum l and accumulator per row, the rescaling when a larger max arrives, skipped tiles under the
// causal mask, and at the end the output next to the naive one. Below it: what each method holds in
// memory, and a measurement of both in the reader's browser (features/cost/cost-run.ts).
// Its parts: the trace's numbers (trace.ts), the tile map and running numbers (tables.ts), the memory
// meter (memory-meter.ts); this file holds the controls, the stepping and the prose made from the trace.
import { CostRunFigure } from '../cost/cost-run';
import { controlForm, el, setText, showChildren, showField } from '../../ui/dom';
import { count, fmt, quoted, sub } from '../../ui/format';
import { dimensionLabels, tokenLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import { scrollRegion } from '../../ui/scroll-region';
import { LIMITS } from '../../settings';
import { LATER_KERNELS_LOADING, type Snapshot, sentenceView } from '../../snapshot';
import type { StepContext, StepDefinition } from '../../steps/types';
import { flashStepInfo } from './step-info';
import { sentenceStepNote } from '../../steps/shared/worked-example';
import { modelLine } from '../../steps/shared/figure';
import { MemoryMeter } from './memory-meter';
import { drawRunningState, drawTileMap } from './tables';
import { lastComputedKeyBlock, maxAbsDifference, naiveReference, previousState, rangeLabel, rescaledRows, scientific } from './trace';
import { allPieces, drawnInPieces } from '../../steps/shared/pieces';

/** Autoplay advances one tile this often. */
export const FLASH_AUTOPLAY_MS = 1400;

/** What autoplay ticks on: the page's timers, or one a test drives tick by tick. */
export interface AutoplayClock {
  /** Calls `tick` every `ms` milliseconds until the returned function is called. */
  every(ms: number, tick: () => void): () => void;
}

const pageClock: AutoplayClock = {
  every(ms, tick) {
    const id = setInterval(tick, ms);
    return () => clearInterval(id);
  },
};

/** Tests pass a clock to drive autoplay tick by tick. */
export interface FlashOptions {
  clock?: AutoplayClock;
}
/** Heads this wide or narrower show numbers in their Q, K, V and accumulator tables; wider ones show colours. */
const MAX_DIMS_WITH_NUMBERS = 16;

let uid = 0;

export const flashStep: StepDefinition = {
  ...flashStepInfo,
  mount(body, context) {
    return mountFlash(body, context);
  },
};

let reducedMotionQuery: MediaQueryList | null | undefined;

/** Whether the reader asks for less motion; the query is made once (each matchMedia call makes a new list the page keeps). */
function reducedMotion(): boolean {
  reducedMotionQuery ??= typeof matchMedia === 'function' ? matchMedia('(prefers-reduced-motion: reduce)') : null;
  return reducedMotionQuery?.matches ?? false;
}

/** The step's view; the measurement runs on the page's timing service (context.timing). */
export function mountFlash(body: HTMLElement, context: Pick<StepContext, 'update' | 'timing' | 'embedCode'>, options: FlashOptions = {}) {
  const { clock = pageClock } = options;
  const id = ++uid;
  let snapshot: Snapshot | null = null;
  let position = 0;
  let shapeKey = '';
  let stopTicking: (() => void) | null = null;
  let touched = false;

  // The block size: a setting (URL `block`, attribute `block`), changed here through the state module.
  const blockId = `flash-block-${id}`;
  const blockInput = el('input', {
    type: 'range',
    id: blockId,
    name: 'block',
    min: LIMITS.minBlock,
    max: LIMITS.maxBlock,
    step: 1,
    'aria-describedby': `${blockId}-hint`,
  });
  const blockValue = el('output', { class: 'flash-block-value', for: blockId });
  const blockHint = el('span', { class: 'hint', id: `${blockId}-hint` });
  blockInput.addEventListener('input', () => {
    setText(blockValue, blockInput.value);
    context.update({ block: Number(blockInput.value) });
  });

  const subset = el('p', { class: 'flash-subset' });
  const unavailable = el('p', { class: 'flash-unavailable load-error', hidden: true });

  // The stepper: buttons, status, and the figure that takes arrow keys.
  const previous = el('button', { type: 'button', class: 'button flash-prev' }, '← Previous');
  const next = el('button', { type: 'button', class: 'button flash-next' }, 'Next →');
  const autoplay = el('button', { type: 'button', class: 'button quiet flash-autoplay', 'aria-pressed': 'false' }, 'Autoplay');
  const positionLabel = el('span', { class: 'flash-position' });
  const status = el('p', { class: 'flash-status', role: 'status', 'aria-live': 'polite' });
  const tileMap = el('table', { class: 'data-table flash-tiles' });
  const queries = new MatrixTable({ caption: 'Q', scale: 'diverging', corner: 'token', className: 'flash-q', tools: false });
  const keys = new MatrixTable({ caption: 'K', scale: 'diverging', corner: 'token', className: 'flash-k', tools: false });
  const values = new MatrixTable({ caption: 'V', scale: 'diverging', corner: 'token', className: 'flash-v', tools: false });
  const tileScores = new MatrixTable({
    caption: 'scores',
    scale: 'diverging',
    corner: 'query ↓ key →',
    className: 'flash-scores',
    tools: false,
  });
  const tileProbs = new MatrixTable({
    caption: 'exp(s − m)',
    scale: 'sequential',
    corner: 'query ↓ key →',
    className: 'flash-probs',
    tools: false,
    legend: 'a larger exp(s − m)',
  });
  const explain = el('p', { class: 'flash-explain by-hand-box' });
  const stateTable = el('table', { class: 'data-table flash-state' });
  const acc = new MatrixTable({ caption: 'acc', scale: 'diverging', corner: 'row ↓ dim →', className: 'flash-acc', tools: false });
  const output = new MatrixTable({
    embed: context.embedCode,
    caption: 'output',
    scale: 'diverging',
    corner: 'token ↓ dim →',
    className: 'flash-output',
  });
  const naive = new MatrixTable({
    embed: context.embedCode,
    caption: 'naive output',
    scale: 'diverging',
    corner: 'token ↓ dim →',
    className: 'flash-naive',
  });
  const naiveFigure = el('figure', { class: 'figure flash-naive-figure', hidden: true }, naive.element);
  const difference = el('p', { class: 'flash-diff', hidden: true });
  // Q, K, V and every number after them are the sentence model's; the line says whose.
  const whoseNumbers = modelLine();
  const stepper = el(
    'figure',
    {
      class: 'figure flash-stepper',
      tabindex: 0,
      'aria-labelledby': `flash-stepper-title-${id}`,
      'aria-describedby': `flash-stepper-keys-${id}`,
    },
    el('figcaption', { class: 'flash-stepper-title', id: `flash-stepper-title-${id}` }, 'The tiled pass, one tile at a time'),
    el('p', { class: 'hint', id: `flash-stepper-keys-${id}` }, 'Use the buttons, or ← and → (Home, End) with the figure focused.'),
    whoseNumbers.element,
    el('div', { class: 'flash-nav' }, previous, next, autoplay, positionLabel),
    el(
      'div',
      { class: 'figure-row flash-overview' },
      el(
        'figure',
        { class: 'figure flash-tiles-figure' },
        scrollRegion({ label: 'Tiles done, current and to do', className: 'matrix-scroll' }, tileMap),
      ),
      status,
    ),
    el(
      'div',
      { class: 'figure-row flash-inputs' },
      el('figure', { class: 'figure' }, queries.element),
      el('figure', { class: 'figure' }, keys.element),
      el('figure', { class: 'figure' }, values.element),
    ),
    el(
      'div',
      { class: 'figure-row flash-tile' },
      el('figure', { class: 'figure' }, tileScores.element),
      el('figure', { class: 'figure' }, tileProbs.element),
    ),
    explain,
    el(
      'figure',
      { class: 'figure flash-state-figure' },
      scrollRegion({ label: 'Running max, sum and rescale factor per row', className: 'matrix-scroll' }, stateTable),
    ),
    el(
      'div',
      { class: 'figure-row flash-result' },
      el('figure', { class: 'figure' }, acc.element),
      el('figure', { class: 'figure' }, output.element),
      naiveFigure,
    ),
    difference,
  );

  const meter = new MemoryMeter();
  const run = new CostRunFigure(context.timing);
  const shownNote = sentenceStepNote(context);

  body.append(
    shownNote.element,
    el(
      'p',
      {},
      'The tiled method never builds the score table: a few query rows at a time walk through the keys block by block, each small tile of scores used and dropped in fast on-chip memory.',
    ),
    el(
      'p',
      {},
      'Softmax needs each row’s maximum and total, so rows keep m (largest score so far), l (sum of exp(score − m)) and acc (weighted sum of values); ' +
        'a larger score rescales l and acc by exp(m_old − m_new). Finally out = acc / l.',
    ),
    controlForm(
      { class: 'flash-block-control' },
      el('label', { for: blockId }, 'Block size b: rows of Q per tile, and keys per tile'),
      el('div', { class: 'flash-block-row' }, blockInput, blockValue),
      blockHint,
    ),
    subset,
    unavailable,
    stepper,
    el('h3', { class: 'flash-heading' }, 'What each method keeps in memory'),
    el('p', {}, 'Naive holds all n² weights of a head; tiled, a b × b tile plus three numbers per row: b² + 3b floats at any length.'),
    ...meter.elements,
    run.element,
  );

  // ---- Stepping ----
  function stepCount(): number {
    return snapshot?.flash.trace?.steps.length ?? 0;
  }

  function go(to: number, fromReader = false): void {
    const total = stepCount();
    if (total === 0) return;
    if (fromReader) {
      touched = true;
      setPlaying(false);
    }
    position = Math.max(0, Math.min(total - 1, to));
    draw();
  }

  function setPlaying(on: boolean): void {
    stopTicking?.();
    stopTicking = null;
    autoplay.setAttribute('aria-pressed', String(on));
    setText(autoplay, on ? 'Pause' : 'Autoplay');
    // One announcement per tile would talk over the reader; the status is announced again when it stops.
    status.setAttribute('aria-live', on ? 'off' : 'polite');
    stepper.classList.toggle('flash-playing', on);
    if (!on) return;
    if (position >= stepCount() - 1) {
      position = 0;
      draw();
    }
    stopTicking = clock.every(FLASH_AUTOPLAY_MS, () => {
      if (!body.isConnected || position >= stepCount() - 1) {
        setPlaying(false);
        return;
      }
      position++;
      draw();
      if (position >= stepCount() - 1) setPlaying(false);
    });
  }

  previous.addEventListener('click', () => go(position - 1, true));
  next.addEventListener('click', () => go(position + 1, true));
  autoplay.addEventListener('click', () => {
    touched = true;
    setPlaying(autoplay.getAttribute('aria-pressed') !== 'true');
  });
  stepper.addEventListener('keydown', (event) => {
    const target = event.target as HTMLElement;
    // Tables inside scroll sideways with the arrow keys; only the figure itself and its buttons step.
    if (target !== stepper && target.tagName !== 'BUTTON') return;
    const moves: Record<string, number> = { ArrowLeft: position - 1, ArrowRight: position + 1, Home: 0, End: stepCount() - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    go(moves[event.key], true);
  });

  // Without a reduced-motion preference, the tiles play by themselves the first time the figure is in view
  // (until the reader takes over); with it, nothing moves unless the reader presses Autoplay. The figure
  // may come into view before its first snapshot (steps off screen are drawn in idle time), so render()
  // tries again.
  let inView = false;
  let autoStarted = false;
  const maybeAutoStart = () => {
    if (autoStarted || touched || !inView || reducedMotion() || stepCount() <= 1 || position !== 0) return;
    autoStarted = true;
    setPlaying(true);
  };
  if (typeof IntersectionObserver !== 'undefined') {
    const observer = new IntersectionObserver(
      (entries) => {
        inView = entries.some((entry) => entry.isIntersecting);
        maybeAutoStart();
        if (autoStarted || touched) observer.disconnect();
      },
      { rootMargin: '0px 0px -40% 0px' },
    ); // in view once its top passes 60% of the viewport's height, however tall it is
    observer.observe(stepper);
  }

  // ---- Drawing ----
  /** The tiled pass at `position`, whole (the stepper's buttons). */
  function draw(): void {
    allPieces(drawInParts());
  }

  /** The tiled pass at `position` in three parts: Q, K and V; the tile; the output (pieces, below). */
  function* drawInParts(): Generator<void, void> {
    const s = snapshot;
    const trace = s?.flash.trace;
    if (!s || !trace) return;
    const { pipeline: p, settings } = s;
    const h = settings.head;
    const n = p.n;
    const nF = trace.nQ;
    const labels = tokenLabels(s.tokens).slice(0, nF);
    const dims = dimensionLabels(trace.dV);
    const numbers = trace.dK <= MAX_DIMS_WITH_NUMBERS;
    const total = trace.steps.length;
    const step = trace.steps[position];
    const before = previousState(trace, position);
    const rescaled = new Set(rescaledRows(trace, position));
    const lastKb = lastComputedKeyBlock(trace);
    const rows = step.queryEnd - step.queryStart;
    const cols = step.keyEnd - step.keyStart;
    const qRange = rangeLabel(step.queryStart, step.queryEnd, 'row');
    const kRange = rangeLabel(step.keyStart, step.keyEnd, 'key');
    const atEnd = position === total - 1;

    previous.disabled = position === 0;
    next.disabled = atEnd;
    setText(positionLabel, `Tile ${position + 1} of ${total}`);
    stepper.dataset.position = String(position);
    stepper.dataset.total = String(total);
    setText(
      status,
      step.skipped
        ? `Tile ${position + 1} of ${total}: query ${qRange} against ${kRange}, skipped: with the causal mask every one of these keys is in these rows’ future.`
        : `Tile ${position + 1} of ${total}: query ${qRange} against ${kRange}. ` +
            (rescaled.size
              ? `${rescaled.size} row${rescaled.size === 1 ? '' : 's'} found a larger score and rescaled what ${rescaled.size === 1 ? 'it' : 'they'} had.`
              : 'No row found a larger score, so nothing was rescaled.') +
            (atEnd ? ' Last tile: every row is divided by its l, and the output is complete.' : ''),
    );

    drawTileMap(tileMap, trace, position);

    // Q, K, V with the rows on chip outlined.
    const head = (tensor: { data: Float32Array }) => ({ data: tensor.data, offset: h * n * p.dK });
    const chipRows = (start: number, end: number) => Array.from({ length: end - start }, (_, i) => start + i);
    // A piece each: laid out together off screen, the three tables were one task of about 100 ms on a
    // phone's CPU (tests/bench/README.md, the thirteenth pass).
    queries.update(
      { ...head(p.Q_heads), rows: nF, cols: p.dK, rowLabels: labels, colLabels: dims, showNumbers: numbers },
      `Q: ${qRange} on chip`,
    );
    queries.highlight(chipRows(step.queryStart, step.queryEnd), []);
    yield;
    const kvNote = step.skipped ? 'nothing loaded (tile skipped)' : `${kRange} on chip`;
    keys.update({ ...head(p.K_heads), rows: nF, cols: p.dK, rowLabels: labels, colLabels: dims, showNumbers: numbers }, `K: ${kvNote}`);
    keys.highlight(step.skipped ? [] : chipRows(step.keyStart, step.keyEnd), []);
    yield;
    values.update({ ...head(p.V_heads), rows: nF, cols: p.dK, rowLabels: labels, colLabels: dims, showNumbers: numbers }, `V: ${kvNote}`);
    values.highlight(step.skipped ? [] : chipRows(step.keyStart, step.keyEnd), []);
    yield;

    // The tile itself.
    const rowLabels = labels.slice(step.queryStart, step.queryEnd);
    const colLabels = labels.slice(step.keyStart, step.keyEnd);
    const masked = (r: number, c: number) => step.scores.data[r * cols + c] === -Infinity;
    tileScores.update(
      { data: step.scores.data, rows, cols, rowLabels, colLabels, blocked: masked, blockedText: '−∞' },
      step.skipped
        ? 'scores of this tile: never computed (skipped)'
        : `scores s = q · k${settings.scale ? ' / √dₖ' : ''}, this tile only (${rows} × ${cols})`,
    );
    tileProbs.update(
      { data: step.probabilities.data, rows, cols, rowLabels, colLabels, blocked: masked, blockedText: '0', extent: 1 },
      'exp(s − m), with each row’s new running max m',
    );

    drawRunningState(stateTable, step, before, rescaled, rowLabels, qRange);
    acc.update(
      { data: step.acc.data, rows, cols: trace.dV, rowLabels, colLabels: dims, showNumbers: numbers },
      `acc after this tile: weighted sum of V so far, not yet divided by l (${rows} × ${trace.dV})`,
    );

    // One row worked out in words.
    const focus = rescaled.size ? [...rescaled][0] : 0;
    const who = quoted(s.tokens[step.queryStart + focus]);
    let tileSum = 0;
    for (let c = 0; c < cols; c++) tileSum += step.probabilities.data[focus * cols + c];
    const finished = !step.skipped && step.keyBlock === lastKb[step.queryBlock];
    const division = finished
      ? ` That was this row’s last tile: out${sub(step.queryStart + focus + 1)} = acc / l, e.g. in dimension 1 ${fmt(step.acc.data[focus * trace.dV])} / ${fmt(step.l[focus], 3)} = ${fmt(trace.output.data[(step.queryStart + focus) * trace.dV])}.`
      : '';
    setText(
      explain,
      step.skipped
        ? `Each key in ${kRange} comes after each query in ${qRange}, so the causal mask would block every score of this tile. The kernel skips it: no K or V rows are loaded and no score is computed. m, l and acc stay as they were.`
        : rescaled.has(focus)
          ? `Row ${who}: this tile’s largest score, ${fmt(step.m[focus])}, beats the running max ${fmt(before.m[focus])}. What the row had gathered was measured against the old max, so l and acc are first multiplied by exp(${fmt(before.m[focus])} − ${fmt(step.m[focus])}) = ${fmt(step.rescale[focus], 3)}; ` +
            `then the tile’s terms are added: l = ${fmt(step.rescale[focus], 3)} × ${fmt(before.l[focus], 3)} + ${fmt(tileSum, 3)} = ${fmt(step.l[focus], 3)}.${division}`
          : !Number.isFinite(before.m[focus])
            ? `Row ${who} meets its first keys: m starts at this tile’s largest visible score, ${fmt(step.m[focus])}, l = ${fmt(tileSum, 3)} is the row sum of exp(s − m), and acc is those same weights times the tile’s rows of V.${division}`
            : `Row ${who}: nothing in this tile beats the running max ${fmt(before.m[focus])}, so the factor is 1 and the tile’s terms are just added: l = ${fmt(before.l[focus], 3)} + ${fmt(tileSum, 3)} = ${fmt(step.l[focus], 3)}.${division}`,
    );

    yield;

    // The output, row block by row block, and at the end next to the naive one.
    const written = (row: number) => {
      const qb = Math.floor(row / trace.blockQ);
      return position >= qb * trace.keyBlocks + lastKb[qb];
    };
    output.update(
      {
        data: trace.output.data,
        rows: nF,
        cols: trace.dV,
        rowLabels: labels,
        colLabels: dims,
        showNumbers: numbers,
        blocked: (r) => !written(r),
        blockedText: '…',
      },
      atEnd ? `tiled output = acc / l (${nF} × ${trace.dV})` : 'tiled output so far: each row is written after its last tile',
    );
    const reference = naiveReference(s);
    naiveFigure.hidden = !atEnd;
    difference.hidden = !atEnd;
    if (atEnd) {
      naive.update(
        {
          data: reference.data,
          offset: reference.offset,
          rows: nF,
          cols: trace.dV,
          rowLabels: labels,
          colLabels: dims,
          showNumbers: numbers,
        },
        reference.caption,
      );
      const diff = maxAbsDifference(trace.output, reference.data, reference.offset);
      difference.dataset.value = String(diff);
      showChildren(
        difference,
        'Largest difference between the two, over all ',
        count(nF * trace.dV),
        ' entries: ',
        el('strong', { class: 'flash-diff-value' }, scientific(diff)),
        diff < 1e-5
          ? '. That is float rounding (the sums are added in another order), not a different answer.'
          : '. That is more than float rounding; please report it.',
      );
    }
  }

  // In pieces (steps/shared/pieces.ts): drawn whole off screen, the step was one task of 100–180 ms on a
  // phone's CPU (tests/bench/page-walk.ts); the tiled pass's figures are the next three, whose first
  // layout is a task each (step-renderer.ts).
  return drawnInPieces(function* (shown: Snapshot) {
    // Tiles need more than the article's four tokens (one block): the sentence is traced instead.
    const nextSnapshot = sentenceView(shown);
    shownNote.update(shown);
    snapshot = nextSnapshot;
    whoseNumbers.render(nextSnapshot);
    const { flash, settings, pipeline: p } = nextSnapshot;
    showField(blockInput, settings.block);
    setText(blockValue, blockInput.value);
    const trace = flash.trace;
    setText(
      blockHint,
      trace
        ? `${trace.queryBlocks} query block${trace.queryBlocks === 1 ? '' : 's'} × ${trace.keyBlocks} key block${trace.keyBlocks === 1 ? '' : 's'} = ${trace.steps.length} tile${trace.steps.length === 1 ? '' : 's'}` +
            (settings.block > flash.tokens
              ? ` (a block of ${settings.block} covers all ${flash.tokens} tokens: one tile, which is just the naive method)`
              : '')
        : '',
    );
    const headNote = p.heads > 1 ? `head ${settings.head + 1} of ${p.heads}` : 'the only head';
    setText(
      subset,
      flash.tokens < p.n
        ? `This sentence has ${p.n} tokens; the step-through uses the first ${flash.tokens} (Q, K and V of ${headNote}, ${settings.causal ? 'causal mask on' : 'no mask'}) so that every tile stays readable. ` +
            (flash.prefixNaive
              ? `Without a mask those rows would see all ${p.n} keys, so the comparison at the end runs naive attention on the same ${flash.tokens} tokens.`
              : `With the causal mask these rows never look past token ${flash.tokens}, so they are exactly the first ${flash.tokens} rows of step 6’s output.`)
        : `The tiles use ${headNote} (${settings.causal ? 'causal mask on' : 'no mask'}${settings.scale ? ', scores divided by √dₖ' : ', no scaling'}).`,
    );
    unavailable.hidden = !flash.unavailable;
    setText(unavailable, flash.unavailable ?? '');
    // Waiting for the engine's later module is not an error: the line is plain until it arrives.
    unavailable.classList.toggle('load-error', flash.unavailable !== LATER_KERNELS_LOADING);
    stepper.hidden = !trace;
    meter.render(nextSnapshot);
    yield;
    if (!trace) {
      setPlaying(false);
      return;
    }
    const key = `${trace.nQ}|${trace.blockQ}|${trace.blockK}|${trace.causal}`;
    if (key !== shapeKey) {
      shapeKey = key;
      position = 0;
      setPlaying(false);
    }
    position = Math.min(position, trace.steps.length - 1);
    yield* drawInParts();
    maybeAutoStart();
  });
}
