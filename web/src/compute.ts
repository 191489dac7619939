// Settings -> engine -> snapshot, at most once per animation frame however fast settings change.
// The only module of the walkthrough that calls the engine.
import type { AttentionEngine } from './engine/engine';
import { tokenize, type Settings } from './settings';
import type { Snapshot } from './snapshot';

export const DOT_PRODUCT_SAMPLES = 4000;
/** The article's example row for the saturation demo. */
export const SATURATION_ROW = new Float32Array([1, 2, 3]);

export function computeSnapshot(engine: AttentionEngine, settings: Settings): Snapshot {
  const { tokens } = tokenize(settings.sentence);
  const pipeline = engine.pipeline({
    tokens: tokens.map((token) => token.toLowerCase()),
    dModel: settings.dModel,
    heads: settings.heads,
    causal: settings.causal,
    scale: settings.scale,
    seed: settings.seed,
  });
  const dots = engine.dotProductSamples(pipeline.dK, DOT_PRODUCT_SAMPLES, settings.seed);
  const factor = Math.sqrt(pipeline.dK);
  return {
    settings,
    tokens,
    pipeline,
    dots,
    saturation: {
      row: SATURATION_ROW,
      soft: engine.softmaxSaturation(SATURATION_ROW, 1),
      sharp: engine.softmaxSaturation(SATURATION_ROW, factor),
      factor,
    },
    simd: engine.info().simd,
  };
}

/** Coalesces requests: many settings changes within one frame cost one engine call. */
export class FrameScheduler {
  private pending: Settings | null = null;
  private frame = 0;

  constructor(
    private readonly engine: AttentionEngine,
    private readonly onSnapshot: (snapshot: Snapshot) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  request(settings: Settings): void {
    this.pending = settings;
    if (this.frame) return;
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
    try {
      this.onSnapshot(computeSnapshot(this.engine, settings));
    } catch (error) {
      this.onError(error);
    }
  }
}
