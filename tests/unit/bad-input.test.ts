// The validation boundary (settings.ts, attributes.ts) against a table of bad input: every value
// becomes a working setting, and the notice says what changed and why — in the reader's terms (heads
// counted from 1 in links), quoting what they typed, never showing a bare NaN or Infinity.
import { describe, expect, test } from 'vitest';
import { CONTROL_NAMES } from '../../web/src/controls';
import { parseControls, themeNotices } from '../../web/src/elements/attributes';
import { DEFAULT_SETTINGS, LIMITS, settingsFromParams, tokenize, validateSettings } from '../../web/src/settings';

const fromQuery = (query: string) => settingsFromParams(new URLSearchParams(query));

/** query, expected settings (subset), a notice that must be shown (null: none at all). */
const CASES: [string, Record<string, unknown>, RegExp | null][] = [
  ['d_model=1e9', { dModel: 512 }, /d_model must be from 1 to 512; 1000000000 was changed to 512/],
  ['d_model=1e6', { dModel: 512 }, /changed to 512/],
  ['d_model=0', { dModel: 1, heads: 1 }, /d_model must be from 1 to 512; 0 was changed to 1/],
  ['d_model=-8', { dModel: 1 }, /-8 was changed to 1/],
  ['d_model=7.5', { dModel: 8 }, /d_model must be a whole number; 7\.5 was rounded to 8/],
  ['d_model=0x10', { dModel: 8 }, /d_model must be a number; “0x10” was replaced by 8/],
  ['d_model=0b101', { dModel: 8 }, /“0b101”/],
  ['d_model=Infinity', { dModel: 8 }, /“Infinity” was replaced by 8/],
  ['d_model=-Infinity', { dModel: 8 }, /“-Infinity”/],
  ['d_model=NaN', { dModel: 8 }, /“NaN” was replaced by 8/],
  ['d_model=1e400', { dModel: 8 }, /“1e400” was replaced/],
  ['d_model=%EF%BC%98', { dModel: 8 }, /“８”/], // full-width digit
  ['d_model=8px', { dModel: 8 }, /“8px”/],
  ['d_model=1_000', { dModel: 8 }, /“1_000”/],
  ['d_model=%20%2016%20', { dModel: 16 }, null], // spaces around a number are fine
  ['d_model=%20%20', { dModel: 8 }, null], // blank is "not given"
  ['d_model=', { dModel: 8 }, null],
  ['d_model=%2B16', { dModel: 16 }, null],
  ['d_model=.5e2', { dModel: 50, heads: 1 }, null],
  ['heads=0', { heads: 1 }, /number of heads must be from 1 to 64; 0 was changed to 1/],
  ['heads=3', { heads: 2 }, /3 heads do not divide d_model = 8, so 2 heads are used \(dₖ = 4\)/],
  ['d_model=12&heads=5', { heads: 4 }, /5 heads do not divide d_model = 12/],
  ['d_model=7&heads=7', { heads: 7 }, null],
  ['d_model=512&heads=1e9', { heads: 64 }, /changed to 64/],
  ['d_model=97&heads=64', { heads: 1 }, /64 heads do not divide d_model = 97, so 1 head is used/],
  ['head=0', { head: 0 }, /The shown head must be at least 1; 0 was changed to 1/],
  ['head=-1', { head: 0 }, /The shown head must be at least 1; -1 was changed to 1/],
  ['weights=random&heads=4&head=2.5', { head: 2 }, /shown head must be a whole number; 2\.5 was rounded to 3/],
  ['weights=random&heads=2&head=5', { head: 1 }, /There are only 2 heads, so head 2 is shown instead of head 5/],
  ['weights=random&heads=1&head=2', { head: 0 }, /There is only 1 head, so head 1 is shown instead of head 2/],
  ['head=abc', { head: 0 }, /shown head must be a number; “abc”/],
  ['seed=-1', { seed: 0 }, /seed must be from 0 to 4294967295; -1 was changed to 0/],
  ['seed=4294967296', { seed: 4294967295 }, /changed to 4294967295/],
  ['seed=1.5', { seed: 2 }, /rounded to 2/],
  ['seed=NaN', { seed: 1 }, /“NaN” was replaced by 1/],
  ['causal=maybe', { causal: false }, /causal mask must be on or off; “maybe” was ignored/],
  ['causal=', { causal: true }, null],
  ['scale=OFF', { scale: false }, null],
  ['scale=%E2%9C%93', { scale: true }, /Scaling must be on or off; “✓”/],
];

describe(`${CASES.length} bad URL values`, () => {
  test.each(CASES)('%s', (query, expected, message) => {
    const { settings, notices } = fromQuery(query);
    expect(settings).toMatchObject(expected);
    if (message) expect(notices.join('\n')).toMatch(message);
    else expect(notices).toEqual([]);
    // Never a bare NaN / Infinity: only inside the quotes that repeat what the reader typed.
    for (const notice of notices) expect(notice.replace(/“[^”]*”/g, '')).not.toMatch(/\bNaN\b|Infinity|undefined/);
    // Whatever came in, the result is valid: a second pass changes nothing.
    expect(validateSettings(settings, DEFAULT_SETTINGS)).toEqual({ settings, notices: [] });
  });
});

describe('values from controls (numbers, not text)', () => {
  test('an emptied seed field (NaN) keeps the seed and says so without a bare NaN', () => {
    const { settings, notices } = validateSettings({ seed: NaN }, { ...DEFAULT_SETTINGS, seed: 42 });
    expect(settings.seed).toBe(42);
    expect(notices).toEqual(['The seed must be a number; the field was empty or unreadable, so it stays 42.']);
  });

  test('Infinity and booleans where numbers belong', () => {
    expect(validateSettings({ dModel: Infinity }).notices[0]).toBe(
      'd_model must be a number; “Infinity” is not a finite number, so it stays 8.',
    );
    expect(validateSettings({ heads: true }).settings.heads).toBe(DEFAULT_SETTINGS.heads);
  });
});

describe('sentences', () => {
  test.each([
    [
      'emoji, with their zero-width joiners kept inside the word',
      '👨\u200d👩\u200d👧 waves 🏳\ufe0f\u200d🌈',
      ['👨\u200d👩\u200d👧', 'waves', '🏳\ufe0f\u200d🌈'],
      false,
    ],
    ['Persian with its zero-width non-joiner', 'می\u200cخواهم بروم', ['می\u200cخواهم', 'بروم'], false],
    ['right-to-left and mixed scripts', 'שלום world مرحبا', ['שלום', 'world', 'مرحبا'], false],
    ['stray joiners and zero-width spaces are removed', '\u200dhe\u200bllo\u200d \u200c', ['hello'], true],
    ['bidirectional overrides are removed', '\u202eevil\u202c \u2066x\u2069', ['evil', 'x'], true],
    ['control characters are removed', 'a\u0000b c\u0007', ['ab', 'c'], true],
    ['combining marks stay with their letter', 'cafe\u0301 Z\u0351\u0360a', ['cafe\u0301', 'Z\u0351\u0360a'], false],
    ['lone surrogates are kept as text', 'a\ud800 b', ['a\ud800', 'b'], false],
  ])('%s', (_, sentence, tokens, notice) => {
    const result = tokenize(sentence);
    expect(result.tokens).toEqual(tokens);
    expect(result.notices.some((n) => /Invisible/.test(n))).toBe(notice);
  });

  test('10,000 characters, 2,000 words, a 600-character word: cut, with notices', () => {
    const { tokens, notices } = tokenize(`${'x'.repeat(600)} ${'word '.repeat(2000)}`);
    expect(tokens).toHaveLength(LIMITS.maxTokens);
    expect([...tokens[0]]).toHaveLength(LIMITS.maxTokenChars); // 39 characters and "…"
    expect(tokens[0]).toBe(`${'x'.repeat(LIMITS.maxTokenChars - 1)}…`);
    // One notice for the cut, counting the words given (not those left after the character limit).
    expect(notices).toEqual([
      'Words longer than 40 characters were shortened.',
      'Only the first 256 of 2001 words are used: the page shows at most 256 tokens.',
    ]);
    // Validating the result again changes nothing and says nothing (each change re-validates it).
    expect(tokenize(tokens.join(' '))).toEqual({ tokens, notices: [] });
  });

  test('only invisible characters: the article’s sentence, with both notices', () => {
    const { settings, notices } = validateSettings({ sentence: '\u200b\u200d\ufeff \u202e' });
    expect(settings.sentence).toBe(DEFAULT_SETTINGS.sentence);
    expect(notices).toHaveLength(2);
  });
});

describe('other attributes', () => {
  test('an unknown controls list is named, shortened, and bounded however long it is', () => {
    const { visible, notices } = parseControls(`tokens ${'x'.repeat(100)} ${'junk '.repeat(10_000)}`);
    expect([...visible]).toEqual(['tokens']);
    expect(notices).toHaveLength(1);
    expect(notices[0].length).toBeLessThan(300);
    expect(notices[0]).toMatch(/” and 9996 more ignored/);
  });

  test('a controls list with no known control shows every control and says so; "none" shows none', () => {
    const typo = parseControls('tokns headz');
    expect([...typo.visible]).toEqual([...CONTROL_NAMES]);
    expect(typo.notices).toEqual([
      `Unknown controls “tokns”, “headz” ignored, so every control is shown; known controls: ${CONTROL_NAMES.join(', ')}.`,
    ]);
    expect(parseControls('none')).toEqual({ visible: new Set(), notices: [] });
  });

  test('theme: light and dark are fine, anything else is named and ignored', () => {
    expect(themeNotices(null)).toEqual([]);
    expect(themeNotices('dark')).toEqual([]);
    expect(themeNotices('</style><style>*{display:none}')[0]).toBe(
      'theme must be light or dark; “</style><style>*{display…” was ignored, so the reader’s colour scheme is used.',
    );
  });
});
