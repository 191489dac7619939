// Scores (step 3): what the walkthrough shows of the step before its code, a chunk of its own, has loaded
// (elements/lazy-step.ts): its number, title, summary, formula and which numbers it shows.
import { tex } from '../../ui/formula';
import type { StepInfo } from '../../elements/lazy-step';

export const scoresStepInfo = {
  id: 'scores',
  number: 3,
  title: 'Scores: every query against every key',
  summary: 'Q Kᵀ compares each token’s query with every token’s key: one dot product per pair.',
  formula: tex`\text{scores} = Q K^{\top}, \qquad \text{scores}_{ij} = q_i \cdot k_j = \sum_{t=1}^{d_k} q_{it}\, k_{jt}`,
} satisfies StepInfo;
