// The weighted sum of values (step 6): what the walkthrough shows of the step before its code, a chunk of its own, has loaded
// (elements/lazy-step.ts): its number, title, summary, formula and which numbers it shows.
import { tex } from '../../ui/formula';
import type { StepInfo } from '../../elements/lazy-step';

export const weightedSumStepInfo = {
  id: 'weighted-sum',
  number: 6,
  title: 'Weighted sum of values',
  summary: 'Each output row mixes the value vectors of all tokens, in the proportions its weights give.',
  formula: tex`\text{output} = \text{weights}\; V, \qquad \text{out}_{ij} = \sum_{t=1}^{n} w_{it}\, v_{tj}`,
} satisfies StepInfo;
