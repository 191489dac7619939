// The trained model in the walkthrough (weights=trained): one Trainer per engine, loaded from the
// shipped weights file, and what a snapshot needs from it for one sentence. Called only from
// compute.ts, the walkthrough's one caller of the engine; steps read the TrainedSnapshot it returns.
import { EngineError, type AttentionEngine } from '../../engine/engine';
import { TRAINING_LIMITS } from '../../engine/limits';
import { Trainer, type Evaluation, type HeadShare, type TrainerDescription } from '../../engine/training';
import type { Matrix, Tensor3 } from '../../engine/types';
import { loadShippedWeights, SHIPPED_MODEL, type ShippedModelRecord } from '../../model/shipped';
import { nextTask } from '../../next-task';
import type { Settings } from '../../settings';
import type { StepDefinition } from '../../steps/types';

/** How many most probable words the prediction at "it" lists. */
export const PREDICTION_TOP = 5;

/** A head of the trained model, both counted from 0 (the page says "layer layer+1, head head+1"). */
export interface HeadRef {
  layer: number;
  head: number;
}

/** What the trained model does with the reader's sentence, plus what is measured once per model. */
export interface TrainedSnapshot {
  /** The words the model read, as it read them (lowercased, trailing punctuation stripped). */
  words: string[];
  /** true where a word is outside the trained vocabulary: it reads the unknown-word embedding. */
  unknown: boolean[];
  /** The sentence had more words than the model has positions: it (and the walkthrough) read the first `positions`. */
  cut: { words: number; positions: number } | null;
  /** The position whose prediction `top` is: "it" (else the last word). */
  query: number;
  /** The model's most probable words at `query`, most probable first. */
  top: { word: string; probability: number }[];
  /** Per layer, (heads, n, n) attention weights: row i is what word i reads. */
  attention: Tensor3[];
  /** Per layer and head, mean weight from "it" over the held-out sentences. */
  shares: HeadShare[];
  /** The head with the largest referent share: the one that resolves "it". The walkthrough's pipeline runs its layer. */
  resolving: HeadRef;
  /** Measured now by the engine on the held-out set (combinations never trained on). */
  evaluation: Evaluation;
  /** The loaded model's configuration, step count, parameter count, vocabulary size and position limit (engine's describe()). */
  model: {
    task: string;
    layers: number;
    heads: number;
    dModel: number;
    parameters: number;
    steps: number;
    vocabularySize: number;
    maxPositions: number;
  };
  /** How the weights were trained: the shipped record (web/src/model/who-is-it.json), or the reader's run. */
  record: Readonly<ShippedModelRecord>;
  /** 'shipped': the page's own model; 'reader': one the reader trained in "Train it yourself". */
  origin: TrainedOrigin;
}

export type TrainedOrigin = 'shipped' | 'reader';

/** A model to show instead of the shipped one: its weights file and how it was trained. */
export interface ReaderModel {
  bytes: Uint8Array;
  record: ShippedModelRecord;
  /** Whether it was trained with scores divided by √d_k: the walkthrough then computes its attention the same way. */
  scale: boolean;
}

/** The resolving layer's attention input and projections: the walkthrough's pipeline with these reproduces its attention. */
export interface TrainedPipelineInput {
  tokens: number;
  dModel: number;
  heads: number;
  X: Matrix;
  W_q: Matrix;
  W_k: Matrix;
  W_v: Matrix;
  W_o: Matrix;
}

interface LoadedModel {
  trainer: Trainer;
  /** engine.restarts when the trainer was made: a restarted instance needs a new one. */
  restarts: number;
  description: TrainerDescription;
  evaluation: Evaluation;
  shares: HeadShare[];
  resolving: HeadRef;
}

interface Entry {
  bytes: Uint8Array;
  record: Readonly<ShippedModelRecord>;
  origin: TrainedOrigin;
  loaded: LoadedModel | null;
}

const entries = new WeakMap<AttentionEngine, Entry>();

/**
 * Gives an engine the weights file (the shipped one, or a reader's model with its record); the Trainer
 * is made from it on first use (and again after a restart).
 */
export function provideTrainedWeights(engine: AttentionEngine, bytes: Uint8Array, reader?: ReaderModel['record']): void {
  const entry = entries.get(engine);
  if (entry && entry.bytes === bytes) return;
  entry?.loaded?.trainer.dispose();
  entries.set(engine, { bytes, record: reader ?? SHIPPED_MODEL, origin: reader ? 'reader' : 'shipped', loaded: null });
}

/** Which model an engine's trained weights are (null before any). */
export function trainedOrigin(engine: AttentionEngine): TrainedOrigin | null {
  return entries.get(engine)?.origin ?? null;
}

export function hasTrainedWeights(engine: AttentionEngine): boolean {
  return entries.has(engine);
}

/**
 * Whether a view of these steps with these weights shows the trained model, and so needs its weights
 * file (44 KiB gzipped, fetched only then): with trained weights every step but a training run of its
 * own; with the article's example, the steps from multi-head on (`numbers: 'sentence'`: compute.ts shows
 * the trained model there). Step 1 shows its reader model instead, and steps 2-7 with the example or
 * random weights never fetch it. The walkthrough asks with the steps drawn so far (a lazy step counts
 * from its first drawing), the element with those drawn at its start.
 */
export function needsTrainedWeights(weights: Settings['weights'], steps: readonly Pick<StepDefinition, 'numbers'>[]): boolean {
  if (weights === 'random') return false;
  return steps.some((step) => step.numbers !== 'own' && (weights === 'trained' || step.numbers === 'sentence'));
}

/** The head that puts the most weight from "it" on the noun it refers to. */
export function resolvingHead(shares: readonly HeadShare[]): HeadRef {
  const best = shares.reduce((a, b) => (b.referent > a.referent ? b : a));
  return { layer: best.layer, head: best.head };
}

function loadedModel(engine: AttentionEngine): LoadedModel {
  const entry = entries.get(engine);
  if (!entry) throw new EngineError('the trained weights are not loaded yet, so only random weights can be shown');
  if (entry.loaded && entry.loaded.restarts === engine.restarts) return entry.loaded;
  // After a restart the old trainer's memory went with the old instance: nothing to free.
  const trainer = Trainer.fromWeights(engine, entry.bytes);
  const reading = heldoutReading(trainer);
  let piece = reading.next();
  while (!piece.done) piece = reading.next();
  entry.loaded = loadedModelOf(engine, trainer, piece.value);
  return entry.loaded;
}

/** Held-out accuracy and head shares are fixed for fixed weights: measured once per trainer. */
export interface HeldoutMeasures {
  shares: HeadShare[];
  evaluation: Evaluation;
}

function loadedModelOf(engine: AttentionEngine, trainer: Trainer, { shares, evaluation }: HeldoutMeasures): LoadedModel {
  return { trainer, restarts: engine.restarts, description: trainer.describe(), evaluation, shares, resolving: resolvingHead(shares) };
}

/**
 * How long one piece of the held-out reading may hold the main thread. A batch of the held-out set
 * takes ~3 ms on a fast machine and ~13 ms at a phone's 4× slower CPU; both passes whole were 140-190
 * ms tasks there (tests/bench/page-walk.ts).
 */
const PIECE_MS = 20;

/**
 * The held-out set read once for both measures (Trainer.readHeldout), a batch at a time: a `yield`
 * wherever a caller may let the page paint and take input, once a piece has taken `pieceMs`.
 */
export function* heldoutReading(trainer: Trainer, pieceMs = PIECE_MS): Generator<void, HeldoutMeasures> {
  let pieceStart = performance.now();
  for (;;) {
    const part = trainer.readHeldout(1);
    if (part.done) return { shares: part.shares, evaluation: part.evaluation };
    if (performance.now() - pieceStart >= pieceMs) {
      yield;
      pieceStart = performance.now();
    }
  }
}

const inNextTask = () => new Promise<void>((resolve) => nextTask(resolve));

/**
 * Reads the model ahead of the first computation that needs it, in pieces of a task each (reading the
 * weights, then heldoutReading's pieces), so that the page takes input and paints in between. Whatever
 * goes wrong here goes wrong again, with its message, in the computation (loadedModel).
 */
async function readModelInPieces(engine: AttentionEngine): Promise<void> {
  const entry = entries.get(engine);
  if (!entry || (entry.loaded && entry.loaded.restarts === engine.restarts)) return;
  const restarts = engine.restarts;
  const trainer = Trainer.fromWeights(engine, entry.bytes);
  let kept = false;
  try {
    const reading = heldoutReading(trainer);
    let piece: IteratorResult<void, HeldoutMeasures>;
    do {
      await inNextTask();
      // Meanwhile a computation may have read the model itself, other weights may have come, or the
      // engine may have restarted: then this reading is not needed.
      if (entries.get(engine) !== entry || (entry.loaded && entry.loaded.restarts === restarts) || engine.restarts !== restarts) return;
      piece = reading.next();
    } while (!piece.done);
    entry.loaded = loadedModelOf(engine, trainer, piece.value);
    kept = true;
  } finally {
    // After a restart the trainer's memory went with the old instance: nothing to free.
    if (!kept && engine.restarts === restarts) trainer.dispose();
  }
}

/**
 * The trained model on the first maxPositions tokens of the sentence: every layer's attention, the
 * prediction at "it", unknown words; and the resolving layer's input and W_* for the pipeline.
 */
export function trainedSentence(
  engine: AttentionEngine,
  tokens: readonly string[],
): { trained: TrainedSnapshot; input: TrainedPipelineInput } {
  const model = loadedModel(engine);
  const entry = entries.get(engine)!;
  const { config, steps, parameterCount, vocabulary } = model.description;
  const read = tokens.slice(0, TRAINING_LIMITS.maxPositions);
  const analysis = model.trainer.analyze(read, PREDICTION_TOP);
  const layer = analysis.layers[model.resolving.layer];
  return {
    trained: {
      words: analysis.words,
      unknown: Array.from(analysis.unknown, (flag) => flag === 1),
      cut: tokens.length > read.length ? { words: tokens.length, positions: read.length } : null,
      query: analysis.query,
      top: analysis.top.map(({ word, probability }) => ({ word, probability })),
      attention: analysis.layers.map((l) => l.attention),
      shares: model.shares,
      resolving: model.resolving,
      evaluation: model.evaluation,
      model: {
        task: config.task,
        layers: config.layers,
        heads: config.heads,
        dModel: config.dModel,
        parameters: parameterCount,
        steps,
        vocabularySize: vocabulary.length,
        maxPositions: TRAINING_LIMITS.maxPositions,
      },
      record: entry.record,
      origin: entry.origin,
    },
    input: {
      tokens: read.length,
      dModel: config.dModel,
      heads: config.heads,
      X: layer.attentionInput,
      W_q: layer.W_q,
      W_k: layer.W_k,
      W_v: layer.W_v,
      W_o: layer.W_o,
    },
  };
}

/**
 * Downloads the shipped weights (once per page) and gives them to the engine. A failed download is
 * not fatal: the walkthrough still runs with random weights, and the message says why.
 */
export async function loadTrainedWeights(engine: AttentionEngine): Promise<{ failure: string | null }> {
  try {
    if (!hasTrainedWeights(engine)) provideTrainedWeights(engine, await loadShippedWeights());
  } catch (error) {
    return { failure: error instanceof Error ? error.message : String(error) };
  }
  await readModelInPieces(engine).catch(() => {});
  return { failure: null };
}
