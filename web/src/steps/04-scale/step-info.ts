// Scaling by √dₖ (step 4): what the walkthrough shows of the step before its code, a chunk of its own, has loaded
// (elements/lazy-step.ts): its number, title, summary, formula and which numbers it shows.
import { tex } from '../../ui/formula';
import type { StepInfo } from '../../elements/lazy-step';

export const scaleStepInfo = {
  id: 'scale',
  number: 4,
  title: 'Scale by √dₖ, and why',
  summary:
    'Dividing the scores by √dₖ keeps their spread near 1 whatever the vector length, so softmax stays responsive and keeps passing gradient.',
  formula: tex`\text{scaled} = \frac{Q K^{\top}}{\sqrt{d_k}}`,
} satisfies StepInfo;
