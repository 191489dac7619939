// Type declarations of the published package `attention-by-hand`: the element bundle
// dist/embed/attention-by-hand.js (web/src/elements/index.ts). Hand-written, because the bundle is one
// self-contained script and its users need only the element API, not the walkthrough's internals.
// vite.embed.config.ts copies this file next to the bundle; package.json points `types` at the copy.
//
// Kept in step with the code: tests/unit/package.test.ts checks at compile time (`tsc -p .`) that every
// type here and its counterpart in web/src (engine/types.ts, settings.ts, snapshot.ts, elements/) are
// mutually assignable, and type-checks a consumer of the packed package against every tag in registry.ts.

// ---------------------------------------------------------------------------------------------------
// Numbers: row-major float32, copied out of wasm memory (valid forever, nothing to free).

/** A (rows, cols) matrix: data[r * cols + c]. */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float32Array;
}

/** A stack of (rows, cols) matrices, e.g. per-head weights (h, n, n): data[(h * rows + r) * cols + c]. */
export interface Tensor3 {
  heads: number;
  rows: number;
  cols: number;
  data: Float32Array;
}

/** (rows, cols) of 0/1: 1 = the query row may attend to the key column. */
export interface MaskMatrix {
  rows: number;
  cols: number;
  data: Uint8Array;
}

/**
 * Every intermediate of softmax(Q Kᵀ / √d_k) V for the element's settings. Read-only: a tensor that a
 * change left bit for bit the same may be the previous result's array, shared rather than copied.
 */
export interface PipelineSnapshot {
  /** Number of tokens. */
  n: number;
  dModel: number;
  heads: number;
  /** d_model / heads. */
  dK: number;
  /** 1/√d_k, or 1 with scaling off. */
  scaleFactor: number;
  /** (n, d_model) token embeddings. */
  X: Matrix;
  /** (d_model, d_model) projections. */
  W_q: Matrix;
  W_k: Matrix;
  W_v: Matrix;
  W_o: Matrix;
  /** (n, d_model) X W_q, X W_k, X W_v. */
  Q: Matrix;
  K: Matrix;
  V: Matrix;
  /** (h, n, d_k) Q, K, V split into heads. */
  Q_heads: Tensor3;
  K_heads: Tensor3;
  V_heads: Tensor3;
  /** (h, n, n) raw Q Kᵀ per head. */
  scores: Tensor3;
  /** (h, n, n) scores times scaleFactor, before the mask. */
  scoresScaled: Tensor3;
  /** (n, n) the mask in force (all ones without one). */
  mask: MaskMatrix;
  /** (h, n, n) attention weights: softmax of the masked, scaled scores. */
  weights: Tensor3;
  /** (n) 1 where every key was blocked: that row's weights are all 0. */
  fullyMaskedRows: Uint8Array;
  /** (h, n, d_k) weights × V per head. */
  headOutputs: Tensor3;
  /** (n, d_model) the heads concatenated. */
  merged: Matrix;
  /** (n, d_model) merged W_o: the layer's output. */
  output: Matrix;
  /** The head the three comparison tables below are for: the shown head (`config.head`). */
  comparisonHead: number;
  /** (n, n) the same mask without 1/√d_k, head `comparisonHead`. */
  weightsUnscaled: Matrix;
  /** (n, n) with the causal mask applied before softmax, head `comparisonHead`. */
  weightsCausal: Matrix;
  /** (n, n) softmax first, then zeroed above the diagonal: the wrong way round, head `comparisonHead`. */
  weightsMaskedAfter: Matrix;
}

/** The scaling experiment: dot products of random unit-normal vectors, raw and divided by √d_k. */
export interface DotProductSamples {
  dK: number;
  raw: Float32Array;
  scaled: Float32Array;
  rawStd: number;
  scaledStd: number;
}

export interface SoftmaxSaturation {
  probabilities: Float32Array;
  /** Frobenius norm of the softmax Jacobian diag(p) − p pᵀ: how much gradient still flows. */
  jacobianNorm: number;
}

/**
 * One (query block, key block) step of the tiled (FlashAttention-2 style) kernel, values after the step.
 * The tile covers query rows [queryStart, queryEnd) and keys [keyStart, keyEnd).
 */
export interface FlashTraceStep {
  queryBlock: number;
  keyBlock: number;
  queryStart: number;
  queryEnd: number;
  keyStart: number;
  keyEnd: number;
  /** Causal, and every key of the block is after every query row of the block: nothing was computed. */
  skipped: boolean;
  /** (rows, cols) Q_b K_cᵀ × scaleFactor; −Infinity where masked. */
  scores: Matrix;
  /** (rows, cols) exp(score − m) with the new running max m; 0 where masked. Not normalised. */
  probabilities: Matrix;
  /** (rows) running max of each query row's scores so far. */
  m: Float32Array;
  /** (rows) running sum of exp(score − m) so far. */
  l: Float32Array;
  /** (rows) exp(m_old − m_new), the factor l and acc were multiplied by. */
  rescale: Float32Array;
  /** (rows, d_v) unnormalised output accumulator; after the last key block, acc / l is the output. */
  acc: Matrix;
}

/** Every step of the tiled kernel on a small input. */
export interface FlashTrace {
  nQ: number;
  nK: number;
  dK: number;
  dV: number;
  blockQ: number;
  blockK: number;
  queryBlocks: number;
  keyBlocks: number;
  causal: boolean;
  scaleFactor: number;
  /** queryBlocks × keyBlocks steps, query block outer: steps[qb * keyBlocks + kb]. */
  steps: FlashTraceStep[];
  /** (n_q, d_v) the tiled kernel's output. */
  output: Matrix;
}

/** The FlashAttention step's trace of the shown head. */
export interface FlashSnapshot {
  /** Tokens traced: the first min(n, 16). */
  tokens: number;
  /** Every (query block, key block) step; null when the trace could not be made (see `unavailable`). */
  trace: FlashTrace | null;
  /** Why there is no trace, in words for the reader. */
  unavailable: string | null;
  /** The naive attention() output on the traced tokens when it is not simply rows of pipeline.headOutputs. */
  prefixNaive: Matrix | null;
}

// ---------------------------------------------------------------------------------------------------
// The element API.

/**
 * An element's settings after validation (the `config` property, the `attention-change` event). Attributes
 * and URL parameters are validated into these; out-of-range values are clamped and the element says so.
 */
export interface AttentionConfig {
  /** The sentence; one token per whitespace-separated word (attribute `tokens`). */
  sentence: string;
  /** Model dimension, 1–512 (attribute `d-model`). */
  dModel: number;
  /** Number of heads, a divisor of dModel up to 64 (attribute `heads`). */
  heads: number;
  /** Causal mask (attribute `causal`). */
  causal: boolean;
  /** Divide scores by √d_k (attribute `scale`). */
  scale: boolean;
  /** Which random weights, 0 .. 2³² − 1 (attribute `seed`). */
  seed: number;
  /** Which head single-head figures show, counted from 0 here (attribute `head` counts from 1). */
  head: number;
  /** Rows per tile in the FlashAttention step, 1–16 (attribute `block`). */
  block: number;
  /** Edited numbers, canonical "X.3.2:0.5,Wq.1.4:-0.25"; '' when none (attribute `edits`). */
  edits: string;
  /** A custom mask: "none", "pad:k", "window:w", "prefix:p" or "paint:…" (attribute `mask`). */
  mask: string;
  /**
   * 'trained' (default): the shipped trained model's X and W_*, at its d_model and h (dModel and heads
   * above then wait for random mode); 'random': seeded as the article's np.random.randn (attribute `weights`).
   */
  weights: 'trained' | 'random';
}

/** Mean attention weight from "it" over the trained model's held-out sentences, for one layer and head (0-based). */
export interface TrainedHeadShare {
  layer: number;
  head: number;
  /** On the noun "it" refers to. */
  referent: number;
  otherNoun: number;
  adjective: number;
  self: number;
}

/** Held-out accuracy and loss, measured by the engine. */
export interface TrainedEvaluation {
  accuracy: number;
  loss: number;
  examples: number;
  positions: number;
}

/** The record written when the shipped weights were trained (`npm run train:weights`). */
export interface ShippedModelRecord {
  task: string;
  layers: number;
  heads: number;
  dModel: number;
  parameters: number;
  optimizer: string;
  learningRate: number;
  batch: number;
  seed: number;
  steps: number;
  heldoutExamples: number;
  heldoutAccuracy: number;
  heldoutLoss: number;
  firstFullAccuracyStep: number;
  evaluatedEvery: number;
  bytes: number;
}

/** What the trained model does with the sentence (`result.trained`, weights = 'trained'). */
export interface TrainedSnapshot {
  /** The words as the model read them (lowercased, trailing punctuation stripped). */
  words: string[];
  /** true where a word is outside the trained vocabulary (it reads the unknown-word embedding). */
  unknown: boolean[];
  /** Set when the sentence had more words than the model's positions: everything reads the first `positions`. */
  cut: { words: number; positions: number } | null;
  /** The position whose prediction `top` is: "it" (else the last word). */
  query: number;
  /** The model's most probable words at `query`. */
  top: { word: string; probability: number }[];
  /** Per layer, (heads, n, n) attention weights. */
  attention: Tensor3[];
  shares: TrainedHeadShare[];
  /** The head with the largest referent share (0-based); `pipeline` is its layer. */
  resolving: { layer: number; head: number };
  evaluation: TrainedEvaluation;
  model: { task: string; layers: number; heads: number; dModel: number; parameters: number; steps: number; vocabularySize: number; maxPositions: number };
  record: Readonly<ShippedModelRecord>;
}

/** The numbers an element shows (the `result` property): plain data, treat as read-only. */
export interface AttentionSnapshot {
  settings: AttentionConfig;
  /** Tokens as written (labels); the engine saw them lowercased. */
  tokens: string[];
  pipeline: PipelineSnapshot;
  /** The variance experiment at the current d_k (the scaling step). */
  dots: DotProductSamples;
  /** softmax of the row [1, 2, 3], unscaled and times factor = √d_k (the scaling step). */
  saturation: { row: Float32Array; soft: SoftmaxSaturation; sharp: SoftmaxSaturation; factor: number };
  /** Whether the engine runs its SIMD kernels. */
  simd: boolean;
  /** The tiled kernel, tile by tile, on the shown head (the FlashAttention step). */
  flash: FlashSnapshot;
  /** The same settings without the edits (seeded X and W) when there are edits; null otherwise. */
  baseline: PipelineSnapshot | null;
  /** With weights 'trained': the trained model's attention (per layer, per head), prediction and measurements; null with random weights. */
  trained: TrainedSnapshot | null;
}

/** `event.detail` of `attention-change`, fired (bubbling, composed) after each computation. */
export interface AttentionChangeDetail {
  config: AttentionConfig;
  result: AttentionSnapshot;
}

/** `event.detail` of `attention-error`, fired (bubbling, composed) when the engine could not start. */
export interface AttentionErrorDetail {
  message: string;
}

export type AttentionChangeEvent = CustomEvent<AttentionChangeDetail>;
export type AttentionErrorEvent = CustomEvent<AttentionErrorDetail>;

export interface AttentionElementEventMap extends HTMLElementEventMap {
  'attention-change': AttentionChangeEvent;
  'attention-error': AttentionErrorEvent;
}

/**
 * The base of every element. Configured by attributes (see AttentionElementAttributes); starts when it
 * nears the viewport; all elements on a page share one engine (one .wasm download).
 */
export declare abstract class AttentionElement extends HTMLElement {
  static get observedAttributes(): string[];
  /** The validated settings the element shows (a copy); null until the element has started. */
  get config(): AttentionConfig | null;
  /** The numbers the element shows; null until the first computation. */
  get result(): AttentionSnapshot | null;
  /** Scrolls to a step by id (hash links cannot see into the shadow root); false if there is none. */
  scrollToStep(id: string): boolean;
  connectedCallback(): void;
  disconnectedCallback(): void;
  attributeChangedCallback(name: string, oldValue: string | null, newValue: string | null): void;
  addEventListener<K extends keyof AttentionElementEventMap>(type: K, listener: (this: this, event: AttentionElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof AttentionElementEventMap>(type: K, listener: (this: this, event: AttentionElementEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

/** <attention-walkthrough>: every step, with a table of contents. */
export declare class AttentionWalkthroughElement extends AttentionElement {}

/** <attention-problem>: step 1, the problem attention solves. */
export interface AttentionProblemElement extends AttentionElement {}
/** <attention-qkv>: step 2, queries, keys and values (X W_q, X W_k, X W_v). */
export interface AttentionQkvElement extends AttentionElement {}
/** <attention-scores>: step 3, the score matrix Q Kᵀ. */
export interface AttentionScoresElement extends AttentionElement {}
/** <attention-scaling>: step 4, dividing by √d_k. */
export interface AttentionScalingElement extends AttentionElement {}
/** <attention-softmax>: step 5, softmax over each row. */
export interface AttentionSoftmaxElement extends AttentionElement {}
/** <attention-weighted-sum>: step 6, weights × V. */
export interface AttentionWeightedSumElement extends AttentionElement {}
/** <attention-mask>: step 7, causal and custom masks. */
export interface AttentionMaskElement extends AttentionElement {}
/** <attention-heads>: step 8, multi-head attention. */
export interface AttentionHeadsElement extends AttentionElement {}
/** <attention-cost>: step 9, the quadratic cost. */
export interface AttentionCostElement extends AttentionElement {}
/** <attention-flash>: step 10, FlashAttention's tiles and online softmax. */
export interface AttentionFlashElement extends AttentionElement {}
/** <attention-faq>: questions and answers. */
export interface AttentionFaqElement extends AttentionElement {}

/** Tag name → element type, for every element the bundle defines. */
export interface AttentionElementTagNameMap {
  'attention-walkthrough': AttentionWalkthroughElement;
  'attention-problem': AttentionProblemElement;
  'attention-qkv': AttentionQkvElement;
  'attention-scores': AttentionScoresElement;
  'attention-scaling': AttentionScalingElement;
  'attention-softmax': AttentionSoftmaxElement;
  'attention-weighted-sum': AttentionWeightedSumElement;
  'attention-mask': AttentionMaskElement;
  'attention-heads': AttentionHeadsElement;
  'attention-cost': AttentionCostElement;
  'attention-flash': AttentionFlashElement;
  'attention-faq': AttentionFaqElement;
}

/** Step id → the tag of the element that shows that step alone. */
export declare const STEP_ELEMENTS: Readonly<{
  problem: 'attention-problem';
  qkv: 'attention-qkv';
  scores: 'attention-scores';
  scale: 'attention-scaling';
  softmax: 'attention-softmax';
  'weighted-sum': 'attention-weighted-sum';
  causal: 'attention-mask';
  'multi-head': 'attention-heads';
  cost: 'attention-cost';
  flash: 'attention-flash';
  faq: 'attention-faq';
}>;

export declare const WALKTHROUGH_ELEMENT: 'attention-walkthrough';

/**
 * Defines every element in `registry` (tags already defined there are left alone). Importing the bundle
 * already does this for the global `customElements`; call it for a scoped registry.
 */
export declare function defineElements(registry?: CustomElementRegistry): void;

// ---------------------------------------------------------------------------------------------------
// Attributes, for JSX and other templates. Values are the URL parameters' (README, "The page's URL").

/** An on/off attribute: present (or "", "1", "true", "on", "yes") is on; "0", "false", "off", "no" is off. */
export type AttentionFlag = boolean | '' | '1' | '0' | 'true' | 'false' | 'on' | 'off' | 'yes' | 'no';

export interface AttentionElementAttributes {
  /** The sentence, one token per word: up to 2000 characters, 128 words. */
  tokens?: string;
  /** Model dimension, 1–512. */
  'd-model'?: number | string;
  /** Number of heads: a divisor of d-model, up to 64. */
  heads?: number | string;
  /** Which head single-head figures show, from 1. */
  head?: number | string;
  causal?: AttentionFlag;
  /** Divide by √d_k (default on). */
  scale?: AttentionFlag;
  /** Which random weights, 0–4294967295. */
  seed?: number | string;
  /** Rows per tile in the FlashAttention step, 1–16. */
  block?: number | string;
  /** Edited numbers: "X.3.2:0.5,Wq.1.4:-0.25" (small examples only). */
  edits?: string;
  /** "causal", "pad:k", "window:w", "prefix:p" or "paint:…"; replaces causal. */
  mask?: string;
  /** "trained" (default: the shipped trained model) or "random" (seeded weights). */
  weights?: 'trained' | 'random';
  /** Which controls to show: "all" (default), "none" or a space-separated list such as "tokens heads causal". */
  controls?: string;
  /** Colours; without it the reader's colour scheme is followed. */
  theme?: 'light' | 'dark';
}

export interface AttentionWalkthroughAttributes extends AttentionElementAttributes {
  /** Keep the settings in the page's URL instead of attributes (the main page does). */
  'sync-url'?: boolean | '';
  /** Add a "Copy embed code" button to every section. */
  'embed-code'?: boolean | '';
}

/** JSX props of an element: its attributes plus the common ones. */
export type AttentionJSXProps<E extends AttentionElement, A = AttentionElementAttributes> = A & {
  id?: string;
  class?: string;
  className?: string;
  slot?: string;
  part?: string;
  hidden?: boolean;
  title?: string;
  lang?: string;
  dir?: string;
  style?: unknown;
  key?: string | number | null;
  ref?: ((element: E | null) => unknown) | { current: E | null } | null;
  children?: unknown;
  [data: `data-${string}`]: string | number | boolean | undefined;
  [aria: `aria-${string}`]: string | number | boolean | undefined;
};

/**
 * JSX typings of every element. Merged into the global JSX namespace below (React ≤ 18 types, Preact's
 * and others' global JSX). With React 19's types, add once in a .d.ts of your project:
 *
 *     import type { AttentionIntrinsicElements } from 'attention-by-hand';
 *     declare module 'react' {
 *       namespace JSX { interface IntrinsicElements extends AttentionIntrinsicElements {} }
 *     }
 */
export type AttentionIntrinsicElements = {
  [Tag in keyof AttentionElementTagNameMap]: AttentionJSXProps<AttentionElementTagNameMap[Tag],
    Tag extends 'attention-walkthrough' ? AttentionWalkthroughAttributes : AttentionElementAttributes>;
};

declare global {
  interface HTMLElementTagNameMap extends AttentionElementTagNameMap {}
  interface HTMLElementEventMap {
    'attention-change': AttentionChangeEvent;
    'attention-error': AttentionErrorEvent;
  }
  interface DocumentEventMap {
    'attention-change': AttentionChangeEvent;
    'attention-error': AttentionErrorEvent;
  }
  namespace JSX {
    interface IntrinsicElements extends AttentionIntrinsicElements {}
  }
}
