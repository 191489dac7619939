// The article's opening: what does "it" refer to? The sentence as tokens, and the idea the rest of
// the page computes: each token's new vector is a weighted mixture of every token's information,
// shown live as the mixture one token actually gets from the current weights (mixture-figure.ts,
// from mixture.ts), and the reader model's answer (features/reader/). Its words are in prose.ts.
import { el, setText } from '../../ui/dom';
import { tex } from '../../ui/formula';
import { Prediction } from '../../ui/predict';
import { sentenceView, type Snapshot } from '../../snapshot';
import type { StepDefinition } from '../types';
import { sentenceStepNote } from '../shared/worked-example';
import { readingNotes } from '../../features/trained-model/trained-words';
import { ReaderFigure } from '../../features/reader/figure';
import { MixtureFigure } from './mixture-figure';
import { howTo, mixtureIdea, openingText, predictQuestion, readingText } from './prose';

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
    const reading = el('p', { class: 'reading', 'aria-live': 'polite' });
    const figure = new MixtureFigure(context.embedCode, () => showReading());
    // With trained weights: how the model read the sentence (words it does not know, and so on).
    // A live region around the list, not on it: a <ul> with role=status is no longer a list (axe).
    const notes = el('ul', { class: 'problem-notes', hidden: true });
    // The reader model's answer to the sentence's question (features/reader/): loaded when this figure comes near.
    const readerFigure = new ReaderFigure((causal) => context.loadReaderModel?.(causal));
    // Predict first: which token will the followed token (“it”) draw from most? The figure and the reading are the answer.
    const predict = context.predictions ? new Prediction([figure.element, reading]) : null;

    const opening = el('p', { class: 'problem-opening' });
    const shownNote = sentenceStepNote(context);
    body.append(
      shownNote.element,
      opening,
      mixtureIdea(),
      el('div', { role: 'status' }, notes),
      ...(predict ? [predict.element] : []),
      figure.element,
      reading,
      readerFigure.element,
      howTo(context.predictions === true),
    );

    function showReading(): void {
      if (snapshot) setText(reading, readingText(snapshot, figure.focus));
    }

    function showNotes(next: Snapshot): void {
      const listed = next.trained ? readingNotes(next.trained, next.tokens) : [];
      if (notes.hidden !== (listed.length === 0)) notes.hidden = listed.length === 0;
      const noteKey = listed.join('\u0001');
      if (notes.dataset.key !== noteKey) {
        notes.dataset.key = noteKey;
        notes.replaceChildren(...listed.map((text) => el('li', {}, text)));
      }
    }

    return {
      render(shown) {
        // Step 1 asks its question of the sentence, also while the worked steps show the article's example.
        const next = sentenceView(shown);
        shownNote.update(shown);
        setText(opening, openingText(next.settings.sentence, next.tokens));
        if (predict) predict.update(predictQuestion(next));
        snapshot = next;
        readerFigure.update(next.reader);
        figure.render(next);
        showReading();
        showNotes(next);
      },
    };
  },
};

export { predictQuestion } from './prose';
