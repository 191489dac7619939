// Step 1's reader figure, under the mixture figure (steps/01-problem/) that draws the same model's
// resolving head: the reader's sentence as the reader model read it (unknown words marked, and words
// outside its vocabulary that it reads through WordNet as known ones, with that word), each candidate's
// probability, the answer in words (or "guessing"), the words that flip the answer, with the causal mask
// where a left-to-right model settles, and the collapsed "What this model knows" panel. Every sentence
// here is made from the ReaderSnapshot it shows (features/reader/answer.ts measured it); none is typed as
// a fact. While the model loads or if it failed, the mixture figure says so.
import { BarChart, type Bar } from '../../ui/bars';
import { el, setText } from '../../ui/dom';
import { count, percent, quoted } from '../../ui/format';
import { stackShape } from '../../steps/shared/figure';
import { GUESS_BELOW, type GuessReason } from './answer';
import type { ReaderSnapshot, ReaderView } from './model';

/**
 * What each WordNet relation of the alias table (cpp/train/reader_aliases.h, kReaderAliasRelations)
 * means, for one word and for a count of them.
 */
export const ALIAS_RELATION_WORDS: Readonly<Record<string, { one: string; many: string }>> = {
  form: { one: 'another form of that word', many: 'other forms of a known word' },
  synonym: { one: 'a synonym', many: 'synonyms' },
  similar: { one: 'a similar adjective', many: 'similar adjectives' },
  hypernym: { one: 'a more general word', many: 'more general words' },
  cousin: { one: 'a nearby noun of the same kind', many: 'nearby nouns of the same kind' },
};
const relationWords = (relation: string) => ALIAS_RELATION_WORDS[relation] ?? { one: relation, many: relation };

/** A word of the sentence in quotes, with the known word it was read as: “ferret” (read as “weasel”). */
export function wordAsRead(r: ReaderSnapshot, position: number): string {
  const alias = r.aliases[position];
  return `${quoted(r.words[position]!)}${alias ? ` (read as ${quoted(alias.readAs)})` : ''}`;
}

/** The words read through the alias table, each with the word it was read as and why; '' when none. */
export function aliasSentence(r: ReaderSnapshot): string {
  const read = r.aliases.flatMap((alias, i) =>
    alias ? [`${quoted(r.words[i]!)} as ${quoted(alias.readAs)} (${relationWords(alias.relation).one})`] : [],
  );
  if (read.length === 0) return '';
  return `Outside its vocabulary, read through WordNet as ${read.length === 1 ? 'a word' : 'words'} it knows: ${read.join(', ')}.`;
}

/** How many of the model's wrong hand-written sentences one page of the panel lists. */
export const WRONG_PER_PAGE = 8;

/** "layer 2, head 3": the head measured to resolve pronouns. */
export const headLabel = (r: ReaderSnapshot) => `layer ${r.head.layer + 1}, head ${r.head.head + 1}`;

/** Row `row` of the resolving head's attention (what word `row` reads), the pronoun's by default. */
export function resolvingRow(r: ReaderSnapshot, row = r.answer!.pronoun): Float32Array {
  const n = r.words.length;
  const layer = r.attention[r.head.layer]!;
  return layer.data.subarray((r.head.head * n + row) * n, (r.head.head * n + row + 1) * n);
}

function top(row: ArrayLike<number>, skip: number): number {
  let best = skip === 0 ? 1 : 0;
  for (let j = 0; j < row.length; j++) if (j !== skip && row[j]! > row[best]!) best = j;
  return best;
}

/** Whose numbers the figure shows, for the shared line: "the reader model (3 layers × 4 heads, d_model 64)", as the loaded model describes itself. */
export function readerModelSummary(r: ReaderSnapshot): string {
  return `${readerModelName(r.causal)} (${stackShape(r.model)})`;
}

export function readerModelName(causal: boolean): string {
  return causal ? 'the causal reader model' : 'the reader model';
}

/** The same for any view: its shape once it is loaded (the shape is read from the model file). */
export function readerViewSummary(view: ReaderView): string {
  return view.status === 'ready' ? readerModelSummary(view) : readerModelName(view.causal);
}

/** What step 1 says in place of its figures while the model loads, or why it could not. */
export function readerStatus(view: Exclude<ReaderView, ReaderSnapshot>): string {
  const which = readerModelName(view.causal);
  return view.status === 'loading'
    ? `Loading ${which} (it answers this step’s question)…`
    : `${which[0]!.toUpperCase()}${which.slice(1)} could not be loaded: ${view.message}. Reload the page to try again.`;
}

/** What the shared line above it does not say: how it reads, its vocabulary, and this sentence's length. */
export function modelLine(r: ReaderSnapshot): string {
  const m = r.model;
  return (
    `${r.causal ? 'Trained with the causal mask, left to right; it' : 'It'} knows ${count(m.vocabularySize)} words ` +
    `and reads up to ${m.positions} tokens; this sentence is ${r.words.length} token${r.words.length === 1 ? '' : 's'}.`
  );
}

function guessWords(r: ReaderSnapshot, reason: GuessReason): string {
  if (reason.kind === 'confidence')
    return `its top candidate has ${percent(r.answer!.probability)}, under the ${percent(GUESS_BELOW)} the page asks for`;
  if (reason.kind === 'unknown-answer') return `${quoted(r.answer!.word ?? '')} is not in its vocabulary`;
  const words = reason.positions.map((i) => quoted(r.words[i]!)).join(', ');
  return `the answer changes when ${words}, which ${reason.positions.length === 1 ? 'it does not know, is' : 'it does not know, are'} left out`;
}

/** The answer in words: “it” → “trophy” (87%), or "guessing: …", or that there is no pronoun. */
export function answerSentence(r: ReaderSnapshot): string {
  const a = r.answer;
  if (!a) return 'This sentence has no pronoun the model resolves (such as “it”, “they” or “she”), so there is no question to answer.';
  const pronoun = quoted(r.words[a.pronoun]!);
  if (a.antecedent === null || a.word === null) return `The model names no word for ${pronoun}.`;
  const alias = r.aliases[a.antecedent];
  const pick = `${pronoun} → ${quoted(a.word)} (${alias ? `read as ${quoted(alias.readAs)}, ` : ''}${percent(a.probability)})`;
  if (a.known) return `The model’s answer: ${pick}.`;
  return `Guessing: ${pick}. It is a guess because ${r.guess.map((g) => guessWords(r, g)).join('; and ')}.`;
}

/** What the resolving head's attention says, and whether it agrees with the answer. */
export function headSentence(r: ReaderSnapshot): string {
  const a = r.answer!;
  const row = resolvingRow(r);
  const best = top(row, a.pronoun);
  const measured = `the head that puts the most weight from the pronoun on its antecedent (${percent(r.head.share)} on average over ${count(r.head.sentences)} generated sentences it was not trained on)`;
  const base = `In ${headLabel(r)}, ${measured}, ${quoted(r.words[a.pronoun]!)} attends most to ${quoted(r.words[best]!)} (${percent(row[best]!)}).`;
  if (a.antecedent === null || best === a.antecedent) return `${base} That is the word the model answers.`;
  return `${base} That is not the answer, ${quoted(a.word!)}: this head alone does not decide here; the other heads and layers move the answer.`;
}

/** Shown until the flips arrive: the answer is drawn first, since finding them runs the model once per word. */
export const FINDING_FLIPS = 'Finding which words decide the answer: the model reads the sentence again with each word read as unknown…';

/** Which words flip the answer when read as unknown, found by running the model again. */
export function flipSentence(r: ReaderSnapshot): string {
  if (!r.answer) return '';
  if (r.flips === null) return FINDING_FLIPS;
  if (r.flips.length === 0)
    return 'Read as an unknown word one at a time, no word other than the candidates changes the answer: none alone decides it.';
  const parts = r.flips.map(
    (f) =>
      `${wordAsRead(r, f.position)} (the answer becomes ${f.antecedent === null ? 'no word' : quoted(r.words[f.antecedent]!)}, ${percent(f.probability)})`,
  );
  return `Read as an unknown word, ${parts.length === 1 ? 'one word flips' : `${parts.length} words flip`} the answer: ${parts.join(', ')}. Try changing ${parts.length === 1 ? 'it' : 'one of them'}.`;
}

/** With the causal model: what it can know at the pronoun, and where its answer settles. */
export function causalSentence(r: ReaderSnapshot): string {
  if (!r.causal || !r.answer) return '';
  const a = r.answer;
  const pronoun = quoted(r.words[a.pronoun]!);
  const visible = `A left-to-right model at ${pronoun} has read only the ${a.pronoun + 1} words up to it, not what follows.`;
  if (!r.settling) return `${visible} ${pronoun} is the last word, so its answer there is its final one.`;
  const { atPronoun, settlesAt } = r.settling;
  const there = `At ${pronoun} it would answer ${quoted(r.words[atPronoun.antecedent]!)} (${percent(atPronoun.probability)})`;
  if (settlesAt === a.pronoun) return `${visible} ${there}, and the later words keep that answer.`;
  return `${visible} ${there}; its answer settles on ${quoted(a.word ?? '')} at ${quoted(r.words[settlesAt]!)} (word ${settlesAt + 1}) and stays there to the end.`;
}

function candidateBars(r: ReaderSnapshot): Bar[] {
  return r.candidates.map(({ position, probability }) => ({
    label: `${r.words[position]}${r.unknown[position] ? ' (unknown)' : r.aliases[position] ? ` (read as ${r.aliases[position].readAs})` : ''}`,
    value: probability,
    emphasis: position === r.answer?.antecedent,
    title: `The model gives ${quoted(r.words[position]!)} ${percent(probability, 1)}`,
  }));
}

/** What the panel says of the words outside the vocabulary: the alias table by relation, and what is left unknown. */
export function aliasPanelSentence(rec: ReaderSnapshot['record']): string {
  const unread = rec.unknownWords;
  const left = `In the hand-written sentences below, ${count(unread.handwrittenAliased)} words are read that way and ${count(unread.handwrittenUnknown)} still as unknown.`;
  if (rec.aliases.words === 0) return `Every word outside its vocabulary reads as one unknown word. ${left}`;
  const kinds = Object.entries(rec.aliases.byRelation)
    .filter(([, n]) => n > 0)
    .map(([relation, n]) => `${count(n)} ${n === 1 ? relationWords(relation).one : relationWords(relation).many}`);
  return (
    `A word outside its vocabulary is read as the closest word it knows in WordNet 3.0, where there is one ` +
    `(the weights are the same; the measurements below include it): ${count(rec.aliases.words)} such words (${kinds.join(', ')}). ${left}`
  );
}

/** "What this model knows": training, the three measured accuracies, and the sentences it gets wrong. */
function knowsPanel(r: ReaderSnapshot, page: number): HTMLElement[] {
  const rec = r.record;
  const score = (s: { correct: number; sentences: number }) =>
    `${percent(s.correct / Math.max(1, s.sentences), 1)} (${count(s.correct)} of ${count(s.sentences)})`;
  const wrong = rec.handwrittenWrong;
  const pages = Math.max(1, Math.ceil(wrong.length / WRONG_PER_PAGE));
  const shown = wrong.slice(page * WRONG_PER_PAGE, (page + 1) * WRONG_PER_PAGE);
  return [
    el(
      'p',
      {},
      `Trained by this repository’s C++ for ${count(rec.steps)} steps (batch ${rec.batch}, seed ${rec.seed}) on generated sentences: ` +
        `${rec.frames} sentence frames over a vocabulary of ${count(rec.vocabulary)} words from WordNet. ` +
        `${count(rec.parameters)} parameters, ${rec.quantization}, ${count(rec.bytes)} bytes.`,
    ),
    el('p', {}, aliasPanelSentence(rec)),
    el(
      'ul',
      {},
      el('li', {}, `Generated held-out sentences (word combinations never trained on): ${score(rec.heldoutWords)}.`),
      el('li', {}, `Generated sentences of ${rec.heldoutFrameNames.length} frames never trained on: ${score(rec.heldoutFrames)}.`),
      el('li', {}, `Hand-written sentences in varied wording: ${score(rec.handwritten)}.`),
      el(
        'li',
        {},
        `Minimal pairs (one word changed flips the answer), both right: ${score({ correct: rec.minimalPairs.bothRight, sentences: rec.minimalPairs.pairs })}.`,
      ),
    ),
    el(
      'p',
      {},
      wrong.length
        ? `The ${wrong.length} hand-written sentences it gets wrong (page ${page + 1} of ${pages}):`
        : 'It gets every hand-written sentence right.',
    ),
    el(
      'ol',
      { class: 'reader-wrong', start: page * WRONG_PER_PAGE + 1 },
      ...shown.map((w) =>
        el(
          'li',
          {},
          `${w.text} `,
          el(
            'span',
            { class: 'reader-wrong-note' },
            `(expected ${quoted(w.expected)}, answered ${w.answered === null ? 'nothing' : quoted(w.answered)})`,
          ),
        ),
      ),
    ),
    el(
      'div',
      { class: 'reader-wrong-pages' },
      el('button', { type: 'button', 'data-page': page - 1, disabled: page === 0 ? '' : null }, 'Previous'),
      el('button', { type: 'button', 'data-page': page + 1, disabled: page + 1 >= pages ? '' : null }, 'Next'),
    ),
  ];
}

export class ReaderFigure {
  readonly element: HTMLElement;
  private readonly modelInfo = el('p', { class: 'reader-model-line' });
  private readonly sentence = el('p', { class: 'reader-sentence' });
  private readonly aliasLine = el('p', { class: 'reader-aliases' });
  private readonly answer = el('p', { class: 'reader-answer', 'aria-live': 'polite' });
  private readonly candidates = new BarChart({
    caption: '',
    labelHeader: 'candidate',
    valueHeader: 'probability',
    className: 'reader-candidates',
  });
  private readonly flips = el('p', { class: 'reader-flips' });
  private readonly causal = el('p', { class: 'reader-causal' });
  private readonly knows = el('div', { class: 'reader-knows-body' });
  private readonly details = el('details', { class: 'reader-knows' }, el('summary', {}, 'What this model knows'), this.knows);
  private shown: ReaderSnapshot | null = null;
  private page = 0;

  constructor() {
    this.element = el(
      'div',
      { class: 'reader-figure', 'data-reader': '', hidden: true },
      this.modelInfo,
      this.sentence,
      this.aliasLine,
      this.answer,
      this.candidates.element,
      this.causal,
      this.flips,
      this.details,
    );
    this.knows.addEventListener('click', (event) => {
      const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-page]');
      if (!button || !this.shown) return;
      this.page = Number(button.dataset.page);
      this.knows.replaceChildren(...knowsPanel(this.shown, this.page));
    });
  }

  /** Shown once the reading is ready; hidden with random weights, and while loading or failed (the mixture figure says why). */
  update(view: ReaderView | null): void {
    const r = view?.status === 'ready' ? view : null;
    if (view) this.element.dataset.status = view.status;
    this.element.hidden = r === null;
    if (!r) return;
    this.element.dataset.causal = String(r.causal);
    setText(this.modelInfo, modelLine(r) + (r.cut ? ` It reads the first ${r.cut.positions} of your ${r.cut.words} words.` : ''));
    this.sentence.replaceChildren(
      ...r.words.flatMap((word, i) => {
        const alias = r.aliases[i];
        return [
          el(
            'span',
            {
              class: [
                'reader-word',
                r.unknown[i] ? 'reader-unknown' : '',
                alias ? 'reader-aliased' : '',
                i === r.answer?.pronoun ? 'reader-pronoun' : '',
                i === r.answer?.antecedent ? 'reader-antecedent' : '',
              ]
                .filter(Boolean)
                .join(' '),
              title: r.unknown[i]
                ? 'not in the model’s vocabulary'
                : alias
                  ? `not in the model’s vocabulary: read as ${quoted(alias.readAs)}, ${relationWords(alias.relation).one} in WordNet`
                  : null,
            },
            word,
            r.unknown[i] ? el('span', { class: 'reader-unknown-mark', 'aria-label': ' (unknown word)' }, '?') : null,
            alias ? el('span', { class: 'reader-alias-mark', 'aria-label': ` (read as ${alias.readAs})` }, `→${alias.readAs}`) : null,
          ),
          ' ',
        ];
      }),
    );
    setText(this.aliasLine, aliasSentence(r));
    this.aliasLine.hidden = this.aliasLine.textContent === '';
    this.answer.classList.toggle('reader-guessing', r.answer !== null && !r.answer.known);
    setText(this.answer, answerSentence(r));
    const withPronoun = r.answer !== null;
    this.candidates.element.hidden = !withPronoun || r.candidates.length === 0;
    if (withPronoun) {
      this.candidates.update(
        candidateBars(r),
        `The model’s probability for each candidate word${r.causal && r.queries.length > 1 ? ', after the last word' : ''}`,
      );
    }
    setText(this.flips, flipSentence(r));
    this.flips.setAttribute('aria-busy', String(withPronoun && r.flips === null));
    setText(this.causal, causalSentence(r));
    this.causal.hidden = !r.causal || !withPronoun;
    if (this.shown?.record !== r.record) {
      this.page = 0;
      this.knows.replaceChildren(...knowsPanel(r, 0));
    }
    this.shown = r;
  }
}
