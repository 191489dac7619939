// The KV cache at inference, on the sentence's heads (compute.ts calls this; the step renders it):
// the causal model generates the sentence token by token, each new token's query rows (one per head)
// read the t cached keys and values instead of recomputing attention over all t tokens. With fewer
// KV heads than query heads (grouped-query, multi-query attention) each group's keys and values are
// the mean of its heads' (how GQA's authors turn a multi-head model into a grouped one), so the page
// can say how far the output moves from multi-head attention. Public models' shapes turn the cache's
// size per token (2 · layers · kv heads · d_k · bytes) into memory at long contexts.
import type { AttentionEngine } from '../../engine/engine';
import { decodeRecompute, KVCache, kvCacheBytesPerToken } from '../../engine/long-context';
import type { Matrix, PipelineSnapshot } from '../../engine/types';
import type { Settings } from '../../settings';
import { outputDifference } from './compute';

/**
 * A public model's attention shape, from its published config. `source` names that config as text: the
 * page fetches and links nothing outside its own folder (tests/browser/security.test.ts).
 */
export interface ModelShapeRow {
  name: string;
  layers: number;
  heads: number;
  kvHeads: number;
  dK: number;
  source: string;
}

/** num_hidden_layers, num_attention_heads, num_key_value_heads and hidden_size / heads of each config.json. */
export const PUBLIC_MODELS: readonly ModelShapeRow[] = [
  {
    name: 'Llama-2-7B',
    layers: 32,
    heads: 32,
    kvHeads: 32,
    dK: 128,
    source: 'meta-llama/Llama-2-7b-hf, config.json on Hugging Face',
  },
  {
    name: 'Llama-3-8B',
    layers: 32,
    heads: 32,
    kvHeads: 8,
    dK: 128,
    source: 'meta-llama/Meta-Llama-3-8B, config.json on Hugging Face',
  },
  {
    name: 'Mistral-7B',
    layers: 32,
    heads: 32,
    kvHeads: 8,
    dK: 128,
    source: 'mistralai/Mistral-7B-v0.1, config.json on Hugging Face',
  },
];
/** Context lengths of the models table: 8k, 32k and 128k tokens. */
export const CONTEXT_LENGTHS = [8192, 32768, 131072];
/** Recomputing costs t² per token: the no-cache curve is run for every t up to here. */
export const RECOMPUTE_CURVE_TOKENS = 64;
/** 16-bit keys and values, as these models are usually served. */
export const SERVED_BYTES_PER_VALUE = 2;

export interface KVCacheSnapshot {
  tokens: number;
  heads: number;
  dK: number;
  /** KV heads used: the setting, lowered to a divisor of `heads`. */
  kvHeads: number;
  /** heads, heads / 2, …, 1 (every divisor, largest first): the control's choices. */
  kvChoices: number[];
  /** Scores for new token t = 1..n with the cache, as the engine counted them. */
  cachedCells: number[];
  /** [t, scores] recomputing all t tokens without a cache, as the engine counted them (t up to RECOMPUTE_CURVE_TOKENS). */
  recomputeCells: [number, number][];
  /** The last token recomputed: min(n, RECOMPUTE_CURVE_TOKENS). */
  comparedToken: number;
  /** The cache's output against recomputing everything at comparedToken (the same numbers, up to rounding). */
  recomputeDifference: number;
  /** Each generated token's output (n, heads · d_k) with `kvHeads` against multi-head attention's. */
  fromMultiHead: { max: number; mean: number };
  /** One layer's float32 cache per token (2 · kvHeads · d_k · 4), and multi-head attention's. */
  bytesPerToken: number;
  multiHeadBytesPerToken: number;
  /** Each public model's cache per token at SERVED_BYTES_PER_VALUE. */
  models: { model: ModelShapeRow; bytesPerToken: number }[];
}

/** The divisors of h, largest first: multi-head, grouped, …, multi-query. */
export function kvHeadChoices(heads: number): number[] {
  const choices: number[] = [];
  for (let g = heads; g >= 1; g--) if (heads % g === 0) choices.push(g);
  return choices;
}

/** (n, groups · d_k): each group of heads / groups consecutive heads of a (heads, n, d_k) tensor, averaged. */
function grouped(pipeline: PipelineSnapshot, key: 'Q_heads' | 'K_heads' | 'V_heads', groups: number): Matrix {
  const t = pipeline[key];
  const [heads, n, dK] = [t.heads, t.rows, t.cols];
  const size = heads / groups;
  const data = new Float32Array(n * groups * dK);
  for (let h = 0; h < heads; h++) {
    const g = Math.floor(h / size);
    for (let r = 0; r < n; r++) for (let c = 0; c < dK; c++) data[r * groups * dK + g * dK + c] += t.data[(h * n + r) * dK + c] / size;
  }
  return { rows: n, cols: groups * dK, data };
}

function row(m: Matrix, r: number, rows: number): Matrix {
  return { rows, cols: m.cols / rows, data: m.data.slice(r * m.cols, (r + 1) * m.cols) };
}

/** Generates the n tokens through a cache with `groups` KV heads: every output, and the scores per step. */
function generate(engine: AttentionEngine, Q: Matrix, K: Matrix, V: Matrix, heads: number, groups: number, dK: number) {
  const n = Q.rows;
  const cache = KVCache.create(engine, { layers: 1, kvHeads: groups, dK, capacity: n });
  try {
    const outputs = new Float32Array(n * heads * dK);
    const cells: number[] = [];
    for (let t = 0; t < n; t++) {
      cache.append(0, row(K, t, groups), row(V, t, groups));
      const step = cache.decode(0, row(Q, t, heads));
      outputs.set(step.output.data, t * heads * dK);
      cells.push(step.cells);
    }
    return { outputs: { rows: n, cols: heads * dK, data: outputs }, cells, bytesPerToken: cache.bytesPerToken };
  } finally {
    cache.dispose();
  }
}

export function computeKVCache(engine: AttentionEngine, pipeline: PipelineSnapshot, settings: Settings): KVCacheSnapshot {
  const { n, heads, dK } = pipeline;
  const kvChoices = kvHeadChoices(heads);
  const kvHeads = kvChoices.find((g) => g <= settings.lcKvHeads) ?? 1;
  const Q = grouped(pipeline, 'Q_heads', pipeline.heads);
  const multiHead = generate(engine, Q, grouped(pipeline, 'K_heads', heads), grouped(pipeline, 'V_heads', heads), heads, heads, dK);
  const [K, V] = [grouped(pipeline, 'K_heads', kvHeads), grouped(pipeline, 'V_heads', kvHeads)];
  const run = kvHeads === heads ? multiHead : generate(engine, Q, K, V, heads, kvHeads, dK);
  // Without a cache, token t recomputes causal attention over all t tokens: its cells grow like t².
  // Every t would cost n³ work on a long sentence (over 50 ms on the main thread at 256 tokens and 16
  // heads): the curve, and the comparison with the cache, stop at RECOMPUTE_CURVE_TOKENS.
  const recomputeCells: [number, number][] = [];
  let last: Matrix | null = null;
  const compared = Math.min(n, RECOMPUTE_CURVE_TOKENS);
  for (let t = 1; t <= compared; t++) {
    const prefix = (m: Matrix): Matrix => ({ rows: t, cols: m.cols, data: m.data.slice(0, t * m.cols) });
    const step = decodeRecompute(engine, prefix(Q), prefix(K), prefix(V), { heads, kvHeads });
    recomputeCells.push([t, step.cells]);
    last = step.output;
  }
  const cachedLast = row(run.outputs, compared - 1, heads);
  return {
    tokens: n,
    heads,
    dK,
    kvHeads,
    kvChoices,
    cachedCells: run.cells,
    recomputeCells,
    comparedToken: compared,
    recomputeDifference: outputDifference(cachedLast, last!).max,
    fromMultiHead: outputDifference(run.outputs, multiHead.outputs),
    bytesPerToken: run.bytesPerToken,
    multiHeadBytesPerToken: multiHead.bytesPerToken,
    models: PUBLIC_MODELS.map((model) => ({
      model,
      bytesPerToken: kvCacheBytesPerToken(engine, {
        layers: model.layers,
        kvHeads: model.kvHeads,
        dK: model.dK,
        bytesPerValue: SERVED_BYTES_PER_VALUE,
      }),
    })),
  };
}
