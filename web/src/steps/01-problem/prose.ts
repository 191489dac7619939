// Step 1's words: the opening about the sentence shown, the figure's question and caption, the
// reading under it, the notes on unknown words and the prediction asked before it, all made from the
// snapshot the figure drew (the reader model's reading, or the random pipeline's).
import { el } from '../../ui/dom';
import { count, percent, quoted } from '../../ui/format';
import { focusTokenIndex, tokenLabels } from '../../ui/labels';
import { predictionToggle, type PredictQuestion } from '../../ui/predict';
import { WEIGHTS_LABELS } from '../../controls';
import { ARTICLE_SENTENCE } from '../../settings';
import type { Snapshot } from '../../snapshot';
import { headLabel, headSentence, readerModelName } from '../../features/reader/figure';
import { argmax } from '../shared/head-view';
import { defaultFocus, nothingToDrawFrom, shownReader, shownRow, shownWords } from './mixture';

/** Up to this many tokens the reader is asked to predict (one button per token). */
export const PREDICT_MAX_TOKENS = 12;

export function mixtureIdea(): HTMLElement {
  return el(
    'p',
    {},
    'Attention gives every token a new vector: a ',
    el('strong', {}, 'weighted mixture'),
    ' of what all the tokens carry, in proportions computed from the tokens themselves.',
  );
}

export function howTo(predictions: boolean): HTMLElement {
  return el(
    'div',
    { class: 'aside problem-howto' },
    el(
      'p',
      {},
      el('strong', {}, 'How to use this page. '),
      'The settings bar sets the numbers shown, the sentence, d_model and heads, mask, scaling and seed, and its last line says which model each step shows; everything is recomputed in your browser. Click a table cell (or Tab in and use the arrows) to see how it was worked out.',
    ),
    predictions ? predictionToggle() : null,
  );
}

/** The figure's first line: whose sentence, how many tokens. */
export function figureIntro(snapshot: Snapshot): string {
  const n = shownWords(snapshot).length;
  return `${snapshot.settings.sentence === ARTICLE_SENTENCE ? 'The sentence' : 'Your sentence'}, ${n} token${n === 1 ? '' : 's'}: choose one to see its mixture.`;
}

/** The question asked of the followed token: what the pronoun refers to, or what another token needs. */
export function focusQuestion(snapshot: Snapshot, focus: number): string {
  const words = shownWords(snapshot);
  const reader = shownReader(snapshot);
  const pronoun = reader ? reader.answer?.pronoun === focus : focusTokenIndex(words) === focus && plainWord(words[focus]) === 'it';
  return pronoun
    ? `What does ${quoted(words[focus])} (token ${focus + 1}) refer to?`
    : `What does ${quoted(words[focus])} (token ${focus + 1}) need from the other tokens?`;
}

/** The bars' caption, naming the head they come from. */
export function barsCaption(snapshot: Snapshot, focus: number): string {
  const { pipeline: p, settings } = snapshot;
  const reader = shownReader(snapshot);
  const headNote = reader
    ? ` in ${headLabel(reader)} of ${readerModelName(reader.causal)}, the head measured to resolve pronouns`
    : p.heads > 1
      ? ` (head ${settings.head + 1} of ${p.heads})`
      : '';
  return `How much of each token goes into the new vector for ${quoted(shownWords(snapshot)[focus])}${headNote}; the shading of the words above shows the same shares.`;
}

/** The sentence under the figure: which token the followed one draws from most, and in which model. */
export function readingText(snapshot: Snapshot, focus: number): string {
  const { settings } = snapshot;
  if (snapshot.reader !== null && !shownReader(snapshot)) return '';
  if (nothingToDrawFrom(snapshot, focus))
    return `Every token is masked for ${quoted(snapshot.tokens[focus])}, so it has nothing to draw from: its mixture is empty.`;
  const reader = shownReader(snapshot);
  // At the pronoun, the head's reading beside the model's answer (features/reader/figure.ts).
  if (reader?.answer && reader.answer.pronoun === focus) return headSentence(reader);
  const labels = tokenLabels(shownWords(snapshot));
  const row = shownRow(snapshot, focus);
  const top = argmax(row);
  const draws = `${quoted(labels[focus])} draws most from ${quoted(labels[top])}${top === focus ? ' (itself)' : ''}: ${percent(row[top])} of its mixture.`;
  if (reader) return `In ${headLabel(reader)} of ${readerModelName(reader.causal)}, ${draws}`;
  return (
    `With these random, untrained weights (seed ${settings.seed}), ${draws} ` +
    `Which word wins is chance; choose “${WEIGHTS_LABELS.trained}” under Numbers to see a model that resolves “it”. The arithmetic is the same.`
  );
}

/** The notes a reader needs about how the reader model read the sentence: the words it does not know. */
export function readingNotes(snapshot: Snapshot): string[] {
  const reader = shownReader(snapshot);
  if (!reader) return [];
  const unknown = [...new Set(reader.words.filter((_, i) => reader.unknown[i]))];
  if (unknown.length === 0) return [];
  const one = unknown.length === 1;
  return [
    `${unknown.slice(0, 6).map(quoted).join(', ')} ${one ? 'is' : 'are'} not in the vocabulary of ${readerModelName(reader.causal)} (${count(reader.model.vocabularySize)} words): ` +
      `the model reads ${one ? 'it' : 'each'} as its one unknown-word embedding, so ${one ? 'it carries' : 'they carry'} no meaning of ${one ? 'its' : 'their'} own.`,
  ];
}

/** A word without case or punctuation. */
function plainWord(token: string): string {
  return token.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/** Whether the sentence has this word (ignoring case and punctuation). */
function hasWord(tokens: readonly string[], word: string): boolean {
  return tokens.some((token) => plainWord(token) === word);
}

/**
 * The step's opening, about the sentence it shows: the article's, with its answer, or the reader's own
 * (an embedded <attention-problem> with its own `tokens`), about its pronoun, without claiming an answer
 * it does not know.
 */
export function openingText(snapshot: Snapshot): string {
  const { sentence } = snapshot.settings;
  const { tokens } = snapshot;
  if (sentence === ARTICLE_SENTENCE)
    return `Take the sentence “${ARTICLE_SENTENCE}” Roads do not get tired, so “it” is the animal. A model reading each token alone could not tell: “it” starts as the same vector everywhere.`;
  // The pronoun the reader model found (“she”, “they”…), else “it” if the sentence has one.
  const reader = shownReader(snapshot);
  const pronoun = reader?.answer
    ? reader.words[reader.answer.pronoun]
    : hasWord(tokens, 'it')
      ? tokens[focusTokenIndex(tokens)]
      : undefined;
  const focus = pronoun ?? tokens[focusTokenIndex(tokens)] ?? '';
  const quotedSentence = `“${sentence}”${/[.!?]$/.test(sentence) ? '' : '.'}`;
  return pronoun !== undefined
    ? `Take the sentence ${quotedSentence} What does ${quoted(focus)} stand for? A model reading each token alone could not tell: ${quoted(focus)} starts as the same vector everywhere.`
    : `Take the sentence ${quotedSentence} A model reading each token alone could not tell how ${quoted(focus)} relates to the others: each token starts as the same vector wherever it stands.`;
}

/**
 * “Which token will the pronoun draw from most?”, answered by the live weights: the reader model's
 * resolving head, or (random weights) the shown head, asked as a game of chance rather than as meaning.
 * None while the reader model loads.
 */
export function predictQuestion(snapshot: Snapshot): PredictQuestion | null {
  const reader = shownReader(snapshot);
  if (snapshot.reader !== null && !reader) return null;
  const words = shownWords(snapshot);
  const focus = defaultFocus(snapshot);
  if (words.length < 2 || words.length > PREDICT_MAX_TOKENS || nothingToDrawFrom(snapshot, focus)) return null;
  const labels = tokenLabels(words);
  const row = shownRow(snapshot, focus);
  const top = argmax(row);
  const choices = labels.map((label, i) => ({ id: String(i), label: i === focus ? `${label} (itself)` : label }));
  const from = top === focus ? 'itself' : quoted(labels[top]);
  if (reader) {
    const answer = reader.answer;
    const answered =
      answer?.pronoun === focus && answer.antecedent !== null
        ? `, and the model’s answer for ${quoted(labels[focus])} is ${quoted(labels[answer.antecedent])} (${percent(answer.probability, 1)})` +
          (answer.antecedent === top ? '' : ': its other heads and layers move the answer away from this head’s choice')
        : '';
    return {
      key: `problem|${reader.causal ? 'causal ' : ''}reader|${words.join(' ')}`,
      question: `Before you look: in ${readerModelName(reader.causal)}’s head that resolves pronouns, which token will ${quoted(labels[focus])} draw from most?`,
      choices,
      correct: String(top),
      explanation:
        `In ${headLabel(reader)}, the head measured to resolve pronouns, ${quoted(labels[focus])} takes ${percent(row[top])} of its mixture from ${from}${answered}. ` +
        'The model learned this from examples; the steps below work through the same arithmetic by hand.',
    };
  }
  return {
    key: `problem|${words.join(' ')}`,
    question: `Random weights: which token happens to win for ${quoted(labels[focus])}?`,
    choices,
    correct: String(top),
    explanation:
      `With these random weights, ${quoted(labels[focus])} takes ${percent(row[top])} of its mixture from ${from}. ` +
      'These projections are random and untrained, so the winner is down to the seed rather than to meaning (try “New random weights”). ' +
      `They do not say what “it” refers to: the trained model (Numbers: ${WEIGHTS_LABELS.trained}) is what resolves it. The arithmetic below is the same either way.`,
  };
}
