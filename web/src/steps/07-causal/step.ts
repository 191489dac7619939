// Causal masking: a token may look at itself and earlier tokens only. Blocked scores become -inf
// before the softmax (weights exactly 0, rows still sum to 1). The mask editor (mask-editor.ts) is the
// step's one control for the page's mask. Below it, always with the causal mask, the right way next to
// the wrong way (softmax first, zero afterwards: compare-figure.ts), whose row sums fall short of 100%,
// and the array as NumPy prints it (numpy-print.ts). Its words are in prose.ts.
import { codeBlock, outputBlock } from '../../ui/code-block';
import { CAUSAL_MASK_LINE } from '../../features/hands-on/numpy-script';
import { el, setText } from '../../ui/dom';
import { Prediction } from '../../ui/predict';
import type { StepDefinition } from '../types';
import { causalStepInfo } from './step-info';
import { workedExampleNote } from '../shared/worked-example';
import { CompareFigure } from './compare-figure';
import { maskEditor } from './mask-editor';
import { numpyPrint, PRINT_MAX_TOKENS } from './numpy-print';
import { codeHeading, compareHeading, futureText, intro, printedLabelText, readingText, zeroAfterQuestion } from './prose';

export const causalStep: StepDefinition = {
  ...causalStepInfo,
  mount(body, context) {
    const worked = workedExampleNote(context);
    const opening = intro();
    // The one control for the mask: the editor's presets (painting is its "painted" option).
    const editor = maskEditor(context);
    const compare = new CompareFigure(context.embedCode);
    const reading = el('p', { class: 'reading causal-reading' });
    const printed = outputBlock('What print(w.round(2)) shows for this page');
    const printedLabel = el('p', { class: 'causal-print-label' });
    // Predict first: does a row still add up to 1 when the future is zeroed after the softmax? Only the
    // wrong way and the reading are the answer: the right way (the article's printed rows) stays readable.
    const predict = context.predictions ? new Prediction([compare.wrongFigure, reading]) : null;

    body.append(
      worked.element,
      opening.element,
      ...editor.elements,
      ...compareHeading(),
      ...(predict ? [predict.element] : []),
      compare.element,
      reading,
      ...codeHeading(),
      codeBlock(`n = len(tokens)\n${CAUSAL_MASK_LINE}`, { label: 'The causal mask in NumPy' }),
      printedLabel,
      printed.element,
    );

    return {
      render(next) {
        worked.update(next);
        const p = next.pipeline;
        setText(opening.future, futureText(next));
        compare.render(next);
        setText(reading, readingText(next));
        predict?.update(zeroAfterQuestion(next));
        editor.render(next);
        setText(printedLabel, printedLabelText(next));
        printed.set(p.n <= PRINT_MAX_TOKENS ? numpyPrint(p.weightsCausal.data, 0, p.n, p.n) : '');
        printed.element.hidden = p.n > PRINT_MAX_TOKENS;
      },
    };
  },
};
