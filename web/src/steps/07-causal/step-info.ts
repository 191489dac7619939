// Causal masking (step 7): what the walkthrough shows of the step before its code, a chunk of its own, has loaded
// (elements/lazy-step.ts): its number, title, summary, formula and which numbers it shows.
import { tex } from '../../ui/formula';
import type { StepInfo } from '../../elements/lazy-step';

export const causalStepInfo = {
  id: 'causal',
  number: 7,
  title: 'Causal masking: no peeking at the future',
  summary: 'Scores for later tokens become −∞ before the softmax, so each token attends only to itself and what came before.',
  formula: tex`\text{mask}_{ij} = \begin{cases} 1 & j \le i \\ 0 & j > i \end{cases}, \qquad \text{masked}_{ij} = \begin{cases} \text{scores}_{ij} & \text{mask}_{ij} = 1 \\ -\infty & \text{mask}_{ij} = 0 \end{cases}, \qquad \text{weights} = \operatorname{softmax}(\text{masked})`,
} satisfies StepInfo;
