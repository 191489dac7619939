// The tiled pass's numbers, read from the engine's trace (cpp/flash.h): which rows a tile rescaled, the
// running state before a tile, where each row's output is complete, the memory each method holds and
// the naive output the tiled one is compared with.
// Pure (no DOM), so the unit tests check them against the trace directly.
import type { FlashTrace, Matrix } from '../../engine/types';
import type { Snapshot } from '../../snapshot';
import { tiledScratchFloats } from '../cost/cost-plan';

/** The memory meter's extrapolation: the article's 8k tokens. */
export const METER_LONG_N = 8192;
/**
 * Rows of step `index` whose running max grew from an earlier, finite value: there the sum l and the
 * accumulator were multiplied by exp(m_old - m_new) < 1. (The first tile a row sees also "grows" m
 * from -inf, but there is nothing yet to rescale.)
 */
export function rescaledRows(trace: FlashTrace, index: number): number[] {
  const step = trace.steps[index];
  const before = previousState(trace, index);
  const rows: number[] = [];
  for (let r = 0; r < step.m.length; r++) if (Number.isFinite(before.m[r]) && step.m[r] > before.m[r]) rows.push(r);
  return rows;
}

/** m, l and acc of step `index`'s rows before the step: the previous key block's, or -inf, 0, 0. */
export function previousState(trace: FlashTrace, index: number): { m: Float32Array; l: Float32Array; acc: Float32Array } {
  const step = trace.steps[index];
  if (step.keyBlock > 0) {
    const previous = trace.steps[index - 1];
    return { m: previous.m, l: previous.l, acc: previous.acc.data };
  }
  const rows = step.queryEnd - step.queryStart;
  return { m: new Float32Array(rows).fill(-Infinity), l: new Float32Array(rows), acc: new Float32Array(rows * trace.dV) };
}

/** The last key block of each query block that was computed rather than skipped: after it, out = acc / l. */
export function lastComputedKeyBlock(trace: FlashTrace): number[] {
  return Array.from({ length: trace.queryBlocks }, (_, qb) => {
    let last = 0;
    for (let kb = 0; kb < trace.keyBlocks; kb++) if (!trace.steps[qb * trace.keyBlocks + kb].skipped) last = kb;
    return last;
  });
}

/** max |a - b| over the first rows × cols entries (b read from `offset`). */
export function maxAbsDifference(a: Matrix, b: ArrayLike<number>, offset = 0): number {
  let worst = 0;
  for (let i = 0; i < a.rows * a.cols; i++) worst = Math.max(worst, Math.abs(a.data[i] - b[offset + i]));
  return worst;
}

export interface MemoryMeterRow {
  n: number;
  /** The naive method's n × n weight matrix (one head). */
  naiveFloats: number;
  /** The tiled method's working memory: one tile plus m, l and the rescale factors of its rows. */
  tiledFloats: number;
  block: number;
}

/** The meter's numbers for n tokens and a block size (clamped to n, as the kernel clamps it). */
export function memoryMeter(n: number, block: number): MemoryMeterRow {
  const b = Math.max(1, Math.min(block, n));
  return { n, naiveFloats: n * n, tiledFloats: tiledScratchFloats(n, block), block: b };
}

/** 6.0 × 10⁻⁸; 0 stays 0. */
export function scientific(value: number): string {
  if (!Number.isFinite(value)) return '?';
  if (value === 0) return '0';
  const [mantissa, exponent] = value.toExponential(1).split('e');
  const superscript = (text: string) =>
    text
      .replace('-', '⁻')
      .replace('+', '')
      .replace(/\d/g, (d) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[Number(d)]);
  return `${mantissa} × 10${superscript(exponent)}`;
}

export function rangeLabel(start: number, end: number, word: string): string {
  return end - start === 1 ? `${word} ${start + 1}` : `${word}s ${start + 1}–${end}`;
}

/** What step 6 shows for these rows; or naive attention on the same first tokens, when it differs. */
export function naiveReference(s: Snapshot): { data: Float32Array; offset: number; caption: string } {
  const { pipeline: p, settings, flash } = s;
  const nF = flash.tokens;
  if (flash.prefixNaive)
    return { data: flash.prefixNaive.data, offset: 0, caption: `naive attention on the same ${nF} tokens, weights V (${nF} × ${p.dK})` };
  return {
    data: p.headOutputs.data,
    offset: settings.head * p.n * p.dK,
    caption:
      nF === p.n
        ? `naive output = weights V, as in step 6 (${nF} × ${p.dK})`
        : `naive output, rows 1–${nF} of step 6’s table (${nF} × ${p.dK})`,
  };
}
