// The walkthrough's steps in the article's order. Adding a step = one file + one line here.
import { problemStep } from './01-problem';
import { qkvStep } from './02-qkv';
import { scoresStep } from './03-scores';
import { scaleStep } from './04-scale';
import { softmaxStep } from './05-softmax';
import { weightedSumStep } from './06-weighted-sum';
import { causalStep } from './07-causal';
import { multiHeadStep } from './08-multi-head';
import { costStep } from './09-cost';
import { flashStep } from '../features/flash/step';
import { longContextStep } from '../features/long-context/step';
import { faqStep } from './12-faq';
import { trainStep } from '../features/training/step';
import type { StepDefinition } from './types';

export const STEPS: readonly StepDefinition[] = [
  problemStep,
  qkvStep,
  scoresStep,
  scaleStep,
  softmaxStep,
  weightedSumStep,
  causalStep,
  multiHeadStep,
  costStep,
  flashStep,
  longContextStep,
  trainStep,
  faqStep,
];

export function stepById(id: string): StepDefinition | undefined {
  return STEPS.find((step) => step.id === id);
}
