// The article's opening: what does "it" refer to? The sentence as tokens, and the idea the rest of
// the page computes: each token's new vector is a weighted mixture of every token's information,
// shown live as the mixture one token gets in the reader model's head that resolves pronouns
// (mixture-figure.ts, from mixture.ts), then that model's answer (features/reader/). One model for
// the whole step; with random weights, the random pipeline's head instead. Its words are in prose.ts.
import { el, setText } from '../../ui/dom';
import { tex } from '../../ui/formula';
import { Prediction } from '../../ui/predict';
import { sentenceView, type Snapshot } from '../../snapshot';
import type { StepDefinition } from '../types';
import { sentenceStepNote } from '../shared/worked-example';
import { modelSummary } from '../shared/which-model';
import { ReaderFigure, readerViewSummary } from '../../features/reader/figure';
import { ModelRequest } from '../../features/reader/model-request';
import { MixtureFigure } from './mixture-figure';
import { howTo, mixtureIdea, openingText, predictQuestion, readingNotes, readingText } from './prose';

export const problemStep: StepDefinition = {
  id: 'problem',
  number: 1,
  numbers: 'reader',
  title: 'The problem: what does “it” refer to?',
  summary:
    'To make sense of a word like “it”, a model must pull in information from other words: attention gives every token a weighted mixture of all the tokens.',
  formula: tex`\operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\left(\frac{Q K^{\top}}{\sqrt{d_k}}\right) V`,
  mount(body, context) {
    let snapshot: Snapshot | null = null;
    const reading = el('p', { class: 'reading', 'aria-live': 'polite' });
    const figure = new MixtureFigure(context.embedCode, () => showReading());
    // How the reader model read the sentence: the words it does not know.
    // A live region around the list, not on it: a <ul> with role=status is no longer a list (axe).
    const notes = el('ul', { class: 'problem-notes', hidden: true });
    // The reader model's answer to the sentence's question (features/reader/).
    const readerFigure = new ReaderFigure();
    // Its weights are downloaded once the figure comes near the viewport (not for a link to a later step).
    const request = new ModelRequest(figure.element, (causal) => context.loadReaderModel?.(causal));
    // Predict first: which token will the followed token (the pronoun) draw from most? The figure and the reading are the answer.
    const predict = context.predictions ? new Prediction([figure.element, reading]) : null;

    const opening = el('p', { class: 'problem-opening' });
    const shownNote = sentenceStepNote(context, (next) => (next.reader ? readerViewSummary(next.reader) : modelSummary(next)));
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
      if (!snapshot) return;
      const text = readingText(snapshot, figure.focus);
      setText(reading, text);
      if (reading.hidden !== (text === '')) reading.hidden = text === '';
    }

    function showNotes(next: Snapshot): void {
      const listed = readingNotes(next);
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
        setText(opening, openingText(next));
        if (predict) predict.update(predictQuestion(next));
        snapshot = next;
        request.want(next.reader?.status === 'loading' ? next.reader.causal : null);
        readerFigure.update(next.reader);
        figure.render(next);
        showReading();
        showNotes(next);
      },
    };
  },
};

export { predictQuestion } from './prose';
