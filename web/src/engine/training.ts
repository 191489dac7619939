// The typed wrapper of the training core (cpp/train/, bound in cpp/bindings/training.cpp): create a
// seeded model or load a weights file, train it, measure it, and read what the page draws. Bad input
// becomes an EngineError with the C++ side's message; the trainer (and the engine) keep working
// afterwards. A Trainer holds memory in the wasm instance: dispose() it.
import { AttentionEngine, EngineError } from './engine';
import { EngineObject, type Result } from './engine-object';
import type { Matrix, RawEngineModule, Tensor3 } from './types';

export type TrainingTask = 'who-is-it' | 'induction';

export interface TrainingConfig {
  /** 'who-is-it' (default): the article's question; 'induction': repeated random segments, causal. */
  task?: TrainingTask;
  /** 1 to 4 (default 2). */
  layers?: number;
  /** 1 to 8, dividing dModel (default 2). */
  heads?: number;
  /** 4 to 128 (default 32). */
  dModel?: number;
  /** Pre-LayerNorm before attention (and MLP) and a final LayerNorm (default true). */
  layerNorm?: boolean;
  /** A ReLU MLP after each attention (default false). */
  mlp?: boolean;
  /** Scores scaled by 1/√d_k (default true). */
  scale?: boolean;
  /** 'task' (default: who-is-it bidirectional, induction causal), 'none' or 'causal'. */
  mask?: 'task' | 'none' | 'causal';
  optimizer?: 'adamw' | 'sgd';
  /** Above 0, at most 1 (default 0.003). */
  learningRate?: number;
  weightDecay?: number;
  /** SGD momentum, 0 to below 1 (default 0.9). */
  momentum?: number;
  /** Maximum global gradient norm, 0 = off (default 1). */
  clip?: number;
  /** 1 to 256 (default 32). */
  batch?: number;
  /** 0 to 2^32 - 1 (default 1): the same seed gives bit-identical weights in every build. */
  seed?: number;
}

export interface StepReport {
  /** Steps done in total. */
  step: number;
  /** The last step's training loss. */
  loss: number;
  /** Mean training loss over this call's steps. */
  meanLoss: number;
  /** The last step's global gradient norm, before clipping. */
  gradientNorm: number;
}

export interface Evaluation {
  /** Share of held-out loss positions whose most probable token is the target. */
  accuracy: number;
  loss: number;
  examples: number;
  positions: number;
}

export interface LayerAnalysis {
  /** (heads, n, n) attention weights. */
  attention: Tensor3;
  /** (n, dModel) what the layer's attention reads: the (post-LayerNorm) residual stream. */
  attentionInput: Matrix;
  /** (dModel, dModel): with attentionInput, the walkthrough's pipeline reproduces `attention`. */
  W_q: Matrix;
  W_k: Matrix;
  W_v: Matrix;
  W_o: Matrix;
}

export interface SentenceAnalysis {
  /** The words as the model reads them (lowercased, trailing punctuation stripped). */
  words: string[];
  ids: number[];
  /** 1 where the word is outside the trained vocabulary (it reads the <unk> embedding). */
  unknown: Uint8Array;
  /** The position whose prediction `top` is: "it" for who-is-it (else the last word). */
  query: number;
  top: { token: number; word: string; probability: number }[];
  layers: LayerAnalysis[];
}

export interface HeadShare {
  layer: number;
  head: number;
  /** Mean attention weight from "it" over the held-out set on the noun it refers to. */
  referent: number;
  otherNoun: number;
  adjective: number;
  self: number;
}

/**
 * One call of readHeldout: the examples read so far, or, after the last batch, what evaluate() and
 * headShares() give (cpp/train/trainer.h, read_heldout).
 */
export type HeldoutPart = { done: false; read: number; examples: number } | { done: true; evaluation: Evaluation; shares: HeadShare[] };

/**
 * What one head does, averaged over the held-out set: each score is a mean over the query rows
 * i < length that see at least two keys (causal: i >= 1) of one weight of that row (cpp/train/trainer.h,
 * HeadScores).
 */
export interface HeadScores {
  layer: number;
  head: number;
  /** Weight on the previous position, a[i][i-1]: a previous-token head is near 1. */
  previousToken: number;
  /**
   * Induction examples of period p >= 3, rows i >= p: total weight on the keys right after the earlier
   * copies of token i (j = i-p+1, i-2p+1, ... >= 1), which hold the token that comes next. An induction
   * head is near 1. 0 without such rows (who-is-it).
   */
  induction: number;
  /** The same on the latest copy only, a[i][i-p+1]: below `induction` when the head spreads over copies. */
  inductionLatest: number;
  /** a[i][i]. */
  self: number;
  /** a[i][0]. */
  first: number;
  /** -Σ_j a[i][j] ln a[i][j], in nats: 0 for one-hot rows, ln(keys seen) for uniform ones. */
  entropy: number;
}

export interface AttentionScores {
  /** Layer-major: layer 0's heads first. */
  heads: HeadScores[];
  /** Per layer, the mean entropy over its heads (nats). */
  layerEntropy: number[];
  /** The mean over every layer and head (nats). */
  entropy: number;
}

export interface TensorGradientNorm {
  /** The layout entry, e.g. "layer0.W_q". */
  name: string;
  /** L2 norm of that tensor's gradient at the last step, before clipping. */
  norm: number;
}

export interface ParameterEntry {
  name: string;
  offset: number;
  rows: number;
  cols: number;
}

export interface TrainerDescription {
  config: Required<TrainingConfig>;
  steps: number;
  parameterCount: number;
  causal: boolean;
  vocabulary: string[];
  layout: ParameterEntry[];
}

interface RawTrainer {
  configure(config: object): Result<{ parameterCount: number }>;
  load(bytes: Uint8Array): Result<{ parameterCount: number }>;
  step(steps: number): Result<StepReport>;
  evaluate(): Result<Evaluation>;
  analyze(words: string[], topK: number): Result<SentenceAnalysis>;
  headShares(): HeadShare[];
  readHeldout(batches: number): Result<HeldoutPart>;
  attentionScores(): Result<AttentionScores>;
  gradientNorms(): Result<TensorGradientNorm[]>;
  exportWeights(): Result<Uint8Array>;
  parameters(): Result<Float32Array>;
  describe(): Result<TrainerDescription>;
  delete(): void;
}
interface RawTrainingModule {
  Trainer: new () => RawTrainer;
}

const CONFIG_KEYS = new Set([
  'task',
  'layers',
  'heads',
  'dModel',
  'layerNorm',
  'mlp',
  'scale',
  'mask',
  'optimizer',
  'learningRate',
  'weightDecay',
  'momentum',
  'clip',
  'batch',
  'seed',
]);

export class Trainer extends EngineObject<RawTrainer> {
  private constructor(engine: AttentionEngine, instance: RawEngineModule, handle: RawTrainer) {
    super(engine, instance, handle, { className: 'Trainer', words: 'trainer', remake: 'create it again' });
  }

  /** A fresh model, initialised from config.seed. */
  static create(engine: AttentionEngine, config: TrainingConfig = {}): Trainer {
    if (typeof config !== 'object' || config === null) throw new EngineError('the training configuration must be an object');
    const unknown = Object.keys(config).filter((key) => !CONFIG_KEYS.has(key));
    if (unknown.length) throw new EngineError(`unknown training setting "${unknown[0]}"`);
    return Trainer.make(engine, 'Trainer.create', (handle) => handle.configure({ ...config }));
  }

  /** A model from a weights file (e.g. web/src/model/who-is-it.bin). */
  static fromWeights(engine: AttentionEngine, bytes: Uint8Array): Trainer {
    if (!(bytes instanceof Uint8Array)) throw new EngineError('the weights must be a Uint8Array');
    return Trainer.make(engine, 'Trainer.fromWeights', (handle) => handle.load(bytes));
  }

  private static make(engine: AttentionEngine, name: string, init: (handle: RawTrainer) => Result<object>): Trainer {
    return EngineObject.made(
      engine,
      'core',
      name,
      (instance) => new (instance as unknown as RawTrainingModule).Trainer(),
      init,
      (instance, handle) => new Trainer(engine, instance, handle),
    );
  }

  /** Trains `steps` more steps (1 to 10000 per call). */
  step(steps = 1): StepReport {
    if (!Number.isInteger(steps)) throw new EngineError(`steps must be a whole number (got ${String(steps)})`);
    return this.call('step', (h) => h.step(steps));
  }

  /** Accuracy and loss on the task's held-out set (who-is-it: combinations never trained on). */
  evaluate(): Evaluation {
    return this.call('evaluate', (h) => h.evaluate());
  }

  /** Every layer's and head's attention for one sentence, and the prediction at "it". */
  analyze(words: readonly string[], topK = 5): SentenceAnalysis {
    if (!Array.isArray(words) || !words.every((w) => typeof w === 'string')) throw new EngineError('the words must be an array of strings');
    if (!Number.isInteger(topK) || topK < 1) throw new EngineError(`topK must be a whole number of at least 1 (got ${String(topK)})`);
    return this.call('analyze', (h) => h.analyze([...words], topK));
  }

  /** Per layer and head: mean weight from "it" on the referent, the other noun, the adjective, itself (who-is-it). */
  headShares(): HeadShare[] {
    return this.call('headShares', (h) => h.headShares());
  }

  /**
   * evaluate() and headShares() in one pass over the held-out set, `batches` batches of 64 examples per
   * call: call again until `done` (a step or another model starts the pass over). For a caller that
   * must not hold the main thread for the whole pass (the page reads the shipped model a task at a time).
   */
  readHeldout(batches: number): HeldoutPart {
    if (!Number.isInteger(batches) || batches < 1)
      throw new EngineError(`batches must be a whole number of at least 1 (got ${String(batches)})`);
    return this.call('readHeldout', (h) => h.readHeldout(batches));
  }

  /** Per layer and head: previous-token, induction, self and first-position weight and entropy (held-out set). */
  attentionScores(): AttentionScores {
    return this.call('attentionScores', (h) => h.attentionScores());
  }

  /**
   * Each tensor's gradient norm at the last step, before clipping, in describe().layout order; [] before
   * the first step. Step s's gradient is taken at the weights after s - 1 steps: after step(1), those of
   * the initial model.
   */
  gradientNorms(): TensorGradientNorm[] {
    return this.call('gradientNorms', (h) => h.gradientNorms());
  }

  /** |∂loss/∂W_q| per layer at the last step, before clipping ([] before the first step). */
  queryGradientNorms(): number[] {
    return this.gradientNorms()
      .filter((g) => /^layer\d+\.W_q$/.test(g.name))
      .map((g) => g.norm);
  }

  exportWeights(): Uint8Array {
    return this.call('exportWeights', (h) => h.exportWeights());
  }

  /** The flat parameter buffer, in describe().layout order. */
  parameters(): Float32Array {
    return this.call('parameters', (h) => h.parameters());
  }

  describe(): TrainerDescription {
    return this.call('describe', (h) => h.describe());
  }
}
