// The line at the top of each worked step (2 to 7) that says which numbers it shows, and the one button
// that switches between the article's four-token example and the sentence. A reader holding the article
// finds its numbers by default; one who moved to the sentence sees that they did, and the way back.
import { ARTICLE_DEVIATIONS, EXAMPLE_D_K, EXAMPLE_D_MODEL, EXAMPLE_TOKENS } from '../../article-example';
import { el, replaceChildren, setText } from '../../ui/dom';
import { quoted, sub } from '../../ui/format';
import { capitalised, modelShape, modelSummary } from './which-model';
import { sentenceView, whoIsIt, type Snapshot } from '../../snapshot';
import type { StepContext } from '../types';

/** The generator writes plain-text indices (d_k, q_1); the page prints them as subscripts (dₖ, q₁). */
function subscripted(text: string): string {
  return text.replace(/\b([a-z])_(k|\d+)\b/g, (_, base: string, index: string) => base + (index === 'k' ? 'ₖ' : sub(Number(index))));
}

export interface WorkedExampleNote {
  element: HTMLElement;
  update(snapshot: Snapshot): void;
}

/** @param details  true in the first worked step: it also lists where the reconstruction differs from the article. */
export function workedExampleNote(context: Pick<StepContext, 'update'>, details = false): WorkedExampleNote {
  const text = el('span', { class: 'worked-example-text' });
  const button = el('button', { type: 'button', class: 'hands-button worked-example-switch' });
  const differences = details
    ? el(
        'details',
        { class: 'worked-example-details' },
        el('summary', {}, 'How we rebuilt the example'),
        el('p', {}, 'Our short-decimal inputs give back the numbers the article prints. What differs:'),
        el(
          'ul',
          {},
          ...ARTICLE_DEVIATIONS.map((d) =>
            el('li', {}, el('strong', {}, `${subscripted(d.what)}: `), subscripted(`${d.article} → ${d.reconstructed}.`)),
          ),
        ),
      )
    : null;
  const element = el(
    'div',
    { class: 'worked-example', role: 'note' },
    el('p', { class: 'worked-example-line' }, text, ' ', button),
    differences,
  );
  let example = true;
  button.addEventListener('click', () => context.update(example ? { weights: 'trained' } : { weights: 'example' }));

  return {
    element,
    update(snapshot) {
      const { settings } = snapshot;
      const trained = whoIsIt(snapshot.trained);
      example = settings.weights === 'example';
      if (differences) differences.hidden = !example;
      if (example) {
        // Said in full once (the first worked step); the later steps only name it.
        setText(
          text,
          differences
            ? `Worked on the article’s example: the ${EXAMPLE_TOKENS.length} tokens ${EXAMPLE_TOKENS.map(quoted).join(' ')}, d_model ${EXAMPLE_D_MODEL}, dₖ ${EXAMPLE_D_K}. ` +
                'We chose its inputs so that the numbers the article prints come out here.'
            : `The article’s example (${modelShape(snapshot)}).`,
        );
        setText(button, 'Use the full sentence instead');
        return;
      }
      const what =
        settings.weights === 'trained' && trained
          ? `the trained model’s layer ${trained.resolving.layer + 1}, head ${snapshot.settings.head + 1}`
          : `random weights (seed ${settings.seed})`;
      replaceChildren(text, `Worked on the sentence with ${what} (${modelShape(snapshot)}).`);
      setText(button, 'Back to the article’s example');
    },
  };
}

/**
 * The line at the top of a step that shows the sentence whatever the steps above show (1, 8, 9, 10:
 * `numbers: 'sentence'` in their definitions): beside the article's example it says that this step shows
 * another model, which and its shape, with one button that puts the sentence in every step; otherwise it
 * names the model, and its button goes back to the example, as the worked steps' does. The button is
 * always there (one control, in the same place, whichever way it switches).
 */
export function sentenceStepNote(
  context: Pick<StepContext, 'update'>,
  /** Which numbers the step shows, from the sentence's snapshot (step 1 names its reader model). */
  whose: (next: Snapshot) => string = modelSummary,
): WorkedExampleNote {
  const text = el('span', { class: 'worked-example-text' });
  const button = el('button', { type: 'button', class: 'hands-button worked-example-switch' });
  const element = el('div', { class: 'worked-example', role: 'note' }, el('p', { class: 'worked-example-line' }, text, ' ', button));
  let change: Partial<Snapshot['settings']> = { weights: 'trained' };
  button.addEventListener('click', () => context.update(change));
  return {
    element,
    update(shown) {
      const next = sentenceView(shown);
      const beside = shown.sentence !== null;
      change = beside ? { weights: next.settings.weights } : { weights: 'example' };
      setText(button, beside ? 'Show the sentence in every step' : 'Back to the article’s example');
      setText(
        text,
        beside
          ? `This step shows ${whose(next)}, not the article’s example: that has one head and four tokens.`
          : `${capitalised(whose(next))}.`,
      );
    },
  };
}
