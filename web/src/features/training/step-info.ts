// Train it yourself (step 12): what the walkthrough shows of the step before its code, a chunk of its own, has loaded
// (elements/lazy-step.ts): its number, title, summary and which numbers it shows.
import type { StepInfo } from '../../elements/lazy-step';

export const trainStepInfo = {
  id: 'train',
  number: 12,
  numbers: 'own',
  title: 'Train it yourself',
  summary: 'A fresh model learns, in this tab, to answer step 1’s question: watch its loss fall and its attention find the noun.',
} satisfies StepInfo;
