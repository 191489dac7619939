// The page's default snapshot is the article's worked example: every number the article prints
// (ARTICLE_NUMBERS) is read back from the snapshot the steps render, where the article prints it,
// and rounds to the article's printed digits. The renderers show these tensors; the browser test
// (tests/browser/article-numbers.test.ts) reads the same numbers off the page.
import { describe, expect, test } from 'vitest';
import { ARTICLE_NUMBERS, EXAMPLE_TOKENS, type NumberLocation } from '../../web/src/article-example';
import { DEFAULT_SETTINGS } from '../../web/src/settings';
import type { Snapshot } from '../../web/src/snapshot';
import { exampleSnapshotFor } from './fixtures';

/** Half-up rounding to `digits`, as the article prints (toFixed rounds the binary value, 0.125 → 0.13 here). */
const printed = (value: number, digits: number) => (Math.round(value * 10 ** digits + 1e-9) / 10 ** digits).toFixed(digits);

function read(plain: Snapshot, causal: Snapshot, where: NumberLocation): number {
  if ('softmax' in where) {
    const { soft, sharp, row } = plain.saturation;
    const stretched = Array.from(row, (x) => x * plain.saturation.factor);
    if (where.softmax.every((x, i) => x === row[i])) return soft.probabilities[where.index]!;
    expect(where.softmax).toEqual(stretched);
    return sharp.probabilities[where.index]!;
  }
  const source = where.tensor === 'weightsCausal' ? causal : plain;
  const tensor = source.pipeline[where.tensor === 'weightsCausal' ? 'weights' : where.tensor];
  expect(tensor.heads).toBe(1);
  return tensor.data[where.row * tensor.cols + where.col]!;
}

describe('the default snapshot is the article’s example', () => {
  test('one head of dₖ 4 on d_model 8, the article’s four tokens', async () => {
    expect(DEFAULT_SETTINGS.weights).toBe('example');
    const s = await exampleSnapshotFor();
    expect(s.tokens).toEqual(EXAMPLE_TOKENS);
    expect([s.pipeline.n, s.pipeline.dModel, s.pipeline.heads, s.pipeline.dK]).toEqual([4, 8, 1, 4]);
    expect([s.pipeline.W_q.rows, s.pipeline.W_q.cols]).toEqual([8, 4]);
    expect([s.pipeline.Q.rows, s.pipeline.Q.cols]).toEqual([4, 4]);
    expect(s.saturation.factor).toBe(8);
    // Steps 1, 8, 9 and 10 show the sentence beside it.
    expect(s.sentence).not.toBeNull();
    expect(s.sentence!.tokens.length).toBeGreaterThan(4);
  });

  test.each(ARTICLE_NUMBERS.map((number) => [number.id, number] as const))('%s comes out as printed', async (_, number) => {
    const plain = await exampleSnapshotFor();
    const causal = await exampleSnapshotFor({ causal: true });
    const value = read(plain, causal, number.locate);
    expect(printed(value, number.digits), number.where).toBe(number.printed);
    expect(Math.abs(value - number.value)).toBeLessThan(2e-6);
  });

  test('the output row the article works out: 0.31(2.0) + 0.26(0.5) + 0.25(1.5) + 0.18(0.0) = 1.13', async () => {
    const { pipeline: p } = await exampleSnapshotFor();
    expect(Array.from(p.weights.data.subarray(0, 4), (w) => w.toFixed(2))).toEqual(['0.31', '0.26', '0.25', '0.18']);
    expect(Array.from({ length: 4 }, (_, t) => p.V.data[t * 4]!.toFixed(1))).toEqual(['2.0', '0.5', '1.5', '0.0']);
    expect(p.output.data[0]!.toFixed(2)).toBe('1.13');
    expect(p.headOutputs.data[0]).toBe(p.output.data[0]);
  });
});
