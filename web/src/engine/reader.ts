// The typed wrapper of step 1's reader model (cpp/train/reader.h, bound in cpp/bindings/reader.cpp):
// load a reader weights file and its alias table (cpp/train/reader_aliases.h), answer "what does the pronoun refer to?" for a sentence, describe the
// model. Results are copies out of wasm memory; bad input becomes an EngineError with the C++ side's
// message, and the model (and the engine) keep working. A ReaderModel holds memory in the wasm
// instance: dispose() it.
import { AttentionEngine, EngineError } from './engine';
import { EngineObject, type Result } from './engine-object';
import type { Matrix, RawEngineModule, Tensor3 } from './types';

/** The model's answer for one sentence (ReaderAnswer in cpp/train/reader.h). */
export interface ReaderModelAnswer {
  /** The words as the model read them: lower case, outer punctuation stripped ("(Tired." -> "tired"). */
  words: string[];
  /** 1 where the word is outside the vocabulary and its aliases: it reads the unknown-word embedding. */
  unknown: Uint8Array;
  /** The known word a word outside the vocabulary was read as through the alias table; '' where none. */
  readAs: string[];
  /** Where that alias came from in WordNet ('form', 'synonym', 'similar', 'hypernym', 'cousin'); '' where none. */
  aliasRelation: string[];
  /** 1 where the word could be pointed at: a known noun or an unknown word, not a pronoun. */
  candidates: Uint8Array;
  /** The pronoun the answer resolves; -1 when the sentence has none the model resolves. */
  pronoun: number;
  /** The positions with a pointer row: the pronoun (bidirectional), or it and every later word (causal). */
  queries: number[];
  /** (queries, n): row q is the pointer distribution over positions at queries[q]; each row sums to 1. */
  pointer: Matrix;
  /** The argmax of the last pointer row: the position the model names (-1 without a pronoun). */
  antecedent: number;
  /** Its weight in that row. */
  probability: number;
  /** Per layer, (heads, n, n) attention weights: row i is word i's weights over the words. */
  attention: Tensor3[];
}

export interface ReaderModelDescription {
  causal: boolean;
  mlp: boolean;
  layers: number;
  heads: number;
  dModel: number;
  /** The longest sentence it reads, in words. */
  positions: number;
  parameterCount: number;
  steps: number;
  seed: number;
  vocabularySize: number;
  /** Words outside the vocabulary it reads as known ones (useAliases); 0 without a table. */
  aliasCount: number;
}

interface RawReaderModel {
  load(bytes: Uint8Array): Result<{ parameterCount: number }>;
  useAliases(bytes: Uint8Array): Result<{ aliases: number }>;
  answer(words: string[], pronoun: number): Result<ReaderModelAnswer>;
  answerWithin(words: string[], allowed: Uint8Array, pronoun: number): Result<ReaderModelAnswer>;
  answerVariants(words: string[], pronoun: number, positions: number[], replacement: string): Result<Float32Array>;
  describe(): Result<ReaderModelDescription>;
  delete(): void;
}
interface RawReaderModule {
  ReaderModel: new () => RawReaderModel;
}

/** A copy of the words, or an EngineError when they are not all strings. */
function checkWords(words: readonly string[]): string[] {
  if (!Array.isArray(words) || !words.every((w) => typeof w === 'string')) throw new EngineError('the words must be an array of strings');
  return [...words];
}

/** The pronoun's index, -1 when omitted (the sentence's first pronoun). */
function checkPronoun(pronoun: number | undefined): number {
  if (pronoun !== undefined && !(Number.isInteger(pronoun) && pronoun >= 0))
    throw new EngineError(`pronoun must be a word index, a whole number of at least 0 (got ${String(pronoun)})`);
  return pronoun ?? -1;
}

export class ReaderModel extends EngineObject<RawReaderModel> {
  private constructor(engine: AttentionEngine, instance: RawEngineModule, handle: RawReaderModel) {
    super(engine, instance, handle, { className: 'ReaderModel', words: 'reader model', remake: 'load it again' });
  }

  /** The model of a reader weights file (web/src/model/reader.bin or reader-causal.bin). */
  static fromWeights(engine: AttentionEngine, bytes: Uint8Array): ReaderModel {
    if (!(bytes instanceof Uint8Array)) throw new EngineError('the reader weights must be a Uint8Array');
    return EngineObject.made(
      engine,
      'core',
      'ReaderModel.fromWeights',
      (instance) => new (instance as unknown as RawReaderModule).ReaderModel(),
      (handle) => handle.load(bytes),
      (instance, handle) => new ReaderModel(engine, instance, handle),
    );
  }

  /**
   * Reads an alias table (web/src/model/reader-aliases.txt, "target relation word word…" per line) so that
   * words outside the vocabulary are read as the known words WordNet says are close; replaces the old
   * table. Returns how many entries this model's vocabulary kept. The weights are unchanged.
   */
  useAliases(bytes: Uint8Array): number {
    if (!(bytes instanceof Uint8Array)) throw new EngineError('the alias table must be a Uint8Array');
    return this.call('useAliases', (h) => h.useAliases(bytes)).aliases;
  }

  /**
   * The model's answer for a sentence, one word per entry. pronoun: the index of the pronoun to
   * resolve; omitted, the sentence's first pronoun.
   */
  answer(words: readonly string[], pronoun?: number): ReaderModelAnswer {
    const [list, index] = [checkWords(words), checkPronoun(pronoun)];
    return this.call('answer', (h) => h.answer(list, index));
  }

  /**
   * answer() with the model's attention restricted to a pattern, at inference (a sliding window, a
   * sparse pattern): allowed is (n, n) row-major, 1 where word i may use word j, every diagonal entry 1.
   * All ones (or the causal band as wide as the sentence, for the causal model) gives answer()'s numbers.
   */
  answerWithin(words: readonly string[], allowed: Uint8Array, pronoun?: number): ReaderModelAnswer {
    const [list, index] = [checkWords(words), checkPronoun(pronoun)];
    if (!(allowed instanceof Uint8Array)) throw new EngineError('the pattern must be a Uint8Array');
    return this.call('answerWithin', (h) => h.answerWithin(list, allowed, index));
  }

  /**
   * answer()'s antecedent (-1: none) and probability for each variant of the sentence with the word at
   * one of `positions` replaced by `replacement`, in one call into wasm (step 1's flips).
   */
  answerVariants(
    words: readonly string[],
    pronoun: number,
    positions: readonly number[],
    replacement: string,
  ): { antecedent: number; probability: number }[] {
    const [list, index] = [checkWords(words), checkPronoun(pronoun)];
    if (!Array.isArray(positions) || !positions.every((p) => Number.isInteger(p)))
      throw new EngineError('the variants’ positions must be whole numbers');
    if (typeof replacement !== 'string') throw new EngineError('the replacement word must be a string');
    const pairs = this.call('answerVariants', (h) => h.answerVariants(list, index, [...positions], replacement));
    return Array.from({ length: positions.length }, (_, v) => ({ antecedent: pairs[2 * v]!, probability: pairs[2 * v + 1]! }));
  }

  describe(): ReaderModelDescription {
    return this.call('describe', (h) => h.describe());
  }
}
