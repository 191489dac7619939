// Settings -> engine -> snapshot, at most once per animation frame however fast settings change.
// The only module of the walkthrough that calls the engine.
import { EngineError, type AttentionEngine } from './engine/engine';
import { keptExperiments } from './engine/result-sharing';
import { ENGINE_LIMITS } from './engine/limits';
import { EDIT_MATRIX_KEYS, isCustomMask, maskBits, parseEdits } from './features/hands-on/hands-on-settings';
import { EXAMPLE_TOKENS, examplePipelineConfig } from './article-example';
import { computeLongContext } from './features/long-context/compute';
import { computeKVCache } from './features/long-context/kv-cache';
import { computeReaderEffect } from './features/long-context/reader-effect';
import { sameSettings, tokenize, type Settings } from './settings';
import { LATER_KERNELS_LOADING, whoIsIt, type ArrivedPart, type FlashSnapshot, type Repeat, type Snapshot } from './snapshot';
import { hasTrainedWeights, trainedSentence, type TrainedPipelineInput, type TrainedSnapshot } from './features/trained-model/trained';
import { readerArrivedSince, readerFlipsPending, readerView } from './features/reader/model';
import { nextTask } from './next-task';
import type { Matrix, PipelineConfig, PipelineSnapshot, Tensor3 } from './engine/types';

export const DOT_PRODUCT_SAMPLES = 4000;
/** The article's example row for the saturation demo. */
export const SATURATION_ROW = new Float32Array([1, 2, 3]);
/** The article's dₖ for its multi-head shape (d_model 512, 8 heads): its saturation example stretches by √64 = 8. */
export const ARTICLE_MULTI_HEAD_DK = 64;

export function computeSnapshot(engine: AttentionEngine, settings: Settings): Snapshot {
  return completed(snapshotStages(engine, settings));
}

/**
 * computeSnapshot in stages: each `yield` is a point where the caller may let the page paint and take
 * input before the next stage (FrameScheduler.flushInTasks, for the first computation: on a phone's CPU
 * the whole snapshot, still on the engine's baseline code, was a 270 ms task).
 */
export function* snapshotStages(engine: AttentionEngine, settings: Settings): Generator<void, Snapshot> {
  // Settings over the engine's budget (three (h, n, n) tables) are refused by the engine, before it
  // allocates anything, with a message that points to the tiled kernel.
  const typed = tokenize(settings.sentence).tokens;
  const example = settings.weights === 'example';
  // Trained weights: the model reads the sentence (its first maxPositions words), and the walkthrough's
  // pipeline runs the layer that resolves "it" on that layer's own input and W_q, W_k, W_v, W_o. With the
  // article's example, step 1 and the steps from multi-head on still read the sentence with the model.
  const model = settings.weights === 'trained' || (example && hasTrainedWeights(engine)) ? trainedSentence(engine, typed) : null;
  // Step 1 answers with the reader model (features/reader/), whenever it shows a model at all.
  const reader = settings.weights === 'random' ? null : readerView(engine, typed, settings.causal);
  yield;
  const worked = example ? exampleConfig(settings) : sentenceConfig(settings, typed, model?.input ?? null);
  const computed = withEdits(engine, worked.config, settings.edits);
  // The engine runs the example's one head as head 1 of 2 (article-example.ts): the page sees just that head.
  const pipeline = example ? firstHeadOnly(computed.pipeline) : computed.pipeline;
  const baseline = example && computed.baseline ? firstHeadOnly(computed.baseline) : computed.baseline;
  const dK = pipeline.dK;
  // The saturation demo stretches [1, 2, 3] by √dₖ; the example's dₖ 4 would stretch it by only 2, so it
  // shows the article's own stretch, √64 = 8, as the article does.
  const saturationDK = example ? ARTICLE_MULTI_HEAD_DK : dK;
  yield;
  const { dots, articleDots, soft, sharp } = keptExperiments(engine, `${dK}/${saturationDK}/${settings.seed}`, () => ({
    dots: engine.dotProductSamples(dK, DOT_PRODUCT_SAMPLES, settings.seed),
    // The article's std ≈ 8 -> ≈ 1 at dₖ 64, measured beside any other dₖ (step 4's table).
    articleDots: dK === ARTICLE_MULTI_HEAD_DK ? null : engine.dotProductSamples(ARTICLE_MULTI_HEAD_DK, DOT_PRODUCT_SAMPLES, settings.seed),
    soft: engine.softmaxSaturation(SATURATION_ROW, 1),
    sharp: engine.softmaxSaturation(SATURATION_ROW, Math.sqrt(saturationDK)),
  }));
  yield;
  const snapshot: Omit<Snapshot, 'longContext' | 'kvCache'> = {
    settings,
    tokens: worked.tokens,
    pipeline,
    dots,
    articleDots,
    saturation: { row: SATURATION_ROW, soft, sharp, factor: Math.sqrt(saturationDK), dK: saturationDK },
    simd: engine.info().simd,
    flash: computeFlash(engine, pipeline, settings),
    baseline,
    trained: trainedResult(model?.trained ?? null, reader),
    reader,
    sentence: null,
  };
  yield;
  // The long-context step reads the sentence (sentenceView): with the example, the sentence's own numbers.
  if (!example) return { ...snapshot, ...(yield* longContextOf(engine, pipeline, settings, reader)) };
  const sentence = yield* sentenceSnapshot(engine, snapshot, typed, model?.input ?? null);
  return { ...snapshot, sentence, longContext: sentence.longContext, kvCache: sentence.kvCache };
}

/**
 * `result.trained`: the who-is-it model where it is in view, else the words step 1's reader model read;
 * with step 1's answer either way. null when neither model is shown (random weights).
 */
function trainedResult(model: TrainedSnapshot | null, reader: Snapshot['reader']): Snapshot['trained'] {
  const answer = reader?.status === 'ready' ? reader.answer : null;
  if (model) return { ...model, answer };
  if (reader?.status !== 'ready') return null;
  return { origin: 'reader-model', words: reader.words, answer };
}

/**
 * The long-context step's numbers on a pipeline: the patterns and linear attention (and what they do to
 * step 1's answer), and the KV cache; none until the engine's later module, which computes them, is loaded.
 */
function* longContextOf(
  engine: AttentionEngine,
  pipeline: PipelineSnapshot,
  settings: Settings,
  reader: Snapshot['reader'],
): Generator<void, Pick<Snapshot, 'longContext' | 'kvCache'>> {
  if (!engine.hasLater) return { longContext: null, kvCache: null };
  const longContext = { ...computeLongContext(engine, pipeline, settings), reader: computeReaderEffect(engine, reader, settings) };
  yield;
  return { longContext, kvCache: computeKVCache(engine, pipeline, settings) };
}

/** The article's example: its four tokens and chosen inputs, with the page's scaling and mask. */
function exampleConfig(settings: Settings): { config: PipelineConfig; tokens: string[] } {
  const config = { ...examplePipelineConfig({ causal: settings.causal }), scale: settings.scale };
  const customMask = isCustomMask(settings.mask) ? maskBits(settings.mask, config.tokens.length) : null;
  if (customMask) config.mask = customMask;
  return { config, tokens: [...EXAMPLE_TOKENS] };
}

/**
 * A pipeline as the single head its first head is: W_q, W_k, W_v (d_model, dₖ), Q, K, V (n, dₖ), every
 * per-head tensor with that head alone, and the output weights V itself (one head has nothing to
 * concatenate or mix, so W_o is the (dₖ, dₖ) identity). The article's example is exactly this: its (8, 4)
 * projections run by the engine as the first head of d_model 8 with a second, all-zero head.
 */
export function firstHeadOnly(p: PipelineSnapshot): PipelineSnapshot {
  const dK = p.dK;
  const columns = (m: Matrix): Matrix => {
    const data = new Float32Array(m.rows * dK);
    for (let r = 0; r < m.rows; r++) data.set(m.data.subarray(r * m.cols, r * m.cols + dK), r * dK);
    return { rows: m.rows, cols: dK, data };
  };
  const first = (t: Tensor3): Tensor3 => ({ heads: 1, rows: t.rows, cols: t.cols, data: t.data.slice(0, t.rows * t.cols) });
  const identity = new Float32Array(dK * dK);
  for (let i = 0; i < dK; i++) identity[i * dK + i] = 1;
  const headOutputs = first(p.headOutputs);
  const merged: Matrix = { rows: p.n, cols: dK, data: headOutputs.data.slice() };
  return {
    ...p,
    heads: 1,
    W_q: columns(p.W_q),
    W_k: columns(p.W_k),
    W_v: columns(p.W_v),
    W_o: { rows: dK, cols: dK, data: identity },
    Q: columns(p.Q),
    K: columns(p.K),
    V: columns(p.V),
    Q_heads: first(p.Q_heads),
    K_heads: first(p.K_heads),
    V_heads: first(p.V_heads),
    scores: first(p.scores),
    scoresScaled: first(p.scoresScaled),
    weights: first(p.weights),
    headOutputs,
    merged,
    output: { ...merged, data: merged.data.slice() },
    comparisonHead: 0,
  };
}

/** The sentence: the trained model's resolving layer (`model`), or seeded random weights of the page's shape. */
function sentenceConfig(
  settings: Settings,
  typed: string[],
  model: TrainedPipelineInput | null,
  options: { customMask: boolean } = { customMask: true },
): { config: PipelineConfig; tokens: string[] } {
  const tokens = model ? typed.slice(0, model.tokens) : typed;
  const config: PipelineConfig = {
    tokens: tokens.map((token) => token.toLowerCase()),
    dModel: model ? model.dModel : settings.dModel,
    heads: model ? model.heads : settings.heads,
    causal: settings.causal,
    scale: settings.scale,
    seed: settings.seed,
    comparisonHead: settings.head,
  };
  if (model) {
    const { X, W_q, W_k, W_v, W_o } = model;
    Object.assign(config, { X: X.data, W_q: W_q.data, W_k: W_k.data, W_v: W_v.data, W_o: W_o.data });
  }
  // A custom mask (step 7's editor) replaces the causal flag; none and causal need no bits.
  const customMask = options.customMask && isCustomMask(settings.mask) ? maskBits(settings.mask, tokens.length) : null;
  if (customMask) config.mask = customMask;
  return { config, tokens };
}

/**
 * With the article's example, what the steps from multi-head on show: the example has one head and
 * four tokens, nothing to split and no cost to speak of, so they read the sentence, with the trained
 * model (random weights of the article's sentence shape, d_model 8 and 2 heads, while it is not loaded).
 * The reader's edits and a custom mask belong to the example's four tokens and stay there.
 */
function* sentenceSnapshot(
  engine: AttentionEngine,
  worked: Omit<Snapshot, 'longContext' | 'kvCache'>,
  typed: string[],
  model: TrainedPipelineInput | null,
): Generator<void, Snapshot> {
  const settings: Settings = model
    ? { ...worked.settings, weights: 'trained', head: 0, edits: '', mask: 'none' }
    : { ...worked.settings, weights: 'random', dModel: 8, heads: 2, head: 0, edits: '', mask: 'none' };
  const { config, tokens } = sentenceConfig(settings, typed, model, { customMask: false });
  const pipeline = engine.pipeline(config);
  const flash = computeFlash(engine, pipeline, settings);
  yield;
  return {
    ...worked,
    settings,
    tokens,
    pipeline,
    baseline: null,
    flash,
    ...(yield* longContextOf(engine, pipeline, settings, worked.reader)),
    sentence: null,
  };
}

/**
 * The reader's edits (step 2): the seeded pipeline first (the baseline every figure compares against),
 * then the same configuration again with the edited cells written into explicit X, W_q, W_k, W_v.
 * Settings validation has already checked the edits against these sizes.
 */
function withEdits(
  engine: AttentionEngine,
  config: PipelineConfig,
  edits: string,
): { pipeline: PipelineSnapshot; baseline: PipelineSnapshot | null } {
  const list = edits ? parseEdits(edits).edits : [];
  if (list.length === 0) return { pipeline: engine.pipeline(config), baseline: null };
  const baseline = engine.pipeline(config);
  const explicit: PipelineConfig = { ...config };
  // Explicit matrices in `config` (the trained model's) belong to the caller: edit copies.
  const copied = new Set<string>();
  for (const edit of list) {
    const key = EDIT_MATRIX_KEYS[edit.matrix];
    const source = baseline[key];
    if (edit.row >= source.rows || edit.col >= source.cols) continue;
    if (!copied.has(key)) {
      explicit[key] = source.data.slice();
      copied.add(key);
    }
    const data = explicit[key]!;
    data[edit.row * source.cols + edit.col] = edit.value;
  }
  return { pipeline: engine.pipeline(explicit), baseline };
}

/** The FlashAttention step-through (step 10) traces at most this many tokens: 16 rows stay readable. */
export const FLASH_MAX_TOKENS = 16;

/** Rows [0, rows) of head `head` of a (h, n, d) tensor, copied. */
function headRows(tensor: Tensor3, head: number, rows: number): Matrix {
  const start = head * tensor.rows * tensor.cols;
  return { rows, cols: tensor.cols, data: tensor.data.slice(start, start + rows * tensor.cols) };
}

/**
 * The tiled kernel, tile by tile, on exactly the numbers the walkthrough shows: the shown head's Q, K
 * and V (first FLASH_MAX_TOKENS tokens), with the page's block size, mask and scaling. When that is
 * fewer tokens than the sentence and there is no causal mask, the naive output to compare with is not
 * a slice of headOutputs (every row there saw all n keys), so it is computed on the same tokens here.
 */
export function computeFlash(engine: AttentionEngine, pipeline: PipelineSnapshot, settings: Settings): FlashSnapshot {
  const tokens = Math.min(pipeline.n, FLASH_MAX_TOKENS);
  const { maxTraceDim } = ENGINE_LIMITS;
  if (!engine.hasLater) return { tokens, trace: null, prefixNaive: null, unavailable: LATER_KERNELS_LOADING };
  if (pipeline.dK > maxTraceDim) {
    return {
      tokens,
      trace: null,
      prefixNaive: null,
      unavailable: `The step-through follows heads of up to ${maxTraceDim} dimensions; these heads have dₖ = ${pipeline.dK}. Use more heads (dₖ = d_model / h) to see it.`,
    };
  }
  const Q = headRows(pipeline.Q_heads, settings.head, tokens);
  const K = headRows(pipeline.K_heads, settings.head, tokens);
  const V = headRows(pipeline.V_heads, settings.head, tokens);
  try {
    const trace = engine.flashTrace(Q, K, V, {
      blockQ: settings.block,
      blockK: settings.block,
      causal: settings.causal,
      scale: settings.scale,
    });
    // With a custom mask (step 7), the tiles run without it, so step 6's masked output is not the reference either.
    const prefixNaive =
      (tokens < pipeline.n && !settings.causal) || isCustomMask(settings.mask)
        ? engine.attention(Q, K, V, { scale: settings.scale }).output
        : null;
    return { tokens, trace, unavailable: null, prefixNaive };
  } catch (error) {
    // Refused input (a message, not a failed instance): the rest of the walkthrough still draws.
    // A crashed instance (EngineCrash) goes up to the scheduler, which restarts the engine.
    if (!(error instanceof EngineError)) throw error;
    return { tokens, trace: null, prefixNaive: null, unavailable: `The engine could not trace these settings: ${error.message}` };
  }
}

/**
 * `snapshot` with step 1's flips found (readerView's second, slower part: one forward pass per word),
 * the same snapshot otherwise. Nothing else in it depends on the flips.
 */
export function withReaderFlips(engine: AttentionEngine, snapshot: Snapshot): Snapshot {
  if (!readerFlipsPending(snapshot.reader)) return snapshot;
  const { settings } = snapshot;
  const reader = readerView(engine, tokenize(settings.sentence).tokens, settings.causal, true);
  return { ...snapshot, reader, sentence: snapshot.sentence && { ...snapshot.sentence, reader } };
}

/**
 * `snapshot` with step 1's reader model read, when the model arrived (or could not) after the snapshot
 * read the sentence without it; the same snapshot otherwise. What depends on that model is read again
 * (the view, `result.trained.answer`, what each long-context pattern does to the answer); the rest is
 * the snapshot's own, by reference: computing the whole page again for it redrew every section.
 */
export function withArrivedReader(engine: AttentionEngine, snapshot: Snapshot): Snapshot {
  if (!readerArrivedSince(engine, snapshot.reader)) return snapshot;
  const { settings } = snapshot;
  const reader = readerView(engine, tokenize(settings.sentence).tokens, settings.causal);
  const trained = trainedResult(whoIsIt(snapshot.trained), reader);
  const longContextOf = (s: Snapshot) => s.longContext && { ...s.longContext, reader: computeReaderEffect(engine, reader, s.settings) };
  // Beside the article's example, the long-context step reads the sentence's snapshot (sentenceSnapshot).
  const sentence = snapshot.sentence && { ...snapshot.sentence, reader, trained, longContext: longContextOf(snapshot.sentence) };
  return { ...snapshot, reader, trained, sentence, longContext: sentence ? sentence.longContext : longContextOf(snapshot) };
}

/**
 * `snapshot` with what the engine's later module computes (the tiled kernel's trace, the long-context
 * step's numbers, the KV cache), when that module arrived after the snapshot was computed without it;
 * the same snapshot otherwise. The rest is the snapshot's own, by reference, as withArrivedReader's.
 */
export function withLaterKernels(engine: AttentionEngine, snapshot: Snapshot): Snapshot {
  // Beside the example, the top level's long-context numbers are the sentence's: null either way until then.
  if (!engine.hasLater || snapshot.longContext !== null) return snapshot;
  const laterOf = (s: Snapshot) => ({
    flash: computeFlash(engine, s.pipeline, s.settings),
    ...completed(longContextOf(engine, s.pipeline, s.settings, s.reader)),
  });
  if (!snapshot.sentence) return { ...snapshot, ...laterOf(snapshot) };
  const sentence = { ...snapshot.sentence, ...laterOf(snapshot.sentence) };
  const flash = computeFlash(engine, snapshot.pipeline, snapshot.settings);
  return { ...snapshot, flash, sentence, longContext: sentence.longContext, kvCache: sentence.kvCache };
}

/**
 * Beside the article's example, `snapshot` with the trained model on the sentence, when its weights
 * arrived after the snapshot was computed with random weights there; the same snapshot otherwise. The
 * example's own numbers stay the snapshot's, by reference. (With trained weights in force every step
 * shows that model: the page waits for them and computes, FrameScheduler.request.)
 */
export function withTrainedWeights(engine: AttentionEngine, snapshot: Snapshot): Snapshot {
  const { settings } = snapshot;
  if (settings.weights !== 'example' || !hasTrainedWeights(engine) || whoIsIt(snapshot.trained)) return snapshot;
  const typed = tokenize(settings.sentence).tokens;
  const model = trainedSentence(engine, typed);
  const worked = { ...snapshot, trained: trainedResult(model.trained, snapshot.reader) };
  const sentence = completed(sentenceSnapshot(engine, worked, typed, model.input));
  return { ...worked, sentence, longContext: sentence.longContext, kvCache: sentence.kvCache };
}

/** What arrived and how the shown snapshot is completed with it (FrameScheduler.arrived). */
const COMPLETE_WITH: Record<ArrivedPart, (engine: AttentionEngine, snapshot: Snapshot) => Snapshot> = {
  reader: withArrivedReader,
  later: withLaterKernels,
  weights: withTrainedWeights,
};

/** `snapshot` with every part that arrived after it was computed. */
function completedWithArrivals(engine: AttentionEngine, snapshot: Snapshot): Snapshot {
  return Object.values(COMPLETE_WITH).reduce((s, complete) => complete(engine, s), snapshot);
}

/** Runs a computation in stages to its end, in one go. */
function completed<T>(stages: Generator<void, T>): T {
  for (;;) {
    const stage = stages.next();
    if (stage.done) return stage.value;
  }
}

/**
 * At most one engine call per animation frame, and the first one in a frame runs as soon as the task
 * that asked for it ends (a microtask). A discrete change (a click, a key) then computes and renders
 * before the next frame, which paints it, instead of waiting for that frame's rAF and pushing its paint
 * later; several changes in one task (an author setting attributes, a preset) still cost one call. In a
 * burst (typing, dragging a slider) the later changes wait for the next frame and cost one call there,
 * for the latest settings. A snapshot whose step 1 still lacks its flips is followed, once it has
 * been painted and unless newer settings are waiting, by the same snapshot with them (withReaderFlips).
 */
export class FrameScheduler {
  private pending: Settings | null = null;
  /** The last snapshot handed out: a completion for an older one is dropped. */
  private shown: Snapshot | null = null;
  private frame = 0;
  private soon = false;
  /** A call ran since the last frame began: further requests wait for the next frame. */
  private busy = false;
  /** The computation flushInTasks has under way, if any. */
  private staged: Generator<void, Snapshot> | null = null;

  constructor(
    private readonly engine: AttentionEngine,
    /**
     * Gets each snapshot, and what it repeats: the snapshot shown before it, of which only one part is
     * new (something arrived, step 1's flips were found), or null when it was computed for its settings.
     */
    private readonly onSnapshot: (snapshot: Snapshot, repeats: Repeat | null) => void,
    /** Gets the settings that failed, so the caller can recover (restart the engine, go back). */
    private readonly onError: (error: unknown, settings: Settings) => void,
  ) {}

  request(settings: Settings): void {
    this.pending = settings;
    if (this.frame || this.soon) return;
    if (!this.busy) {
      this.soon = true;
      queueMicrotask(() => {
        this.soon = false;
        this.flush();
      });
      return;
    }
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.flush();
    });
  }

  /** Computes now (first paint, tests). */
  flush(): void {
    const settings = this.pending;
    this.pending = null;
    if (!settings) return;
    this.staged = null; // a computation in tasks, under way, is for older settings: dropped
    if (!this.busy) {
      this.busy = true;
      requestAnimationFrame(() => {
        this.busy = false;
      });
    }
    let snapshot: Snapshot;
    try {
      snapshot = computeSnapshot(this.engine, settings);
    } catch (error) {
      this.onError(error, settings);
      return;
    }
    this.show(snapshot);
  }

  /**
   * Computes the pending settings in stages, one stage per task (snapshotStages), so that the page can
   * paint and take input in between; for the first computation of a page whose prerendered copy already
   * shows these numbers. A request in the meantime is computed as usual and this one is dropped.
   */
  flushInTasks(): void {
    const settings = this.pending;
    this.pending = null;
    if (!settings) return;
    const stages = snapshotStages(this.engine, settings);
    this.staged = stages;
    const step = () => {
      if (this.staged !== stages) return;
      let stage: IteratorResult<void, Snapshot>;
      try {
        stage = stages.next();
      } catch (error) {
        this.staged = null;
        this.onError(error, settings);
        return;
      }
      if (!stage.done) return nextTask(step);
      // Shown in a task of its own: the drawing it starts is a task's worth by itself.
      const snapshot = stage.value;
      nextTask(() => {
        if (this.staged !== stages) return;
        this.staged = null;
        // What arrived since the stages read its part (arrived() leaves it to this) is read in now.
        this.showFrom(snapshot, null, () => completedWithArrivals(this.engine, snapshot));
      });
    };
    nextTask(step);
  }

  /**
   * Something the engine computes with arrived (step 1's reader model, or the news that it cannot come;
   * the later module; the trained weights): the snapshot shown is handed out again with that part, the
   * rest as it was (COMPLETE_WITH), and true is returned. `asked`: settings asked for again while it was
   * on the way, with the shown snapshot's values (a step that waited for the part); the repeat carries
   * them, so the asker hears its answer. False when other settings are shown or on the way: those read
   * the part themselves when they are computed.
   */
  arrived(part: ArrivedPart, asked?: Settings): boolean {
    const shown = this.shown;
    if (!shown || this.pending || this.staged || (asked && !sameSettings(asked, shown.settings))) return false;
    const settings = asked ?? shown.settings;
    this.showFrom(shown, { of: shown, part }, () => {
      const next = COMPLETE_WITH[part](this.engine, shown);
      return settings === next.settings ? next : { ...next, settings };
    });
    return true;
  }

  private show(snapshot: Snapshot, repeats: Repeat | null = null): void {
    this.shown = snapshot;
    this.onSnapshot(snapshot, repeats);
    if (!readerFlipsPending(snapshot.reader)) return;
    // After the next paint (a task queued from the frame's callback runs after it draws the answer).
    requestAnimationFrame(() => setTimeout(() => this.complete(snapshot), 0));
  }

  private complete(snapshot: Snapshot): void {
    if (this.shown !== snapshot || this.pending) return;
    this.showFrom(snapshot, { of: snapshot, part: 'reader' }, () => withReaderFlips(this.engine, snapshot));
  }

  /**
   * Shows what `read` makes of `snapshot` (a snapshot computed for its settings when `repeats` is null,
   * else the one shown, of which `repeats.part` is read again); nothing when it is the shown snapshot
   * unchanged. An engine failure goes to onError.
   */
  private showFrom(snapshot: Snapshot, repeats: Repeat | null, read: () => Snapshot): void {
    let next: Snapshot;
    try {
      next = read();
    } catch (error) {
      this.onError(error, snapshot.settings);
      return;
    }
    if (repeats === null) this.show(next);
    else if (next !== repeats.of) this.show(next, repeats);
  }
}
