// What a step's figure is: its element, filled from a snapshot by its own render(). A step builds its
// figures once, places them among its prose, and hands each snapshot to each; a figure never reads
// another's state except through what the step passes it (a selection, a highlight).
//
// A figure that shows a model's numbers prints one short line saying whose they are and their shape
// (modelLine), read from the snapshot it drew, so the line cannot disagree with the figure.
import { el, setText } from '../../ui/dom';
import type { Snapshot } from '../../snapshot';
import { modelSummary } from './which-model';

export interface Figure {
  readonly element: HTMLElement;
  render(snapshot: Snapshot): void;
}

/** The class of the line; the test of every step reads it (tests/unit/which-model.test.ts). */
export const MODEL_LINE_CLASS = 'figure-model';

/** The line's text: "Numbers: the article’s example (4 tokens, d_model 8, h = 1)". */
export function modelLineText(snapshot: Snapshot): string {
  return `Numbers: ${modelSummary(snapshot)}`;
}

/** "Numbers: the trained model on the sentence (9 tokens, d_model 32, h = 2)", as the figure's first line. */
export function modelLine(): Figure {
  const element = el('p', { class: MODEL_LINE_CLASS });
  return {
    element,
    render(snapshot) {
      setText(element, modelLineText(snapshot));
    },
  };
}
