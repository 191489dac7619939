// The hand-written test set of step 1's reader model (tests/data/reader/) is well formed: every line
// parses to the positions its marks say, the set is as large and as balanced as issue 38 asks, the
// minimal pairs really are minimal and really flip, and the README's counts are the files' counts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  READER_DATA_DIR,
  READER_LIMITS,
  READER_PRONOUNS,
  READER_TAGS,
  loadReaderSet,
  parseMinimalPairs,
  parseReaderLine,
  parseReaderSentences,
  readerWords,
  type ReaderSentence,
} from './reader-sentences';

const { handwritten, pairs } = loadReaderSet();
const pairSentences = pairs.flatMap(({ first, second }) => [first, second]);
const everySentence = [...handwritten, ...pairSentences];

function byText(text: string): ReaderSentence {
  const found = everySentence.filter((sentence) => sentence.text === text);
  expect(found, text).toHaveLength(1);
  return found[0]!;
}

describe('reader sentence parser', () => {
  it('gives the positions the README defines on known lines', () => {
    expect(byText('The cat ran away from the dog because it was barking so loudly.')).toMatchObject({
      source: 'handwritten.txt:7',
      words: ['the', 'cat', 'ran', 'away', 'from', 'the', 'dog', 'because', 'it', 'was', 'barking', 'so', 'loudly'],
      pronoun: 8,
      antecedent: 6,
      rival: 1,
      tags: ['because'],
    });
    // Two sentences: "fridge." and "{It}" lose their punctuation and capital.
    expect(byText('I put the milk in the fridge. It had been sitting out all morning.')).toMatchObject({
      words: ['i', 'put', 'the', 'milk', 'in', 'the', 'fridge', 'it', 'had', 'been', 'sitting', 'out', 'all', 'morning'],
      pronoun: 7,
      antecedent: 3,
      rival: 6,
    });
    // The pronoun before its antecedent.
    expect(byText('Before it went to sleep, the puppy chewed my slipper to pieces.')).toMatchObject({
      words: ['before', 'it', 'went', 'to', 'sleep', 'the', 'puppy', 'chewed', 'my', 'slipper', 'to', 'pieces'],
      pronoun: 1,
      antecedent: 6,
      rival: 9,
      tags: ['other'],
    });
    // The shortest line, with a semicolon after the rival.
    expect(byText('My cat hates baths; it hisses.')).toMatchObject({
      words: ['my', 'cat', 'hates', 'baths', 'it', 'hisses'],
      pronoun: 4,
      antecedent: 1,
      rival: 3,
    });
  });

  it('tokenizes as the README says: whitespace, lower case, edge punctuation stripped', () => {
    expect(readerWords('  "Well," Mum said:  the DOG\'s bowl -- it is EMPTY!  ')).toEqual([
      'well',
      'mum',
      'said',
      'the',
      "dog's",
      'bowl',
      '',
      'it',
      'is',
      'empty',
    ]);
  });

  it('reads a pair file into pairs with the changed span', () => {
    const [pair, ...rest] = parseMinimalPairs(
      '# comment\n\nThe [fox] chased the <hen> because {it} was hungry.\nThe <fox> chased the [hen] because {it} was slow.\n',
      'test.txt',
    );
    expect(rest).toHaveLength(0);
    expect(pair!.first.source).toBe('test.txt:3');
    expect(pair!.second.antecedent).toBe(4);
    expect(pair!.changed).toEqual({ start: 8, firstEnd: 9, secondEnd: 9 });
    expect(() => parseMinimalPairs('The [fox] chased the <hen> because {it} was hungry.\n', 'odd.txt')).toThrow(
      'odd.txt:1: a pair needs exactly 2 lines, found 1',
    );
  });

  it.each([
    ['The dog chased the cat because it was bored.', 'no {pronoun}'],
    ['The [dog] chased the cat because {it} was bored.', 'no <rival>'],
    ['The [dog] chased the <cat> because {it} was {bored}.', 'more than one {pronoun}'],
    ['The [dog] chased the <cat> because {this} was odd.', '"this" is not one of'],
    ['The [dog] chased the <cat> because {it} was bored.  # becuase', 'unknown tag "becuase"'],
    ['The [dog] chased the <cat> because {it} was bored.  # so so', 'tag "so" given twice'],
    ['The [big dog] chased the <cat> because {it} was bored.', 'unbalanced []'],
    ['The [do]g chased the <cat> because {it} was bored.', '[] must wrap the whole word "dog", not "do"'],
    ['The [<dog>] chased the cat because {it} was bored.', '[] must wrap the whole word "dog", not "<dog>"'],
    ['The [dog] - chased the <cat> because {it} was bored.', 'token 2 ("-") is punctuation only'],
    ['[Dog] bit <cat>; {it} hid.', '5 words, outside 6–40'],
  ])('refuses %s', (line, message) => {
    expect(() => parseReaderLine(line, 'bad.txt:1')).toThrow(message);
    expect(() => parseReaderSentences(`# a comment\n${line}\n`, 'bad.txt')).toThrow(`bad.txt:2: ${message}`);
  });
});

describe('the hand-written set', () => {
  it('has the promised sizes', () => {
    expect(handwritten.length).toBeGreaterThanOrEqual(READER_LIMITS.minHandwritten);
    expect(pairs.length).toBeGreaterThanOrEqual(READER_LIMITS.minPairs);
  });

  it('marks, in every sentence, the words the positions point at, in the order written', () => {
    for (const sentence of everySentence) {
      // Read the marks again without the parser: the word inside each pair of brackets.
      const marks = [...sentence.marked.matchAll(/\{(\w+)\}|\[(\w+)\]|<(\w+)>/g)];
      expect(marks, sentence.source).toHaveLength(3);
      const written = Object.fromEntries(
        marks.map((mark) => [
          mark[1] ? 'pronoun' : mark[2] ? 'antecedent' : 'rival',
          { word: mark.slice(1).find(Boolean), at: mark.index },
        ]),
      );
      for (const field of ['pronoun', 'antecedent', 'rival'] as const) {
        expect(sentence.words[sentence[field]], `${sentence.source} ${field}`).toBe(written[field]!.word!.toLowerCase());
      }
      const byPosition = (['pronoun', 'antecedent', 'rival'] as const).toSorted((a, b) => sentence[a] - sentence[b]);
      const byCharacter = (['pronoun', 'antecedent', 'rival'] as const).toSorted((a, b) => written[a]!.at! - written[b]!.at!);
      expect(byPosition, sentence.source).toEqual(byCharacter);
      expect(sentence.words.length).toBeGreaterThanOrEqual(READER_LIMITS.minWords);
      expect(sentence.words.length).toBeLessThanOrEqual(READER_LIMITS.maxWords);
    }
  });

  it('uses every allowed pronoun, and only those', () => {
    const used = new Set(everySentence.map((sentence) => sentence.words[sentence.pronoun]));
    expect([...used].sort()).toEqual([...READER_PRONOUNS].sort());
  });

  it('varies its sentence lengths over the allowed range', () => {
    const lengths = handwritten.map((sentence) => sentence.words.length);
    expect(Math.min(...lengths)).toBe(READER_LIMITS.minWords);
    expect(Math.max(...lengths)).toBeGreaterThanOrEqual(30);
  });

  it('tags every hand-written sentence, each tag at least 8 times, its answer first and second about equally', () => {
    for (const sentence of handwritten) expect(sentence.tags.length, sentence.source).toBeGreaterThan(0);
    for (const tag of READER_TAGS) {
      const tagged = handwritten.filter((sentence) => sentence.tags.includes(tag));
      expect(tagged.length, tag).toBeGreaterThanOrEqual(READER_LIMITS.minPerTag);
      // Position alone must not decide: the antecedent is the earlier candidate in 35–65 % of each tag.
      const first = tagged.filter((sentence) => sentence.antecedent < sentence.rival).length / tagged.length;
      expect(first, tag).toBeGreaterThanOrEqual(0.35);
      expect(first, tag).toBeLessThanOrEqual(0.65);
    }
  });

  it('holds no sentence twice, across both files', () => {
    const seen = new Map<string, string>();
    for (const sentence of everySentence) {
      const key = sentence.words.join(' ');
      expect(seen.get(key), `${sentence.source} repeats`).toBeUndefined();
      seen.set(key, sentence.source);
    }
  });

  it('has minimal pairs that change one short span and flip between the same two candidates', () => {
    for (const { first, second, changed } of pairs) {
      const where = `${first.source} / ${second.source}`;
      expect(Math.max(changed.firstEnd, changed.secondEnd) - changed.start, where).toBeGreaterThan(0);
      expect(changed.firstEnd - changed.start, where).toBeLessThanOrEqual(READER_LIMITS.maxPairChange);
      expect(changed.secondEnd - changed.start, where).toBeLessThanOrEqual(READER_LIMITS.maxPairChange);
      expect(first.words[first.antecedent], where).not.toBe(second.words[second.antecedent]);
      expect(first.words[first.antecedent], where).toBe(second.words[second.rival]);
      expect(second.words[second.antecedent], where).toBe(first.words[first.rival]);
    }
  });

  it('is counted in its README as it is in the files', () => {
    const readme = readFileSync(new URL('README.md', READER_DATA_DIR), 'utf8');
    const rows = new Map(
      [...readme.matchAll(/^\| `([\w-]+)` \| (\d+) \| (\d+) \|$/gm)].map((row) => [row[1], [Number(row[2]), Number(row[3])]]),
    );
    const counted = (sentences: ReaderSentence[]) => [sentences.length, sentences.filter((s) => s.antecedent < s.rival).length];
    expect(rows).toEqual(
      new Map([
        ...READER_TAGS.map((tag) => [tag, counted(handwritten.filter((sentence) => sentence.tags.includes(tag)))] as const),
        ['all', counted(handwritten)],
      ]),
    );
    expect(readme).toContain(`**${pairs.length} pairs**`);
  });
});
