// Step 1's reader models on an engine: the bidirectional one and the one trained with the causal mask,
// each loaded only when asked (step 1 near the viewport), and read for a sentence by compute.ts, the
// walkthrough's one caller of the engine. The head that resolves pronouns comes with each model's
// record: the trainer measured it on generated held-out sentences. The records travel with the weights
// (model/reader.ts is imported when a model is first asked for), not in the page's live code.
import type { AttentionEngine } from '../../engine/engine';
import { ReaderModel, type ReaderModelDescription } from '../../engine/reader';
import type { Tensor3 } from '../../engine/types';
import type { ReaderModelRecord } from '../../model/reader';
import { readAnswer, readFlips, type ReaderReading } from './answer';

/** What step 1 shows of the reader model for the sentence: `result.reader`. */
export type ReaderView = { status: 'loading'; causal: boolean } | { status: 'failed'; causal: boolean; message: string } | ReaderSnapshot;

export interface ReaderSnapshot extends Omit<ReaderReading, 'raw'> {
  status: 'ready';
  causal: boolean;
  /** The words as the model read them (positions of `answer`, `candidates`, `flips` index these). */
  words: string[];
  unknown: boolean[];
  /** Each word outside the vocabulary read through the alias table: the known word it was read as and the WordNet relation; null elsewhere. */
  aliases: ({ readAs: string; relation: string } | null)[];
  /** The queries' pointer rows (queries, n) and which positions they are. */
  queries: number[];
  pointer: Float32Array;
  /** Per layer, (heads, n, n). */
  attention: Tensor3[];
  /** The sentence was longer than the model reads: the first `positions` words were read. */
  cut: { words: number; positions: number } | null;
  /** The head that resolves pronouns and its mean share on the antecedent (the record's, measured by the trainer). */
  head: ReaderModelRecord['resolvingHead'];
  model: ReaderModelDescription;
  record: Readonly<ReaderModelRecord>;
}

interface Loaded {
  model: ReaderModel;
  restarts: number;
  description: ReaderModelDescription;
  head: ReaderSnapshot['head'];
  /** The last sentence read and its reading: a settings change that keeps the sentence (a slider, a head) reuses it. */
  last: { key: string; reading: ReaderReading } | null;
}

/**
 * When a reading finds its flips (one forward pass per word, about 30 ms at 40 words): 'later' leaves
 * them null in the first view, for the scheduler to complete after the answer is painted (the page's
 * downloaded models); 'at once' finds them in the same view (a model given by a tool or a test).
 */
export type FlipsTiming = 'at once' | 'later';

interface Slot {
  bytes: Uint8Array | null;
  /** The model's record (web/src/model/reader*.json), which comes with its bytes. */
  record: Readonly<ReaderModelRecord> | null;
  /** The alias table read with the model (null: none, every unknown word reads as unknown). */
  aliases: Uint8Array | null;
  flips: FlipsTiming;
  failure: string | null;
  loaded: Loaded | null;
  pending: Promise<void> | null;
}

const slots = new WeakMap<AttentionEngine, Record<'bidirectional' | 'causal', Slot>>();

const kindOf = (causal: boolean) => (causal ? 'causal' : 'bidirectional');

function slotOf(engine: AttentionEngine, causal: boolean): Slot {
  let pair = slots.get(engine);
  if (!pair) {
    const empty = (): Slot => ({ bytes: null, record: null, aliases: null, flips: 'at once', failure: null, loaded: null, pending: null });
    pair = { bidirectional: empty(), causal: empty() };
    slots.set(engine, pair);
  }
  return pair[kindOf(causal)];
}

function loadedOf(engine: AttentionEngine, bytes: Uint8Array, record: Readonly<ReaderModelRecord>, aliases: Uint8Array | null): Loaded {
  const model = ReaderModel.fromWeights(engine, bytes);
  if (aliases) model.useAliases(aliases);
  return { model, restarts: engine.restarts, description: model.describe(), head: record.resolvingHead, last: null };
}

/**
 * Downloads one reader model (once per page) and reads it into the engine. Resolves true when the
 * model became ready by this call (the caller then recomputes). A failed download is kept as a
 * message for the figure and tried again on the next call.
 */
export async function ensureReaderModel(engine: AttentionEngine, causal: boolean): Promise<boolean> {
  const slot = slotOf(engine, causal);
  if (slot.loaded && slot.loaded.restarts === engine.restarts) return false;
  if (slot.pending) {
    await slot.pending;
    return false;
  }
  slot.pending = (async () => {
    try {
      if (!slot.bytes || !slot.record || !slot.aliases) {
        // The records and the loaders come with the model, not with the live part's code.
        const { loadReaderAliases, loadReaderWeights, READER_MODELS } = await import('../../model/reader');
        [slot.bytes, slot.aliases] = await Promise.all([slot.bytes ?? loadReaderWeights(causal), slot.aliases ?? loadReaderAliases()]);
        slot.record = READER_MODELS[kindOf(causal)];
      }
      slot.loaded = loadedOf(engine, slot.bytes, slot.record, slot.aliases);
      slot.flips = 'later';
      slot.failure = null;
    } catch (error) {
      slot.failure = error instanceof Error ? error.message : String(error);
    }
  })();
  await slot.pending;
  slot.pending = null;
  return true;
}

/**
 * Gives an engine a reader model's bytes and record directly (tests, tools: the prerendered page prints
 * the whole reading), e.g. `READER_MODELS.bidirectional` from model/reader.ts, with the alias table the
 * page downloads beside it, or none.
 */
export function provideReaderModel(
  engine: AttentionEngine,
  causal: boolean,
  bytes: Uint8Array,
  record: Readonly<ReaderModelRecord>,
  flips: FlipsTiming = 'at once',
  aliases: Uint8Array | null = null,
): void {
  const slot = slotOf(engine, causal);
  slot.loaded?.model.dispose();
  slot.bytes = bytes;
  slot.record = record;
  slot.aliases = aliases;
  slot.flips = flips;
  slot.loaded = loadedOf(engine, bytes, record, aliases);
  slot.failure = null;
}

/** The loaded reader model of this engine instance, or null (not loaded yet, failed, or the engine restarted since). */
export function readerModelFor(engine: AttentionEngine, causal: boolean): ReaderModel | null {
  const loaded = slotOf(engine, causal).loaded;
  return loaded && loaded.restarts === engine.restarts ? loaded.model : null;
}

/**
 * Step 1's reader view of a sentence for the mask in force: the causal model with the causal mask.
 * Its flips are null (still to find) when the model's FlipsTiming is 'later', unless `complete`.
 */
export function readerView(engine: AttentionEngine, tokens: readonly string[], causal: boolean, complete = false): ReaderView {
  const slot = slotOf(engine, causal);
  if (slot.failure) return { status: 'failed', causal, message: slot.failure };
  let loaded = slot.loaded;
  if (loaded && loaded.restarts !== engine.restarts && slot.bytes && slot.record) {
    // After a restart the old model's memory went with the old instance: read the file again.
    slot.loaded = loaded = loadedOf(engine, slot.bytes, slot.record, slot.aliases);
  }
  if (!loaded || !slot.record) return { status: 'loading', causal };
  const { positions } = loaded.description;
  const read = tokens.slice(0, positions);
  if (read.length === 0) return { status: 'failed', causal, message: 'the sentence is empty' };
  // The answer is one forward pass (under 1 ms at 40 words); the flips are one more per word.
  const key = read.join('\u0001');
  if (loaded.last?.key !== key) loaded.last = { key, reading: readAnswer(loaded.model, read) };
  const last = loaded.last.reading;
  if (last.flips === null && (complete || slot.flips === 'at once')) last.flips = readFlips(loaded.model, read, last);
  const { raw, ...reading } = last;
  return {
    status: 'ready',
    causal,
    ...reading,
    words: raw.words,
    unknown: Array.from(raw.unknown, (u) => u === 1),
    aliases: raw.readAs.map((readAs, i) => (readAs ? { readAs, relation: raw.aliasRelation[i]! } : null)),
    queries: raw.queries,
    pointer: raw.pointer.data,
    attention: raw.attention,
    cut: tokens.length > read.length ? { words: tokens.length, positions: read.length } : null,
    head: loaded.head,
    model: loaded.description,
    record: slot.record,
  };
}

/** The view's flips are still to find: the scheduler completes it with readerView(…, complete). */
export function readerFlipsPending(view: ReaderView | null): boolean {
  return view?.status === 'ready' && view.answer !== null && view.flips === null;
}

/**
 * The view was read while its model was on the way, and the model has since been read into the engine
 * (or could not come): reading the sentence again now gives its answer (or says why not).
 */
export function readerArrivedSince(engine: AttentionEngine, view: ReaderView | null): boolean {
  if (view?.status !== 'loading') return false;
  const slot = slotOf(engine, view.causal);
  return slot.loaded !== null || slot.failure !== null;
}
