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
  return numbersLineText(modelSummary(snapshot));
}

/** The same line for numbers that are not the snapshot's pipeline: "Numbers: the reader model (…)". */
export function numbersLineText(whose: string): string {
  return `Numbers: ${whose}`;
}

/** "2 layers × 4 heads, d_model 64": the shape of a model with layers (step 1's reader, step 12's run). */
export function stackShape(model: { layers: number; heads: number; dModel: number }): string {
  const { layers, heads, dModel } = model;
  return `${layers} layer${layers === 1 ? '' : 's'} × ${heads} head${heads === 1 ? '' : 's'}, d_model ${dModel}`;
}

/** The line where the figure itself knows whose numbers it shows (a model with a record of its own). */
export function numbersLine(): { element: HTMLElement; show(whose: string): void } {
  const element = el('p', { class: MODEL_LINE_CLASS });
  return {
    element,
    show(whose) {
      setText(element, numbersLineText(whose));
    },
  };
}

/** "Numbers: the trained model on the sentence (9 tokens, d_model 32, h = 2)", as the figure's first line. */
export function modelLine(): Figure {
  const line = numbersLine();
  return {
    element: line.element,
    render(snapshot) {
      line.show(modelSummary(snapshot));
    },
  };
}
