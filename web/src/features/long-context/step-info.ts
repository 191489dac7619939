// Avoiding the n × n matrix (step 11): what the walkthrough shows of the step before its code, a chunk of its own, has loaded
// (elements/lazy-step.ts): its number, title, summary, formula and which numbers it shows.
import { tex } from '../../ui/formula';
import type { StepInfo } from '../../elements/lazy-step';

export const longContextStepInfo = {
  id: 'long-context',
  number: 11,
  numbers: 'sentence',
  readerAnswer: true,
  later: true,
  title: 'Avoiding the n × n matrix',
  summary:
    'Sliding windows, sparse patterns and linear attention compute fewer scores, or none, and give a different output; FlashAttention computes them all, in tiles, and gives the same one.',
  formula: tex`\text{window: } n\,w \text{ scores} \qquad \text{linear: } \frac{\phi(q_i)^\top \sum_j \phi(k_j)\, v_j^\top}{\phi(q_i)^\top \sum_j \phi(k_j)},\; \phi(x) = \operatorname{elu}(x) + 1,\; O(n\,d_k\,d_v)`,
} satisfies StepInfo;
