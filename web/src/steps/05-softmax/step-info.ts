// Softmax (step 5): what the walkthrough shows of the step before its code, a chunk of its own, has loaded
// (elements/lazy-step.ts): its number, title, summary, formula and which numbers it shows.
import { tex } from '../../ui/formula';
import type { StepInfo } from '../../elements/lazy-step';

export const softmaxStepInfo = {
  id: 'softmax',
  number: 5,
  title: 'Softmax: scores become attention weights',
  summary: 'Softmax turns each row of scaled scores into positive weights that add up to 100%: how much each token draws from every token.',
  formula: tex`w_{ij} = \operatorname{softmax}(s_i)_j = \frac{e^{\,s_{ij} - m_i}}{\sum_{l} e^{\,s_{il} - m_i}}, \qquad m_i = \max_k s_{ik}`,
} satisfies StepInfo;
