// The page's own number formatting (toLocaleString is avoided: its first call sets up locale data,
// about a quarter of a second of the first load on a slow machine).
import { describe, expect, test } from 'vitest';
import { ratioLabel, tokenCountLabel } from '../../web/src/features/cost/cost-model';
import { count, groupDigits } from '../../web/src/ui/format';

describe('digit grouping', () => {
  test('prints what toLocaleString("en-US") prints, for integers of every length and sign', () => {
    const values = [
      0,
      7,
      -7,
      999,
      1000,
      -1000,
      4000,
      65_536,
      999_999,
      1_000_000,
      -1_234_567,
      2 ** 31,
      123_456_789_012,
      Number.MAX_SAFE_INTEGER,
    ];
    for (const value of values) expect(groupDigits(value)).toBe(value.toLocaleString('en-US'));
  });

  test('count rounds, groups, and names billions and trillions', () => {
    expect(count(1234.6)).toBe('1,235');
    expect(count(4000)).toBe('4,000');
    expect(count(1.2e9)).toBe('1.20 billion');
    expect(count(3.5e12)).toBe('3.50 trillion');
    expect(count(Number.NaN)).toBe('?');
  });

  test('token counts and ratios read as before', () => {
    expect(tokenCountLabel(1000)).toBe('1,000');
    expect(tokenCountLabel(8192)).toBe('8k');
    expect(ratioLabel(16)).toBe('×16');
    expect(ratioLabel(1.5)).toBe('×1.5');
    expect(ratioLabel(2.25)).toBe('×2.25');
    expect(ratioLabel(12.34)).toBe('×12.3');
    expect(ratioLabel(1234.5)).toBe('×1,234.5');
    expect(ratioLabel(20000)).toBe('×20,000');
    expect(ratioLabel(Number.POSITIVE_INFINITY)).toBe('?');
  });
});
