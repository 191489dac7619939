// @vitest-environment happy-dom
// A sum written out term by term: the signs between the terms are the signs as printed, so a tiny
// negative that rounds to 0.00 is added like any other term (q₁ · k₁ of the article's example).
import { describe, expect, test } from 'vitest';
import { byHandSum } from '../../web/src/ui/arithmetic';

describe('byHandSum', () => {
  test('every term after the first is joined by a plus, or by its own printed minus', () => {
    const line = byHandSum(
      'q₁ · k₁',
      [
        { a: 1, b: 1.1 },
        { a: 0.5, b: 0.4 },
        { a: -1e-8, b: -0.2 },
        { a: -0.25, b: -0.8 },
      ],
      1.3,
    );
    expect(line.textContent).toBe('q₁ · k₁ = 1.00(1.10) + 0.50(0.40) + 0.00(\u22120.20) \u22120.25(\u22120.80) = 1.30');
    expect([...line.querySelectorAll('.term')].map((t) => Number((t as HTMLElement).dataset.a))).toEqual([1, 0.5, -1e-8, -0.25]);
  });
});
