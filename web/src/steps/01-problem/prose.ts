// Step 1's words: the opening about the sentence shown, the figure's question and caption, the
// reading under it and the prediction asked before it, all made from the snapshot the figure drew.
import { el } from '../../ui/dom';
import { percent, quoted } from '../../ui/format';
import { focusTokenIndex, tokenLabels } from '../../ui/labels';
import { predictionToggle, type PredictQuestion } from '../../ui/predict';
import { WEIGHTS_LABELS } from '../../controls';
import { ARTICLE_SENTENCE } from '../../settings';
import type { Snapshot } from '../../snapshot';
import { headName } from '../../features/trained-model/trained-words';
import { argmax } from '../shared/head-view';
import { shownRow } from './mixture';

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
export function figureIntro({ settings, pipeline: p }: Snapshot): string {
  return `${settings.sentence === ARTICLE_SENTENCE ? 'The sentence' : 'Your sentence'}, ${p.n} token${p.n === 1 ? '' : 's'}: choose one to see its mixture.`;
}

/** The question asked of the followed token: what "it" refers to, or what another token needs. */
export function focusQuestion(tokens: readonly string[], focus: number): string {
  const isIt = focusTokenIndex(tokens) === focus && tokens[focus].toLowerCase().replace(/[^\p{L}\p{N}]/gu, '') === 'it';
  return isIt
    ? `What does ${quoted(tokens[focus])} (token ${focus + 1}) refer to?`
    : `What does ${quoted(tokens[focus])} (token ${focus + 1}) need from the other tokens?`;
}

/** The bars' caption, naming the head they come from. */
export function barsCaption({ pipeline: p, tokens, settings, trained }: Snapshot, focus: number): string {
  const headNote = trained
    ? ` in ${headName(trained.resolving)} of the trained model`
    : p.heads > 1
      ? ` (head ${settings.head + 1} of ${p.heads})`
      : '';
  return `How much of each token goes into the new vector for ${quoted(tokens[focus])}${headNote}; the shading of the words above shows the same shares.`;
}

/** The sentence under the figure: which token the followed one draws from most, and from which model. */
export function readingText(snapshot: Snapshot, focus: number): string {
  const { tokens, settings, trained } = snapshot;
  if (!trained && snapshot.pipeline.fullyMaskedRows[focus])
    return `Every token is masked for ${quoted(tokens[focus])}, so it has nothing to draw from: its mixture is empty.`;
  const labels = tokenLabels(tokens);
  const row = shownRow(snapshot, focus);
  const top = argmax(row);
  const self = top === focus ? ' (itself)' : '';
  if (trained)
    // The reader model above answers the question; these bars are the small who-is-it model that the later steps take apart.
    return (
      `In ${trained.origin === 'reader' ? 'your model from “Train it yourself”' : 'the small who-is-it model'} that the steps below take apart (${trained.model.vocabularySize} words, ${headName(trained.resolving)}), ` +
      `${quoted(labels[focus])} draws most from ${quoted(labels[top])}${self}: ${percent(row[top])} of its mixture.`
    );
  return (
    `With these random, untrained weights (seed ${settings.seed}), ${quoted(labels[focus])} draws most from ${quoted(labels[top])}${self}: ${percent(row[top])} of its mixture. ` +
    `Which word wins is chance; choose “${WEIGHTS_LABELS.trained}” under Numbers to see a model that resolves “it”. The arithmetic is the same.`
  );
}

/** Whether the sentence has this word (ignoring case and punctuation). */
function hasWord(tokens: readonly string[], word: string): boolean {
  return tokens.some((token) => token.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '') === word);
}

/**
 * The step's opening, about the sentence it shows: the article's, with its answer, or the reader's own
 * (an embedded <attention-problem> with its own `tokens`), without claiming an answer it does not know.
 */
export function openingText(sentence: string, tokens: readonly string[]): string {
  if (sentence === ARTICLE_SENTENCE)
    return `Take the sentence “${ARTICLE_SENTENCE}” Roads do not get tired, so “it” is the animal. A model reading each token alone could not tell: “it” starts as the same vector everywhere.`;
  const focus = tokens[focusTokenIndex(tokens)] ?? '';
  const quotedSentence = `“${sentence}”${/[.!?]$/.test(sentence) ? '' : '.'}`;
  return hasWord(tokens, 'it')
    ? `Take the sentence ${quotedSentence} What does ${quoted(focus)} stand for? A model reading each token alone could not tell: ${quoted(focus)} starts as the same vector everywhere.`
    : `Take the sentence ${quotedSentence} A model reading each token alone could not tell how ${quoted(focus)} relates to the others: each token starts as the same vector wherever it stands.`;
}

/**
 * “Which token will “it” draw from most?”, answered by the live weights: the trained model's resolving
 * head, or (random weights) the shown head, asked as a game of chance rather than as meaning.
 */
export function predictQuestion(snapshot: Snapshot): PredictQuestion | null {
  const { pipeline: p, tokens, trained } = snapshot;
  const focus = focusTokenIndex(tokens);
  if (p.n < 2 || p.n > PREDICT_MAX_TOKENS || (!trained && p.fullyMaskedRows[focus])) return null;
  const labels = tokenLabels(tokens);
  const row = shownRow(snapshot, focus);
  const top = argmax(row);
  const choices = labels.map((label, i) => ({ id: String(i), label: i === focus ? `${label} (itself)` : label }));
  if (trained) {
    const answer = trained.top[0];
    return {
      key: `problem|trained|${tokens.join(' ')}`,
      question: `Before you look: in the trained model, which token will ${quoted(labels[focus])} draw from most?`,
      choices,
      correct: String(top),
      explanation:
        `In ${headName(trained.resolving)}, the head that resolves “it”, ${quoted(labels[focus])} takes ${percent(row[top])} of its mixture from ${top === focus ? 'itself' : quoted(labels[top])}` +
        `${focus === trained.query && answer ? `, and the model’s answer at ${quoted(labels[focus])} is ${quoted(answer.word)} (${percent(answer.probability, 1)})` : ''}. ` +
        (hasWord(tokens, 'tired') || hasWord(tokens, 'wide') ? 'The adjective decides: animals get tired, roads are wide. ' : '') +
        'The model learned what it knows from examples; the steps below take its arithmetic apart.',
    };
  }
  return {
    key: `problem|${tokens.join(' ')}`,
    question: `Random weights: which token happens to win for ${quoted(labels[focus])}?`,
    choices,
    correct: String(top),
    explanation:
      `With these random weights, ${quoted(labels[focus])} takes ${percent(row[top])} of its mixture from ${top === focus ? 'itself' : quoted(labels[top])}. ` +
      'These projections are random and untrained, so the winner is down to the seed rather than to meaning (try “New random weights”). ' +
      `They do not say what “it” refers to: the trained model (Numbers: ${WEIGHTS_LABELS.trained}) is what resolves it. The arithmetic below is the same either way.`,
  };
}
