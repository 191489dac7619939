// The hands-on settings at the validation boundary: `edits` and `mask` in the URL, their round trips,
// what happens to bad or out-of-range entries, and the causal checkbox / custom mask rule.
import { describe, expect, test } from 'vitest';
import {
  decodePaint,
  encodePaint,
  formatEdits,
  maskBits,
  maskBitsOrFull,
  parseEdits,
  roundEdit,
  validateEdits,
  validateMask,
  withEdit,
} from '../../web/src/features/hands-on/hands-on-settings';
import { DEFAULT_SETTINGS, settingsFromParams, settingsToParams, settingsToQuery, validateSettings } from '../../web/src/settings';

const FOUR = 'the cat sat down';
const fromQuery = (query: string) => settingsFromParams(new URLSearchParams(query));

describe('edits in the URL', () => {
  test('round trip: settings -> compact query -> the same settings, no notice', () => {
    const { settings, notices } = fromQuery(`weights=random&tokens=${FOUR}&edits=X.3.2:0.5,Wq.1.4:-0.25`);
    expect(notices).toEqual([]);
    expect(settings.edits).toBe('X.3.2:0.5,Wq.1.4:-0.25');
    const query = settingsToQuery(settings);
    expect(query).toBe('tokens=the+cat+sat+down&edits=X.3.2:0.5,Wq.1.4:-0.25&weights=random');
    expect(fromQuery(query)).toEqual({ settings, notices: [] });
    // The escaped form (what URLSearchParams writes) reads the same.
    expect(fromQuery(settingsToParams(settings).toString()).settings).toEqual(settings);
  });

  test('canonical: sorted, rounded to 3 decimals, later entries for one cell win, −0 is 0', () => {
    const { edits, bad } = parseEdits('Wv.2.2:1,X.1.1:0.12345,wq.3.1:-0.00001,X.1.1:0.7777777,W_k.1.1:1e-1');
    expect(bad).toEqual([]);
    expect(formatEdits(edits)).toBe('X.1.1:0.778,Wq.3.1:0,Wk.1.1:0.1,Wv.2.2:1');
    expect(roundEdit(-0.0004)).toBe(0);
    expect(Object.is(roundEdit(-0.0004), -0)).toBe(false);
  });

  test('bad entries are dropped with a notice, good ones kept', () => {
    const { settings, notices } = fromQuery(
      `weights=random&tokens=${FOUR}&edits=X.1.1:0.5,Y.1.1:2,X.0.1:1,X.1.1:abc,X.1:1,Wq.2.2:NaN,Wk.1.1:Infinity`,
    );
    expect(settings.edits).toBe('X.1.1:0.5');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /^6 edited numbers could not be read and were dropped \(“Y\.1\.1:2”, “X\.0\.1:1”, “X\.1\.1:abc” and 3 more\)/,
    );
  });

  test('indices outside the current sizes are dropped with a notice', () => {
    const { settings, notices } = fromQuery(`weights=random&tokens=${FOUR}&d_model=8&edits=X.4.8:1,X.5.1:1,Wv.9.1:2,Wq.8.8:-1`);
    expect(settings.edits).toBe('X.4.8:1,Wq.8.8:-1');
    expect(notices).toEqual([
      expect.stringMatching(
        /^2 edited numbers lie outside the matrices at these sizes \(“X\.5\.1”, “Wv\.9\.1”: X is 4 × 8, each W is 8 × 8\)/,
      ),
    ]);
  });

  test('too large an example: the edits are set aside with a notice', () => {
    const nine = fromQuery('weights=trained&edits=X.1.1:1'); // the article's sentence has 9 tokens
    expect(nine.settings.edits).toBe('');
    expect(nine.notices).toEqual([
      expect.stringMatching(/set aside: editing works on small examples of up to 8 tokens and d_model 16, and this one has 9 tokens/),
    ]);
    const wide = fromQuery(`weights=random&tokens=${FOUR}&d_model=32&heads=2&edits=X.1.1:1,Wq.1.1:2`);
    expect(wide.settings.edits).toBe('');
    expect(wide.notices[0]).toMatch(/^Your 2 edited numbers were set aside/);
  });

  test('values are kept within ±100', () => {
    const { settings, notices } = fromQuery(`weights=random&tokens=${FOUR}&edits=X.1.1:1e9,X.1.2:-250`);
    expect(settings.edits).toBe('X.1.1:100,X.1.2:-100');
    expect(notices[0]).toMatch(/between −100 and 100/);
  });

  test('changing the sentence re-checks the edits against the new size', () => {
    const start = validateSettings({ sentence: FOUR, edits: 'X.4.1:1,X.1.1:2', weights: 'random' }).settings;
    const shorter = validateSettings({ ...start, sentence: 'the cat' }, start);
    expect(shorter.settings.edits).toBe('X.1.1:2');
    expect(shorter.notices[0]).toMatch(/outside the matrices/);
  });

  test('withEdit sets, replaces and removes one cell', () => {
    let text = withEdit('', 'Wk', 2, 3, 0.12349);
    expect(text).toBe('Wk.3.4:0.123');
    text = withEdit(text, 'X', 0, 0, -1);
    expect(text).toBe('X.1.1:-1,Wk.3.4:0.123');
    text = withEdit(text, 'Wk', 2, 3, 5);
    expect(text).toBe('X.1.1:-1,Wk.3.4:5');
    expect(withEdit(text, 'X', 0, 0, null)).toBe('Wk.3.4:5');
  });

  test('validateEdits on its own: empty and whitespace are no edits', () => {
    const notices: string[] = [];
    expect(validateEdits('', 4, 8, notices)).toBe('');
    expect(validateEdits('  ', 4, 8, notices)).toBe('');
    expect(validateEdits(null, 4, 8, notices)).toBe('');
    expect(notices).toEqual([]);
  });
});

/** Rows of a mask as strings of 0/1. */
const rows = (bits: Uint8Array, n: number) => Array.from({ length: n }, (_, r) => Array.from(bits.subarray(r * n, (r + 1) * n)).join(''));

describe('masks in the URL', () => {
  test('presets make the expected bits', () => {
    expect(rows(maskBits('pad:2', 5)!, 5)).toEqual(['11100', '11100', '11100', '11100', '11100']);
    expect(rows(maskBits('window:2', 4)!, 4)).toEqual(['1000', '1100', '0110', '0011']);
    expect(rows(maskBits('prefix:2', 4)!, 4)).toEqual(['1100', '1100', '1110', '1111']);
    expect(maskBits('none', 4)).toBeNull();
    expect(rows(maskBitsOrFull('none', true, 3), 3)).toEqual(['100', '110', '111']);
    expect(rows(maskBitsOrFull('none', false, 3), 3)).toEqual(['111', '111', '111']);
  });

  test('paint: base64url of the packed bits round-trips, for every n from 1 to 12', () => {
    for (let n = 1; n <= 12; n++) {
      const bits = Uint8Array.from({ length: n * n }, (_, i) => ((i * 7919) % 3 === 0 ? 1 : 0));
      const code = encodePaint(bits);
      expect(code).toMatch(/^paint:[A-Za-z0-9_-]*$/);
      expect(decodePaint(code.slice(6), n)).toEqual(bits);
      expect(validateMask(code, n, [])).toBe(code);
    }
    // 4 x 4 causal: 1000 1100 1110 1111 = 0x8c 0xef
    expect(encodePaint(maskBitsOrFull('none', true, 4))).toBe('paint:jO8');
  });

  test('paint for another size, stray bits or bad characters: notice, no mask', () => {
    const code = encodePaint(new Uint8Array(16).fill(1)); // 4 x 4
    for (const [mask, n] of [
      [code, 5],
      ['paint:jO9', 4],
      ['paint:j*8', 4],
      ['paint:', 3],
    ] as const) {
      const notices: string[] = [];
      expect(validateMask(mask, n, notices)).toBe('none');
      expect(notices[0]).toMatch(/painted mask does not fit this sentence/);
    }
  });

  test('URL: mask=causal is the causal flag; custom masks untick it', () => {
    const causal = fromQuery(`tokens=${FOUR}&mask=causal`);
    expect(causal.settings).toMatchObject({ causal: true, mask: 'none' });
    expect(causal.notices).toEqual([]);
    expect(settingsToQuery(causal.settings)).toBe('tokens=the+cat+sat+down&causal=1');
    const window = fromQuery(`tokens=${FOUR}&mask=window:3`);
    expect(window.settings).toMatchObject({ causal: false, mask: 'window:3' });
    expect(settingsToQuery(window.settings)).toBe('tokens=the+cat+sat+down&mask=window:3');
    const both = fromQuery(`tokens=${FOUR}&causal=1&mask=pad:1`);
    expect(both.settings).toMatchObject({ causal: false, mask: 'pad:1' });
    expect(both.notices).toEqual(['A custom mask replaces the causal mask, so the causal checkbox is off while it is in force.']);
  });

  test('round trip of every kind', () => {
    for (const mask of ['pad:2', 'window:3', 'prefix:1', encodePaint(Uint8Array.from({ length: 16 }, (_, i) => i % 2))]) {
      const { settings, notices } = fromQuery(`tokens=${FOUR}&mask=${mask}`);
      expect(notices).toEqual([]);
      expect(settings.mask).toBe(mask);
      expect(fromQuery(settingsToQuery(settings))).toEqual({ settings, notices: [] });
    }
  });

  test('unreadable: notice and no mask; out of range: brought into 1..n with a notice', () => {
    for (const mask of ['diagonal', 'pad:', 'pad:x', 'window:-1', 'pad:2.5', 'causal:1']) {
      const { settings, notices } = fromQuery(`tokens=${FOUR}&mask=${encodeURIComponent(mask)}`);
      expect(settings.mask, mask).toBe('none');
      expect(notices[0], mask).toMatch(/mask must be none, causal, pad:k, window:w, prefix:p or paint:…/);
    }
    const wide = fromQuery(`tokens=${FOUR}&mask=window:9`);
    expect(wide.settings.mask).toBe('window:4');
    expect(wide.notices).toEqual(['The window width w must be from 1 to 4 (the number of tokens); 9 was changed to 4.']);
    const zero = fromQuery(`tokens=${FOUR}&mask=prefix:0`);
    expect(zero.settings.mask).toBe('prefix:1');
  });

  test('defaults are left out of the URL', () => {
    expect(settingsToQuery({ ...DEFAULT_SETTINGS })).toBe('');
    expect(DEFAULT_SETTINGS).toMatchObject({ edits: '', mask: 'none' });
  });
});
