// The result-sharing strategies the page keeps, each because a measurement showed a large win. Each
// was measured in Node against the wasm build, in one process (ratios, on a 2-core VM shared with
// other jobs: load average ~14), by switching it off for the same sequence of calls:
//
// - RecentPipelines: a pipeline result over WHOLE_COPY_BYTES takes the arrays of one of the last two
//   such results that hold the same bits. A walk of 12 setting changes (causal, comparison head,
//   scaling, heads 8 -> 4 -> 8, an edited X, one word replaced) took 1.3-2.0x as long per call without
//   it at 128 tokens, d_model 64, 8 heads (three runs: 2.04x, 2.05x, 1.30x; 7.9-13 ms a call with it),
//   and 1.7x at 256 tokens, 16 heads (79 ms a call with it). Smaller results are copied in one piece
//   and share nothing (their runs differ by +-20%: the noise of this machine).
// - keptExperiments: the variance and saturation experiments of a (d_k, seed) seen a moment ago. On
//   the default page a snapshot took 0.47 ms with them kept and 1.2 ms more without (3.6x).
//
// Measured and deleted: keeping the last result's four weight matrices in JS (0.79-1.09x, within the
// noise), a per-array cache of 32-bit views for the comparisons below (one view costs less than a
// microsecond), and, in C++, keeping the embedding rows of an unchanged sentence (1.0-1.24x). The
// C++ workspace keeps its generated weights (cpp/pipeline.h: 2.0-25x).
import type { AttentionEngine } from './engine';
import type { PipelineConfig, PipelineSnapshot } from './types';

/**
 * A result's inputs as strings, one per level of cpp/pipeline.h's PipelineLevel (seed and d_model;
 * tokens; heads; scaling; mask; comparison head), each including the ones before it; null where they
 * are not known by key (given matrices, a custom mask).
 */
export type InputKeys = readonly (string | null)[];

export function inputKeys(ids: Uint32Array, c: PipelineConfig): InputKeys {
  if (c.X || c.W_q || c.W_k || c.W_v || c.W_o) return [null, null, null, null, null, null];
  const seeded = `${c.seed ?? 1}/${c.dModel}`;
  const tokens = `${seeded}/${ids.join(',')}`;
  const heads = `${tokens}/h${c.heads}`;
  const scaled = `${heads}/s${c.scale === false ? 0 : 1}`;
  const masked = c.mask ? null : `${scaled}/c${c.causal ? 1 : 0}`;
  return [seeded, tokens, heads, scaled, masked, masked && `${masked}/ch${c.comparisonHead}`];
}

/** A typed array of a snapshot, or the bare (n) fullyMaskedRows. */
type Arrays = Float32Array | Uint8Array;
const arrayOf = (value: unknown): Arrays | undefined =>
  value instanceof Float32Array || value instanceof Uint8Array ? value : (value as { data?: Arrays } | undefined)?.data;

/** `old` equals heap[at, at + old.length) bit for bit (floats as 32-bit words: exact, and faster). */
function sameBits(old: Arrays, heap: Uint8Array, at: number): boolean {
  if (old instanceof Uint8Array) {
    for (let i = 0; i < old.length; i++) if (old[i] !== heap[at + i]) return false;
    return true;
  }
  const words = new Uint32Array(old.buffer, old.byteOffset, old.length);
  const fresh = new Uint32Array(heap.buffer, heap.byteOffset + at, old.length);
  for (let i = 0; i < words.length; i++) if (words[i] !== fresh[i]) return false;
  return true;
}

/**
 * The engine's last two results copied array by array, never kept alive by this: a new result's
 * array that holds the same bits as the same array of one of them is that array. Snapshots are
 * read-only, so sharing is invisible, and most settings change a few arrays only: switching the mask
 * leaves the scores, switching the shown head everything but the comparison tables. An array whose
 * inputs have the same key is known equal (the engine is deterministic); others are compared, which
 * costs a fraction of copying into new memory.
 */
export class RecentPipelines {
  private recent: WeakRef<PipelineSnapshot>[] = [];
  private readonly keys = new WeakMap<PipelineSnapshot, InputKeys>();

  /** The results a new one may share with (those still alive). */
  candidates(): PipelineSnapshot[] {
    return this.recent.map((ref) => ref.deref()).filter((s) => s !== undefined);
  }

  /**
   * The array `name` of a candidate that equals the `count` elements at byte `at` of the heap, or
   * null. `keys` are the new result's; `level` is the array's (pipelineFormat().levels).
   */
  find(
    candidates: readonly PipelineSnapshot[],
    keys: InputKeys,
    name: string,
    level: number | undefined,
    heap: Uint8Array,
    at: number,
    count: number,
  ): Arrays | null {
    for (const old of candidates) {
      const data = arrayOf((old as unknown as Record<string, unknown>)[name]);
      if (!data || data.length !== count) continue;
      const known = level !== undefined && keys[level] !== null && this.keys.get(old)?.[level] === keys[level];
      if (known || sameBits(data, heap, at)) return data;
    }
    return null;
  }

  /** Two: the walkthrough with edits alternates between the seeded baseline and the edited run. */
  remember(result: PipelineSnapshot, keys: InputKeys): void {
    this.keys.set(result, keys);
    this.recent = [new WeakRef(result), ...this.recent.slice(0, 1)];
  }
}

const KEPT_EXPERIMENTS = 4;
const experiments = new WeakMap<AttentionEngine, Array<{ key: string; value: unknown }>>();

/**
 * The page's variance and saturation experiments, which depend only on (d_k, seed): the last few
 * are kept per engine under `key`, and `make` runs for a key not among them. A heads or d_model
 * change moves d_k; going back to a d_k seen a moment ago (heads 8 -> 16 -> 8) computes nothing.
 */
export function keptExperiments<T>(engine: AttentionEngine, key: string, make: () => T): T {
  const kept = experiments.get(engine) ?? [];
  const cached = kept.find((e) => e.key === key);
  if (cached) return cached.value as T;
  const value = make();
  experiments.set(engine, [{ key, value }, ...kept.slice(0, KEPT_EXPERIMENTS - 1)]);
  return value;
}
