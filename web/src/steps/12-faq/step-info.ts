// Frequently asked questions (step 13): what the walkthrough shows of the step before its code, a chunk of its own, has
// loaded (elements/lazy-step.ts): its number, title and summary.
import type { StepInfo } from '../../elements/lazy-step';

export const faqStepInfo = {
  id: 'faq',
  number: 13,
  title: 'Frequently asked questions',
  summary: 'Five common questions, each answered with this page’s live numbers.',
} satisfies StepInfo;
