// The walkthrough's pipeline call through wasm memory (the protocol: cpp/bindings/attention.cpp), and the
// reading of its result: the header the C++ side publishes (pipelineFormat()) says where each array is,
// so nothing of the layout is written here. The engine (engine.ts) calls it inside its crash guard.
import { inputKeys, type InputKeys, type RecentPipelines } from './result-sharing';
import type { PipelineConfig, PipelineFormat, PipelineSnapshot, RawEngineModule } from './types';

/**
 * A token's identity, as cpp/random.h's token_id(): FNV-1a over its UTF-8 bytes. The bytes are the
 * ones Emscripten's std::string conversion writes (stringToUTF8Array), which the engine used to
 * receive: a surrogate code unit is always paired with the next one (a lone one at the end with 0).
 * For well-formed strings that is plain UTF-8, the same as TextEncoder's.
 */
export function tokenId(token: string): number {
  let hash = 0x811c9dc5;
  const add = (byte: number) => {
    hash = Math.imul(hash ^ byte, 16777619);
  };
  for (let i = 0; i < token.length; i++) {
    let u = token.charCodeAt(i);
    if (u >= 0xd800 && u <= 0xdfff) u = (0x10000 + ((u & 1023) << 10)) | (token.charCodeAt(++i) & 1023);
    if (u <= 0x7f) add(u);
    else if (u <= 0x7ff) {
      add(0xc0 | (u >> 6));
      add(0x80 | (u & 63));
    } else if (u <= 0xffff) {
      add(0xe0 | (u >> 12));
      add(0x80 | ((u >> 6) & 63));
      add(0x80 | (u & 63));
    } else {
      add(0xf0 | (u >> 18));
      add(0x80 | ((u >> 12) & 63));
      add(0x80 | ((u >> 6) & 63));
      add(0x80 | (u & 63));
    }
  }
  return hash >>> 0;
}

/**
 * One pipeline call through wasm memory (the protocol: cpp/bindings/attention.cpp): stage the token ids and any
 * given matrices, run, copy each result array out, release. Only typed-array views of wasm memory
 * read after the last call that could grow it are used.
 */
export function runPipeline(
  raw: RawEngineModule,
  reader: () => PipelineReader,
  tokens: readonly string[],
  c: PipelineConfig,
  sharing: RecentPipelines,
): PipelineSnapshot | { error: string } {
  let result: PipelineSnapshot | { error: string };
  try {
    const given = [c.X, c.W_q, c.W_k, c.W_v, c.W_o] as const;
    const table = raw._abh_pipeline_stage(
      tokens.length,
      ...(given.map((m) => m?.length ?? 0) as [number, number, number, number, number]),
      c.mask?.length ?? 0,
    );
    if (table === 0) {
      result = { error: raw.pipelineError() };
    } else {
      const slots = raw.HEAPU32.subarray(table >>> 2, (table >>> 2) + 7); // read before the sets below, which cannot grow memory
      const ids = raw.HEAPU32.subarray(slots[0]! >>> 2, (slots[0]! >>> 2) + tokens.length);
      for (let i = 0; i < ids.length; i++) ids[i] = tokenId(tokens[i]!);
      given.forEach((m, i) => {
        if (m?.length) raw.HEAPF32.set(m, slots[i + 1]! >>> 2);
      });
      if (c.mask?.length) raw.HEAPU8.set(c.mask, slots[6]!);
      const keys = inputKeys(ids, c);
      const header = raw._abh_pipeline_run(
        c.dModel,
        c.heads,
        c.seed ?? 1,
        c.causal ? 1 : 0,
        c.scale === false ? 0 : 1,
        c.comparisonHead ?? 0,
      );
      result = header === 0 ? { error: raw.pipelineError() } : reader().read(raw, header, keys, sharing);
    }
  } catch (error) {
    try {
      raw._abh_pipeline_release();
    } catch {
      // the instance failed already; the first error is the one to report
    }
    throw error;
  }
  raw._abh_pipeline_release();
  return result;
}

/**
 * Results up to this size are copied out of wasm memory in one piece (see PipelineReader.read). Every
 * array is an allocation of its own: in Node a new Float32Array of 1,024 floats measured 5-20 us on this
 * VM, and the ~20 arrays of a 16-token, d_model 64 result (150 KB) took ~400 us against ~60 us in one
 * piece. Above this, sharing the (h, n, n) tables a change left alone pays for its arrays: at 64 tokens
 * and 8 heads (550 KB), copying the whole result on a causal click added ~2 ms to the walkthrough's
 * drawing in Chromium.
 */
const WHOLE_COPY_BYTES = 256 * 1024;

/**
 * The result header as cpp/bindings/attention.cpp publishes it (pipelineFormat()): word names, the arrays'
 * names in block order and the words of each array's record. Nothing of the layout is written here.
 */
export class PipelineReader {
  private readonly word: Record<string, number>;
  private readonly field: Record<string, number>;
  private readonly words: number;

  constructor(private readonly format: PipelineFormat) {
    const index = (names: readonly string[]) => Object.fromEntries(names.map((name, i) => [name, i]));
    this.word = index(format.header);
    this.field = index(format.fieldWordNames);
    this.words = format.header.length + format.fieldWords * format.fields.length;
  }

  /**
   * The snapshot at `header`: its scalars, and each array copied out of wasm memory (in one piece up
   * to WHOLE_COPY_BYTES, its arrays views into the copy; else array by array, taking from `sharing`
   * any array a recent result already holds). Nothing here can grow wasm memory, so the header is
   * read in place.
   */
  read(raw: RawEngineModule, header: number, keys: InputKeys, sharing: RecentPipelines): PipelineSnapshot {
    const { format, word, field } = this;
    const at = header >>> 2;
    const words = raw.HEAPU32.subarray(at, at + this.words);
    const base = words[word.blockAddress!]!;
    const bytes = words[word.blockBytes!]!;
    const snapshot: Record<string, unknown> = {};
    format.header.forEach((name, i) => {
      if (name !== 'blockAddress' && name !== 'blockBytes')
        snapshot[name] = format.floatWords.includes(name) ? raw.HEAPF32[at + i]! : words[i]!;
    });
    const whole = bytes <= WHOLE_COPY_BYTES ? raw.HEAPU8.slice(base, base + bytes).buffer : null;
    const candidates = whole ? [] : sharing.candidates();
    format.fields.forEach((name, i) => {
      const record = words.subarray(format.header.length + i * format.fieldWords, format.header.length + (i + 1) * format.fieldWords);
      const offset = record[field.byteOffset!]!,
        rank = record[field.rank!]!;
      const dims = [record[field.dim0!]!, record[field.dim1!]!, record[field.dim2!]!].slice(0, rank);
      const count = dims.reduce((a, b) => a * b, 1);
      const floats = format.elements[record[field.element!]!] === 'float32';
      const data =
        (whole ? null : sharing.find(candidates, keys, name, format.levels[i], raw.HEAPU8, base + offset, count)) ??
        (floats
          ? whole
            ? new Float32Array(whole, offset, count)
            : raw.HEAPF32.slice((base + offset) >>> 2, ((base + offset) >>> 2) + count)
          : whole
            ? new Uint8Array(whole, offset, count)
            : raw.HEAPU8.slice(base + offset, base + offset + count));
      snapshot[name] =
        rank === 3 ? { heads: dims[0], rows: dims[1], cols: dims[2], data } : rank === 2 ? { rows: dims[0], cols: dims[1], data } : data;
    });
    const result = snapshot as unknown as PipelineSnapshot;
    if (!whole) sharing.remember(result, keys);
    return result;
  }
}
