// The walkthrough's steps in the article's order. The list is generated from the one step registry
// (elements/step-registry.ts): adding a step is its file or folder plus one line there.
import { STEPS } from '../elements/generated/step-list';
import type { StepDefinition } from './types';

export { STEPS };

export function stepById(id: string): StepDefinition | undefined {
  return STEPS.find((step) => step.id === id);
}
