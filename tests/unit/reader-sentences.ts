// Reads the hand-written test set of step 1's reader model (tests/data/reader/, format in its README.md):
// the yardstick the model's accuracy is measured against, so its own tests import this parser rather than
// reading the files a second way. A malformed line throws, naming the file and line, instead of being
// skipped: a silently dropped sentence would make the measured accuracy a lie.
import { readFileSync } from 'node:fs';

export const READER_DATA_DIR = new URL('../data/reader/', import.meta.url);

export const READER_PRONOUNS = ['it', 'its', 'they', 'them', 'their', 'he', 'him', 'his', 'she', 'her'] as const;
export type ReaderPronoun = (typeof READER_PRONOUNS)[number];

export const READER_TAGS = [
  'because',
  'so',
  'when',
  'after',
  'although',
  'negation',
  'passive',
  'size-fit',
  'pass-through',
  'distractor',
  'adjective',
  'relative-clause',
  'two-sentences',
  'plural',
  'he-she',
  'possessive',
  'other',
] as const;
export type ReaderTag = (typeof READER_TAGS)[number];

/** What the set promises (issue 38 and the README): sizes, sentence lengths, the span a pair may change. */
export const READER_LIMITS = {
  minHandwritten: 220,
  minPerTag: 8,
  minPairs: 60,
  minWords: 6,
  maxWords: 40,
  /** A minimal pair changes at most this many consecutive words on each side. */
  maxPairChange: 3,
} as const;

/** One sentence. Positions index `words`. */
export interface ReaderSentence {
  /** `file:line`, for messages. */
  source: string;
  /** The line as written, marks included. */
  marked: string;
  /** The sentence a reader would type: the marks removed. */
  text: string;
  /** `text` split on whitespace, each token lower-cased with leading and trailing punctuation stripped. */
  words: string[];
  pronoun: number;
  /** The correct answer: the antecedent's head noun. */
  antecedent: number;
  /** The other candidate the pronoun could grammatically take. */
  rival: number;
  tags: ReaderTag[];
}

/** Two sentences that differ in one short span and whose answers differ. */
export interface MinimalPair {
  first: ReaderSentence;
  second: ReaderSentence;
  /** Words [start, firstEnd) of `first` were replaced by words [start, secondEnd) of `second`. */
  changed: { start: number; firstEnd: number; secondEnd: number };
}

const MARKS = [
  { field: 'pronoun', open: '{', close: '}' },
  { field: 'antecedent', open: '[', close: ']' },
  { field: 'rival', open: '<', close: '>' },
] as const;
const MARK_CHARACTERS = /[{}[\]<>]/g;
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

/** The model's tokens of a typed sentence: whitespace-separated, lower-cased, edge punctuation stripped. */
export function readerWords(text: string): string[] {
  return text
    .split(/\s+/)
    .filter((token) => token !== '')
    .map((token) => token.replace(EDGE_PUNCTUATION, '').toLowerCase());
}

function isTag(word: string): word is ReaderTag {
  return (READER_TAGS as readonly string[]).includes(word);
}

function isPronoun(word: string): word is ReaderPronoun {
  return (READER_PRONOUNS as readonly string[]).includes(word);
}

/** Parses one non-comment line, `sentence  # tag tag`. Throws on anything outside the format. */
export function parseReaderLine(line: string, source: string): ReaderSentence {
  const fail = (why: string): never => {
    throw new Error(`${source}: ${why}: ${line}`);
  };
  const hash = line.indexOf('#');
  const marked = (hash < 0 ? line : line.slice(0, hash)).trim();
  const tagWords =
    hash < 0
      ? []
      : line
          .slice(hash + 1)
          .trim()
          .split(/\s+/)
          .filter(Boolean);
  const tags: ReaderTag[] = [];
  for (const tag of tagWords) {
    if (!isTag(tag)) fail(`unknown tag "${tag}"`);
    else if (tags.includes(tag)) fail(`tag "${tag}" given twice`);
    else tags.push(tag);
  }

  const rawTokens = marked.split(/\s+/);
  const positions = { pronoun: -1, antecedent: -1, rival: -1 };
  rawTokens.forEach((raw, index) => {
    const word = raw.replace(MARK_CHARACTERS, '').replace(EDGE_PUNCTUATION, '').toLowerCase();
    if (word === '') fail(`token ${index} ("${raw}") is punctuation only, so positions would depend on the tokenizer`);
    for (const { field, open, close } of MARKS) {
      const start = raw.indexOf(open);
      if (start < 0 && !raw.includes(close)) continue;
      const end = raw.indexOf(close);
      if (start < 0 || end < start) fail(`unbalanced ${open}${close} in "${raw}"`);
      if (positions[field] >= 0) fail(`more than one ${open}${field}${close}`);
      const inside = raw.slice(start + 1, end);
      if (inside.toLowerCase() !== word) fail(`${open}${close} must wrap the whole word "${word}", not "${inside}"`);
      positions[field] = index;
    }
  });
  for (const { field, open, close } of MARKS) if (positions[field] < 0) fail(`no ${open}${field}${close}`);

  const text = marked.replace(MARK_CHARACTERS, '');
  const words = readerWords(text);
  if (words.length !== rawTokens.length) fail('the marks change the tokens');
  if (!isPronoun(words[positions.pronoun]!)) fail(`"${words[positions.pronoun]}" is not one of ${READER_PRONOUNS.join(', ')}`);
  if (words.length < READER_LIMITS.minWords || words.length > READER_LIMITS.maxWords) {
    fail(`${words.length} words, outside ${READER_LIMITS.minWords}–${READER_LIMITS.maxWords}`);
  }
  return { source, marked, text, words, ...positions, tags };
}

interface SourceLine {
  line: string;
  source: string;
}

/** Non-comment lines, grouped by blank lines (comment lines neither count nor separate). */
function blocks(content: string, file: string): SourceLine[][] {
  const groups: SourceLine[][] = [[]];
  content.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    if (line.trim() === '') {
      if (groups.at(-1)!.length > 0) groups.push([]);
    } else if (!line.trimStart().startsWith('#')) {
      groups.at(-1)!.push({ line, source: `${file}:${index + 1}` });
    }
  });
  return groups.filter((group) => group.length > 0);
}

export function parseReaderSentences(content: string, file: string): ReaderSentence[] {
  return blocks(content, file)
    .flat()
    .map(({ line, source }) => parseReaderLine(line, source));
}

export function parseMinimalPairs(content: string, file: string): MinimalPair[] {
  return blocks(content, file).map((group) => {
    if (group.length !== 2) throw new Error(`${group[0]!.source}: a pair needs exactly 2 lines, found ${group.length}`);
    const [first, second] = group.map(({ line, source }) => parseReaderLine(line, source)) as [ReaderSentence, ReaderSentence];
    const shorter = Math.min(first.words.length, second.words.length);
    let start = 0;
    while (start < shorter && first.words[start] === second.words[start]) start++;
    let suffix = 0;
    while (suffix < shorter - start && first.words.at(-1 - suffix) === second.words.at(-1 - suffix)) suffix++;
    return { first, second, changed: { start, firstEnd: first.words.length - suffix, secondEnd: second.words.length - suffix } };
  });
}

function readData(file: string): string {
  return readFileSync(new URL(file, READER_DATA_DIR), 'utf8');
}

/** The whole set, parsed: what the model's accuracy tests score. */
export function loadReaderSet(): { handwritten: ReaderSentence[]; pairs: MinimalPair[] } {
  return {
    handwritten: parseReaderSentences(readData('handwritten.txt'), 'handwritten.txt'),
    pairs: parseMinimalPairs(readData('minimal-pairs.txt'), 'minimal-pairs.txt'),
  };
}
