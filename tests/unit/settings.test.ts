// The validation boundary and the URL round trip: every outside value becomes a working setting,
// and the page says what it changed.
import { describe, expect, test } from 'vitest';
import {
  ARTICLE_SENTENCE,
  DEFAULT_SETTINGS,
  LIMITS,
  headChoices,
  maxHeadsFor,
  settingsFromParams,
  settingsToParams,
  tokenize,
  validateSettings,
} from '../../web/src/settings';

const fromQuery = (query: string) => settingsFromParams(new URLSearchParams(query));

describe('URL round trip', () => {
  test('defaults write an empty query and read back as defaults', () => {
    expect(settingsToParams(DEFAULT_SETTINGS).toString()).toBe('');
    expect(fromQuery('')).toEqual({ settings: DEFAULT_SETTINGS, notices: [] });
  });

  test('every setting survives settings -> URL -> settings', () => {
    // Every setting but the defaults' (a setting added to the schema keeps its default here).
    const settings = {
      ...DEFAULT_SETTINGS,
      sentence: 'a cat sat on a mat',
      dModel: 12,
      heads: 3,
      causal: true,
      scale: false,
      seed: 4294967295,
      head: 2,
      block: 3,
      edits: '',
      mask: 'none',
      weights: 'random' as const,
    };
    const query = settingsToParams(settings).toString();
    expect(query).toBe('tokens=a+cat+sat+on+a+mat&d_model=12&heads=3&causal=1&scale=0&seed=4294967295&head=3&block=3&weights=random');
    expect(fromQuery(query)).toEqual({ settings, notices: [] });
  });

  test('flags accept the usual spellings', () => {
    expect(fromQuery('causal=on&scale=off').settings).toMatchObject({ causal: true, scale: false });
    expect(fromQuery('causal=true&scale=false').settings).toMatchObject({ causal: true, scale: false });
    const odd = fromQuery('causal=maybe');
    expect(odd.settings.causal).toBe(false);
    expect(odd.notices[0]).toMatch(/causal mask must be on or off/);
  });
});

describe('bad values become working settings with a message', () => {
  test.each([
    ['d_model=abc', { dModel: 8 }, /d_model must be a number/],
    ['d_model=1e6', { dModel: LIMITS.maxDModel }, /d_model must be from 1 to 512; 1000000 was changed to 512/],
    ['d_model=-4', { dModel: 1, heads: 1 }, /changed to 1/],
    ['d_model=7.6', { dModel: 8 }, /rounded to 8/],
    ['d_model=NaN', { dModel: 8 }, /must be a number/],
    ['d_model=Infinity', { dModel: 8 }, /must be a number/],
    ['seed=-1', { seed: 0 }, /seed must be from 0 to 4294967295/],
    ['seed=99999999999', { seed: 4294967295 }, /changed to 4294967295/],
    ['head=99', { head: 0 }, /^There is only 1 head in the article’s example, so head 1 is shown instead of head 99\.$/],
    ['weights=trained&head=99', { head: 1 }, /^There are only 2 heads in the trained model, so head 2 is shown instead of head 99\.$/],
    ['weights=random&heads=2&head=99', { head: 1 }, /^There are only 2 heads, so head 2 is shown instead of head 99\.$/],
    ['block=0', { block: 1 }, /block size must be from 1 to 16; 0 was changed to 1/],
    ['block=64', { block: 16 }, /block size must be from 1 to 16; 64 was changed to 16/],
    ['block=2.5', { block: 3 }, /block size must be a whole number; 2.5 was rounded to 3/],
    ['block=big', { block: 4 }, /block size must be a number/],
  ])('%s', (query, expected, message) => {
    const { settings, notices } = fromQuery(query);
    expect(settings).toMatchObject(expected);
    expect(notices.join(' ')).toMatch(message);
  });

  test('heads that do not divide d_model are replaced by the nearest divisor, and the page says so', () => {
    const { settings, notices } = fromQuery('d_model=12&heads=5');
    expect(settings.heads).toBe(4);
    expect(notices).toEqual(['5 heads do not divide d_model = 12, so 4 heads are used (dₖ = 3).']);
    expect(fromQuery('d_model=7&heads=2').settings.heads).toBe(1);
  });

  test('long sentences get fewer heads: h × n × n stays within 2^20 weights', () => {
    expect(maxHeadsFor(9)).toBe(64);
    expect(maxHeadsFor(128)).toBe(64);
    expect(maxHeadsFor(129)).toBe(63);
    expect(maxHeadsFor(181)).toBe(32);
    expect(maxHeadsFor(256)).toBe(16);
    expect(headChoices(512, 256)).toEqual([1, 2, 4, 8, 16]);
    expect(headChoices(48, 200)).toEqual([1, 2, 3, 4, 6, 8, 12, 16, 24]);
    const words = Array.from({ length: 256 }, (_, i) => `w${i}`).join(' ');
    const { settings, notices } = validateSettings({ sentence: words, dModel: 512, heads: 64 });
    expect(settings.heads).toBe(16);
    expect(notices.join(' ')).toMatch(/256 tokens allow at most 16 heads .* so 16 heads are used instead of 64/);
    // At the limit nothing changes, and nothing is said.
    const fits = validateSettings({ sentence: words, dModel: 64, heads: 16 });
    expect(fits.settings.heads).toBe(16);
    expect(fits.notices).toEqual([]);
    // A head count that does not divide d_model is fixed first, then fitted to the sentence.
    const both = validateSettings({ sentence: words, dModel: 96, heads: 40 });
    expect(both.settings.heads).toBe(16);
    expect(both.notices).toHaveLength(2);
  });

  test('headChoices lists exactly the divisors up to 64', () => {
    expect(headChoices(12)).toEqual([1, 2, 3, 4, 6, 12]);
    expect(headChoices(512)).toEqual([1, 2, 4, 8, 16, 32, 64]);
    expect(headChoices(1)).toEqual([1]);
  });

  test('d_model, heads and seed in a link mean random weights, unless the link says trained', () => {
    expect(fromQuery('d_model=16&heads=4')).toMatchObject({ settings: { weights: 'random', dModel: 16, heads: 4 }, notices: [] });
    expect(fromQuery('seed=7').settings).toMatchObject({ weights: 'random', seed: 7 });
    expect(fromQuery('tokens=a+b').settings.weights).toBe('trained');
    const trained = fromQuery('weights=trained&d_model=16&heads=4');
    expect(trained.settings.weights).toBe('trained');
    expect(trained.notices).toEqual([
      'd_model and heads only apply to random weights; the trained model has d_model 32 and 2 heads, so they were not used.',
    ]);
    // The link written for trained settings leaves them out, so reading it back asks for nothing else.
    expect(settingsToParams({ ...trained.settings, seed: 9 }).toString()).toBe('weights=trained');
  });

  test('the head shown is clamped below the number of heads', () => {
    expect(fromQuery('weights=random&heads=2&head=2').settings.head).toBe(1);
    expect(fromQuery('weights=random&heads=1&head=2').settings.head).toBe(0);
  });
});

describe('tokens', () => {
  test('one token per word, punctuation kept with its word', () => {
    expect(tokenize(ARTICLE_SENTENCE).tokens).toEqual(['The', 'animal', 'crossed', 'the', 'road', 'because', 'it', 'was', 'tired.']);
  });

  test('an empty sentence falls back to the article’s, with a notice', () => {
    const { tokens, notices } = tokenize('   \n\t ');
    expect(tokens).toHaveLength(9);
    expect(notices[0]).toMatch(/no words/);
  });

  test('a 10,000-character sentence is cut, and more than 256 words are cut to 256', () => {
    const long = 'word '.repeat(2000);
    const { tokens, notices } = tokenize(long);
    expect(tokens).toHaveLength(LIMITS.maxTokens);
    expect(LIMITS.maxTokens).toBe(256);
    expect(notices).toEqual(['Only the first 256 of 2000 words are used: the page shows at most 256 tokens.']);
  });

  test('a sentence over 2000 characters but under 256 words: one notice, with both word counts', () => {
    const words = Array.from({ length: 100 }, (_, i) => `${'w'.repeat(30)}${i}`);
    const { tokens, notices } = tokenize(words.join(' '));
    // Words of 31 and 32 characters: 60 whole words fit in 2,000 characters; the 61st would be cut in half.
    expect(words.slice(0, 60).join(' ').length).toBe(1969);
    expect(words.slice(0, 61).join(' ').length).toBe(2002);
    expect(tokens).toEqual(words.slice(0, 60));
    expect(notices).toEqual(['Only the first 2000 characters of the sentence are used (60 of 100 words).']);
  });

  test('zero-width and bidirectional controls are stripped; emoji and RTL letters are kept', () => {
    const { tokens, notices } = tokenize('he\u200bllo \u202eevil \u05e9\u05dc\u05d5\u05dd 🐱');
    expect(tokens).toEqual(['hello', 'evil', 'שלום', '🐱']);
    expect(notices[0]).toMatch(/Invisible/);
  });

  test('markup is just text to the tokenizer', () => {
    expect(tokenize('<img src=x onerror=alert(1)> "><script>').tokens).toEqual(['<img', 'src=x', 'onerror=alert(1)>', '"><script>']);
  });

  test('validated settings carry the cleaned sentence', () => {
    const { settings } = validateSettings({ sentence: 'a\u200b b' });
    expect(settings.sentence).toBe('a b');
  });
});
