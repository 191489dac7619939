// The walkthrough's steps in the article's order. Adding a step = one file + one line here.
import { scoresStep } from './03-scores';
import type { StepDefinition } from './types';

export const STEPS: readonly StepDefinition[] = [scoresStep];

export function stepById(id: string): StepDefinition | undefined {
  return STEPS.find((step) => step.id === id);
}
