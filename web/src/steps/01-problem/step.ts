// The article's opening: what does "it" refer to? The sentence as tokens, and the idea the rest of
// the page computes: each token's new vector is a weighted mixture of every token's information,
// shown live as the mixture one token actually gets from the current weights.
import { BarChart, type Bar } from '../../ui/bars';
import { el, setText } from '../../ui/dom';
import { figureTools } from '../../ui/export-toolbar';
import { percent, quoted } from '../../ui/format';
import { tex } from '../../ui/formula';
import { focusTokenIndex, tokenLabels } from '../../ui/labels';
import { Prediction, predictionToggle, type PredictQuestion } from '../../ui/predict';
import { WEIGHTS_LABELS } from '../../controls';
import { ARTICLE_SENTENCE } from '../../settings';
import { type Snapshot, sentenceView } from '../../snapshot';
import type { StepDefinition } from '../types';
import { sentenceStepNote } from '../shared/worked-example';
import { headName, modelFacts, predictionList, readingNotes, trainedRow } from '../../features/trained-model/trained-words';
import { ReaderFigure } from '../../features/reader/figure';

/** Up to this many tokens the reader is asked to predict (one button per token). */
export const PREDICT_MAX_TOKENS = 12;

/** Above this many tokens the bar chart lists only the largest weights. */
const ALL_BARS_UP_TO = 16;
const TOP_BARS = 10;

/** Row `row` of head `head` of the (h, n, n) weights. */
function weightsRow(snapshot: Snapshot, head: number, row: number): Float32Array {
  const { n, weights } = snapshot.pipeline;
  return weights.data.subarray((head * n + row) * n, (head * n + row + 1) * n);
}

function argmax(values: ArrayLike<number>): number {
  let best = 0;
  for (let j = 1; j < values.length; j++) if (values[j] > values[best]) best = j;
  return best;
}

/**
 * The weights step 1 shows for one token: with trained weights, the model's own attention in the head
 * that resolves "it" (whatever the steps below show); with random weights, the shown head's.
 */
export function shownRow(snapshot: Snapshot, focus: number): Float32Array {
  const { trained } = snapshot;
  return trained ? trainedRow(trained, trained.resolving, focus) : weightsRow(snapshot, snapshot.settings.head, focus);
}

/** The bars for one token's mixture: every token in order, or the largest few plus the rest. */
export function mixtureBars(snapshot: Snapshot, focus: number): Bar[] {
  const { pipeline: p, tokens } = snapshot;
  const row = shownRow(snapshot, focus);
  const labels = tokenLabels(tokens);
  const top = argmax(row);
  // The trained model reads its sentences without a mask (an encoder), whatever the steps below try.
  const allowed = (j: number) => snapshot.trained !== null || p.mask.data[focus * p.n + j] === 1;
  const bar = (j: number): Bar => ({
    label: j === focus ? `${labels[j]} (itself)` : labels[j],
    value: row[j],
    text: allowed(j) ? undefined : 'masked',
    emphasis: j === top && row[j] > 0,
    muted: !allowed(j),
    title: `${quoted(labels[focus])} draws ${percent(row[j], 1)} from ${quoted(labels[j])}`,
  });
  if (p.n <= ALL_BARS_UP_TO) return Array.from(row, (_, j) => bar(j));
  const order = Array.from(row, (_, j) => j).sort((a, b) => row[b] - row[a] || a - b);
  const shown = order.slice(0, TOP_BARS);
  let rest = 0;
  for (const j of order.slice(TOP_BARS)) rest += row[j];
  return [...shown.map(bar), { label: `the other ${p.n - TOP_BARS} tokens together`, value: rest, muted: true, bar: false }];
}

export const problemStep: StepDefinition = {
  id: 'problem',
  number: 1,
  numbers: 'sentence',
  title: 'The problem: what does “it” refer to?',
  summary:
    'To make sense of a word like “it”, a model must pull in information from other words: attention gives every token a weighted mixture of all the tokens.',
  formula: tex`\operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\left(\frac{Q K^{\top}}{\sqrt{d_k}}\right) V`,
  mount(body, context) {
    let snapshot: Snapshot | null = null;
    /** The token the reader picked, or null to follow the default (“it”, else the last token). */
    let picked: number | null = null;
    let sentenceKey = '';

    const chips = el('div', {
      class: 'problem-tokens',
      role: 'radiogroup',
      'aria-label': 'The sentence, one token per word: choose the token to follow',
    });
    const question = el('p', { class: 'problem-question' });
    const intro = el('p', { class: 'problem-intro' });
    const bars = new BarChart({ caption: '', labelHeader: 'token', valueHeader: 'share of the mixture', className: 'problem-bars' });
    const reading = el('p', { class: 'reading', 'aria-live': 'polite' });
    // With trained weights: the model's prediction at "it", what it is, and how it read the sentence.
    const model = el('div', { class: 'problem-model', hidden: true });
    // A live region around the list, not on it: a <ul> with role=status is no longer a list (axe).
    const notes = el('ul', { class: 'problem-notes', hidden: true });
    const figure = el(
      'figure',
      { class: 'figure problem-figure' },
      intro,
      chips,
      question,
      el('div', { class: 'problem-chart' }, bars.element),
      figureTools(
        () => bars.element,
        () => 'The mixture of one token',
        (palette) => bars.svgFile(palette),
        context.embedCode,
      ),
      model,
    );
    // The reader model's answer to the sentence's question (features/reader/): loaded when this figure comes near.
    const readerFigure = new ReaderFigure((causal) => context.loadReaderModel?.(causal));
    // Predict first: which token will the followed token (“it”) draw from most? The figure and the reading are the answer.
    const predict = context.predictions ? new Prediction([figure, reading]) : null;

    const opening = el('p', { class: 'problem-opening' });
    const shownNote = sentenceStepNote(context);
    body.append(
      shownNote.element,
      opening,
      el(
        'p',
        {},
        'Attention gives every token a new vector: a ',
        el('strong', {}, 'weighted mixture'),
        ' of what all the tokens carry, in proportions computed from the tokens themselves.',
      ),
      el('div', { role: 'status' }, notes),
      ...(predict ? [predict.element] : []),
      figure,
      reading,
      readerFigure.element,
      el(
        'div',
        { class: 'aside problem-howto' },
        el(
          'p',
          {},
          el('strong', {}, 'How to use this page. '),
          'The settings bar sets the numbers shown, the sentence, d_model and heads, mask, scaling and seed, and its last line says which model each step shows; everything is recomputed in your browser. Click a table cell (or Tab in and use the arrows) to see how it was worked out.',
        ),
        context.predictions ? predictionToggle() : null,
      ),
    );

    function focusIndex(tokens: string[]): number {
      return picked !== null && picked < tokens.length ? picked : focusTokenIndex(tokens);
    }

    function choose(index: number, moveFocus: boolean): void {
      picked = index;
      if (!snapshot) return;
      show(snapshot);
      if (moveFocus) (chips.children[index] as HTMLElement | undefined)?.focus();
    }

    chips.addEventListener('click', (event) => {
      const chip = (event.target as HTMLElement).closest<HTMLElement>('.problem-chip');
      if (chip) choose(Number(chip.dataset.index), false);
    });
    // A radio group: arrow keys move and choose, Home/End jump to the ends.
    chips.addEventListener('keydown', (event) => {
      const chip = (event.target as HTMLElement).closest<HTMLElement>('.problem-chip');
      if (!chip || !snapshot) return;
      const last = snapshot.tokens.length - 1;
      const at = Number(chip.dataset.index);
      const next = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: last }[event.key];
      if (next === undefined) return;
      event.preventDefault();
      choose(Math.max(0, Math.min(last, next)), true);
    });

    function buildChips(tokens: string[], unknown: readonly boolean[]): void {
      chips.replaceChildren(
        ...tokens.map((token, i) =>
          el(
            'button',
            {
              type: 'button',
              class: `problem-chip${unknown[i] ? ' problem-chip-unknown' : ''}`,
              role: 'radio',
              'data-index': i,
              'aria-checked': 'false',
              tabindex: -1,
              'aria-description': unknown[i] ? 'not in the trained vocabulary' : null,
            },
            token,
            unknown[i] ? el('span', { class: 'problem-chip-mark', 'aria-hidden': 'true' }, '?') : null,
          ),
        ),
      );
    }

    function show(next: Snapshot): void {
      const { pipeline: p, tokens, settings, trained } = next;
      const focus = focusIndex(tokens);
      const row = shownRow(next, focus);
      const top = argmax(row);
      const labels = tokenLabels(tokens);
      let peak = 0;
      for (const w of row) peak = Math.max(peak, w);

      // Only what changed is written: a chip left as it was is not restyled or repainted.
      Array.from(chips.children).forEach((node, j) => {
        const chip = node as HTMLElement;
        const chosen = j === focus;
        const shade = String(Math.round((peak > 0 ? row[j] / peak : 0) * 10));
        const title = `${quoted(labels[focus])} draws ${percent(row[j])} from ${quoted(labels[j])}`;
        if (chip.getAttribute('aria-checked') !== String(chosen)) chip.setAttribute('aria-checked', String(chosen));
        if (chip.tabIndex !== (chosen ? 0 : -1)) chip.tabIndex = chosen ? 0 : -1;
        chip.classList.toggle('chosen', chosen);
        if (chip.dataset.shade !== shade) chip.dataset.shade = shade;
        if (chip.title !== title) chip.title = title;
      });

      setText(
        intro,
        `${next.settings.sentence === ARTICLE_SENTENCE ? 'The sentence' : 'Your sentence'}, ${p.n} token${p.n === 1 ? '' : 's'}: choose one to see its mixture.`,
      );
      const isIt = focusTokenIndex(tokens) === focus && tokens[focus].toLowerCase().replace(/[^\p{L}\p{N}]/gu, '') === 'it';
      setText(
        question,
        isIt
          ? `What does ${quoted(tokens[focus])} (token ${focus + 1}) refer to?`
          : `What does ${quoted(tokens[focus])} (token ${focus + 1}) need from the other tokens?`,
      );

      const headNote = trained
        ? ` in ${headName(trained.resolving)} of the trained model`
        : p.heads > 1
          ? ` (head ${settings.head + 1} of ${p.heads})`
          : '';
      bars.update(
        mixtureBars(next, focus),
        `How much of each token goes into the new vector for ${quoted(tokens[focus])}${headNote}; the shading of the words above shows the same shares.`,
      );

      if (!trained && next.pipeline.fullyMaskedRows[focus]) {
        setText(reading, `Every token is masked for ${quoted(tokens[focus])}, so it has nothing to draw from: its mixture is empty.`);
        return;
      }
      const self = top === focus ? ' (itself)' : '';
      if (trained) {
        // The reader model above answers the question; these bars are the small who-is-it model that the later steps take apart.
        setText(
          reading,
          `In ${trained.origin === 'reader' ? 'your model from “Train it yourself”' : 'the small who-is-it model'} that the steps below take apart (${trained.model.vocabularySize} words, ${headName(trained.resolving)}), ` +
            `${quoted(labels[focus])} draws most from ${quoted(labels[top])}${self}: ${percent(row[top])} of its mixture.`,
        );
        return;
      }
      setText(
        reading,
        `With these random, untrained weights (seed ${settings.seed}), ${quoted(labels[focus])} draws most from ${quoted(labels[top])}${self}: ${percent(row[top])} of its mixture. ` +
          `Which word wins is chance; choose “${WEIGHTS_LABELS.trained}” under Numbers to see a model that resolves “it”. The arithmetic is the same.`,
      );
    }

    function showModel(next: Snapshot): void {
      const { trained } = next;
      // The reader model answers step 1's question: the shipped small model's word list would only contradict it.
      // A reader's own run (step 11) stays in view, named as theirs.
      const hide = !trained || (next.reader !== null && trained.origin === 'shipped');
      if (model.hidden !== hide) model.hidden = hide;
      const listed = trained ? readingNotes(trained, next.tokens) : [];
      if (notes.hidden !== (listed.length === 0)) notes.hidden = listed.length === 0;
      const noteKey = listed.join('\u0001');
      if (notes.dataset.key !== noteKey) {
        notes.dataset.key = noteKey;
        notes.replaceChildren(...listed.map((text) => el('li', {}, text)));
      }
      if (!trained) return;
      const key = JSON.stringify([trained.top, trained.evaluation.accuracy, trained.words[trained.query]]);
      if (model.dataset.key === key) return;
      model.dataset.key = key;
      model.replaceChildren(predictionList(trained), el('p', { class: 'problem-model-facts' }, modelFacts(trained)));
    }

    return {
      render(shown) {
        // Step 1 asks its question of the sentence, also while the worked steps show the article's example.
        const next = sentenceView(shown);
        shownNote.update(shown);
        setText(opening, openingText(next.settings.sentence, next.tokens));
        if (predict) predict.update(predictQuestion(next));
        const unknown = next.trained?.unknown ?? [];
        const key = `${next.tokens.join('\u0001')}|${unknown.join()}`;
        if (key !== sentenceKey) {
          // A new sentence: follow the default token again and rebuild the chips.
          sentenceKey = key;
          picked = null;
          buildChips(next.tokens, unknown);
        }
        snapshot = next;
        readerFigure.update(next.reader);
        show(next);
        showModel(next);
      },
    };
  },
};

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
