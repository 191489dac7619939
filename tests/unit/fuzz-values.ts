// Random bad (and good) input for the fuzz suites: URL parameters and element attributes as a reader or
// an author might type them, and arguments for the engine API. Seeded, so a failing case can be
// replayed: every suite prints its seed; FUZZ_SEED=<n> reruns it.

/** The suites' seeded generator (mulberry32, tests/unit/helpers.ts). */
export { Rng as FuzzRng } from './helpers';
import type { Rng as FuzzRng } from './helpers';

export const fuzzSeed = (fallback: number) => Number(process.env.FUZZ_SEED ?? fallback) >>> 0;

// ---- text a reader or an author might produce ------------------------------------------------

/** Numbers as typed: in range, at and past the edges, huge, negative, fractional, not numbers at all. */
export function rawNumber(rng: FuzzRng, lo: number, hi: number): string {
  switch (rng.int(0, 9)) {
    case 0:
    case 1:
      return String(rng.int(lo, hi));
    case 2:
      return String(rng.pick([lo, hi, lo - 1, hi + 1, 0, -1, 1, 2]));
    case 3:
      return rng.pick(['1e9', '1e6', '1000000', '99999999999999999999', '4294967296', '1e308', '1e400', '-1e9', '2147483648']);
    case 4:
      return rng.pick(['7.5', '0.5', '-0.1', '2.4999', '12.5', '1e-7', '.5', '5.', '+4', '-0', '0.0', '08', '1E2']);
    case 5:
      return rng.pick(['NaN', 'Infinity', '-Infinity', 'nan', 'inf', 'undefined', 'null', 'true', 'false', '[]', '{}']);
    case 6:
      return rng.pick([
        '',
        ' ',
        '\t',
        'abc',
        '0x10',
        '0b101',
        '0o17',
        '1,5',
        '1_000',
        '8px',
        '٣',
        '８',
        '\u200b8',
        ' 8 ',
        '8\u00a0',
        '½',
        '½8',
        '\u2212' + '3',
      ]);
    case 7:
      return String(rng.next() * 10 ** rng.int(0, 12) * (rng.bool() ? 1 : -1));
    case 8:
      return String(rng.int(-5, 5) * rng.pick([1, 2, 3, 7, 64, 1024]));
    default:
      return randomText(rng, rng.int(1, 12));
  }
}

export function rawFlag(rng: FuzzRng): string {
  return rng.pick([
    '1',
    '0',
    'on',
    'off',
    'true',
    'false',
    'yes',
    'no',
    '',
    'TRUE',
    ' on ',
    'maybe',
    '2',
    '-1',
    'null',
    'causal',
    '✓',
    randomText(rng, 5),
  ]);
}

const WORDS = [
  'the',
  'animal',
  'crossed',
  'road',
  'because',
  'it',
  'was',
  'tired.',
  'a',
  'cat',
  'sat',
  'Attention',
  'IS',
  'all',
  'you',
  'need!',
  '(x)',
  '—',
  '…',
  '42',
  '3.14',
  '-1',
];
const UNICODE = [
  '🐱',
  '👨\u200d👩\u200d👧',
  '🏳\ufe0f\u200d🌈',
  '👍🏽',
  '🇫🇷',
  'שלום',
  'مرحبا',
  'עולם',
  'سلام',
  'می\u200cخواهم',
  '日本語',
  '中文',
  '한국어',
  'Ελληνικά',
  'русский',
  'e\u0301',
  'Z\u0351\u0360\u0361\u035b\u0315a\u0310\u0352l\u0313\u0314g\u0346o',
  'ﬁ',
  'ß',
  'İ',
  'ǅ',
  '\u{1d400}\u{1d401}',
  '𓀀',
  '\u0000',
  '\u0007bell',
  'a\u0085b',
  '\u200b',
  '\u200bzero\u200bwidth',
  '\u202eevil',
  '\u2066iso\u2069',
  '\ufeffbom',
  '\u00ad',
  '\ud800',
  '\udfff',
  'a\ud83d',
  '\u2028',
  '\u3000',
];
const MARKUP = [
  '<img src=x onerror=alert(1)>',
  '"><script>alert(1)</script>',
  'javascript:alert(1)',
  '</style><style>*{display:none}',
  '"; background:url(javascript:alert(1))',
  '&amp;',
  '&lt;b&gt;',
  '<!--',
  ']]>',
  '{{x}}',
];

export function randomText(rng: FuzzRng, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) {
    const kind = rng.int(0, 9);
    if (kind < 5) text += String.fromCharCode(rng.int(0x20, 0x7e));
    else if (kind < 8) text += String.fromCodePoint(rng.int(0xa0, 0x2fff));
    else text += rng.pick(UNICODE);
  }
  return text;
}

/** Sentences: normal, empty, emoji, right-to-left, zero-width, combining marks, markup, huge. */
export function rawSentence(rng: FuzzRng): string {
  const words = (count: number, pool: () => string) =>
    Array.from({ length: count }, pool).join(rng.pick([' ', '  ', '\t', '\n', ' \u00a0 ']));
  switch (rng.int(0, 12)) {
    case 0:
      return rng.pick(['', ' ', '   \n\t ', '\u200b', '\u200b \u200d \ufeff', '\u202e']);
    case 1:
    case 2:
    case 3:
      return words(rng.int(1, 12), () => rng.pick(WORDS));
    case 4:
    case 5:
      return words(rng.int(1, 10), () => rng.pick([...WORDS, ...UNICODE]));
    case 6:
      return words(rng.int(1, 6), () => rng.pick(MARKUP));
    case 7:
      return words(rng.int(1, 8), () => randomText(rng, rng.int(1, 15)));
    case 8:
      return rng.pick(WORDS) + ' ' + 'x'.repeat(rng.int(41, 600)) + ' ' + '🐱'.repeat(rng.int(10, 60));
    case 9:
      return rng.bool(0.3) ? 'word '.repeat(2000) : words(rng.int(60, 200), () => rng.pick(WORDS)); // over the limits, sometimes 10,000 characters
    case 10:
      return 'a'.repeat(rng.int(2001, 10_000));
    case 11:
      return words(rng.int(2, 8), () => rng.pick(['a', 'a', 'a', 'the', 'the'])); // repeated words: equal embeddings, equal rows
    default:
      return words(rng.int(1, 20), () => rng.pick(WORDS) + rng.pick(['', '', '\u200b', '\u0301', '\u200d', '\u202e', '🐱']));
  }
}

/** URL parameter name -> value, each present with some probability, sometimes repeated or misspelt. */
export function rawParams(rng: FuzzRng): [string, string][] {
  const params: [string, string][] = [];
  if (rng.bool(0.6)) params.push(['tokens', rawSentence(rng)]);
  if (rng.bool(0.6)) params.push(['d_model', rawNumber(rng, 1, 512)]);
  if (rng.bool(0.6)) params.push(['heads', rawNumber(rng, 1, 64)]);
  if (rng.bool(0.4)) params.push(['head', rawNumber(rng, 1, 64)]);
  if (rng.bool(0.4)) params.push(['causal', rawFlag(rng)]);
  if (rng.bool(0.4)) params.push(['scale', rawFlag(rng)]);
  if (rng.bool(0.4)) params.push(['seed', rawNumber(rng, 0, 4294967295)]);
  if (rng.bool(0.3)) params.push(['block', rawNumber(rng, 1, 16)]);
  if (rng.bool(0.1)) params.push([rng.pick(['D_MODEL', 'dmodel', 'token', 'step', 'foo', '']), rawNumber(rng, 0, 10)]);
  return params;
}
