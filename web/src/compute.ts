// Settings -> engine -> snapshot, at most once per animation frame however fast settings change.
// The only module of the walkthrough that calls the engine.
import { EngineError, type AttentionEngine } from './engine/engine';
import { keptExperiments } from './engine/result-sharing';
import { EDIT_MATRIX_KEYS, isCustomMask, maskBits, parseEdits } from './hands-on-settings';
import { tokenize, type Settings } from './settings';
import type { FlashSnapshot, Snapshot } from './snapshot';
import { trainedSentence } from './trained';
import type { Matrix, PipelineConfig, PipelineSnapshot, Tensor3 } from './engine/types';

export const DOT_PRODUCT_SAMPLES = 4000;
/** The article's example row for the saturation demo. */
export const SATURATION_ROW = new Float32Array([1, 2, 3]);

export function computeSnapshot(engine: AttentionEngine, settings: Settings): Snapshot {
  // Settings over the engine's budget (three (h, n, n) tables) are refused by the engine, before it
  // allocates anything, with a message that points to the tiled kernel.
  const typed = tokenize(settings.sentence).tokens;
  // Trained weights: the model reads the sentence (its first maxPositions words), and the walkthrough's
  // pipeline runs the layer that resolves "it" on that layer's own input and W_q, W_k, W_v, W_o.
  const model = settings.weights === 'trained' ? trainedSentence(engine, typed) : null;
  const tokens = model ? typed.slice(0, model.input.tokens) : typed;
  const dModel = model ? model.input.dModel : settings.dModel;
  const heads = model ? model.input.heads : settings.heads;
  const config: PipelineConfig = {
    tokens: tokens.map((token) => token.toLowerCase()),
    dModel,
    heads,
    causal: settings.causal,
    scale: settings.scale,
    seed: settings.seed,
    comparisonHead: settings.head,
  };
  if (model) {
    const { X, W_q, W_k, W_v, W_o } = model.input;
    Object.assign(config, { X: X.data, W_q: W_q.data, W_k: W_k.data, W_v: W_v.data, W_o: W_o.data });
  }
  // A custom mask (step 7's editor) replaces the causal flag; none and causal need no bits.
  const customMask = isCustomMask(settings.mask) ? maskBits(settings.mask, tokens.length) : null;
  if (customMask) config.mask = customMask;
  const { pipeline, baseline } = withEdits(engine, config, settings.edits);
  const dK = pipeline.dK;
  const { dots, soft, sharp } = keptExperiments(engine, `${dK}/${settings.seed}`, () => ({
    dots: engine.dotProductSamples(dK, DOT_PRODUCT_SAMPLES, settings.seed),
    soft: engine.softmaxSaturation(SATURATION_ROW, 1),
    sharp: engine.softmaxSaturation(SATURATION_ROW, Math.sqrt(dK)),
  }));
  return {
    settings,
    tokens,
    pipeline,
    dots,
    saturation: { row: SATURATION_ROW, soft, sharp, factor: Math.sqrt(pipeline.dK) },
    simd: engine.info().simd,
    flash: computeFlash(engine, pipeline, settings),
    baseline,
    trained: model?.trained ?? null,
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
  const { maxTraceDim } = engine.info().limits;
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
 * At most one engine call per animation frame, and the first one in a frame runs as soon as the task
 * that asked for it ends (a microtask). A discrete change (a click, a key) then computes and renders
 * before the next frame, which paints it, instead of waiting for that frame's rAF and pushing its paint
 * later; several changes in one task (an author setting attributes, a preset) still cost one call. In a
 * burst (typing, dragging a slider) the later changes wait for the next frame and cost one call there,
 * for the latest settings.
 */
export class FrameScheduler {
  private pending: Settings | null = null;
  private frame = 0;
  private soon = false;
  /** A call ran since the last frame began: further requests wait for the next frame. */
  private busy = false;

  constructor(
    private readonly engine: AttentionEngine,
    private readonly onSnapshot: (snapshot: Snapshot) => void,
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
    this.onSnapshot(snapshot);
  }
}
