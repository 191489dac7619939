// Which custom element shows which step, for the docs page, the embed-code snippets and the iframe embed:
// the tags are generated from the step registry (elements/step-registry.ts) into generated/step-tags.ts,
// whose literal types are the package's (STEP_ELEMENTS.scale is typed 'attention-scaling').
import { STEP_ELEMENTS } from './generated/step-tags';

export { STEP_ELEMENTS };

export const WALKTHROUGH_ELEMENT = 'attention-walkthrough';

/** The tag of an element that shows one step. */
export type StepElementTag = (typeof STEP_ELEMENTS)[keyof typeof STEP_ELEMENTS];

/** The tag of the element that shows step `id` alone; undefined for an unknown id ("constructor" included). */
export function stepElementTag(id: string): StepElementTag | undefined {
  return Object.hasOwn(STEP_ELEMENTS, id) ? STEP_ELEMENTS[id as keyof typeof STEP_ELEMENTS] : undefined;
}
