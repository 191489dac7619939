// The cost, precisely (step 9): what the walkthrough shows of the step before its code, a chunk of its own, has loaded
// (elements/lazy-step.ts): its number, title, summary, formula and which numbers it shows.
import { tex } from '../../ui/formula';
import type { StepInfo } from '../../elements/lazy-step';

export const costStepInfo = {
  id: 'cost',
  number: 9,
  numbers: 'sentence',
  title: 'The cost, precisely',
  summary: 'The score matrix has n² entries per head: double the tokens and its memory and work grow four times.',
  formula: tex`\text{scores} \in \mathbb{R}^{n \times n}: \quad n^2 \text{ entries per head}, \quad 4 n^2 \text{ bytes in float32}, \quad 2\, n^2 d_{\text{model}} \text{ multiply-adds per layer}`,
} satisfies StepInfo;
