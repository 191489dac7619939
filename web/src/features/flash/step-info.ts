// FlashAttention (step 10): what the walkthrough shows of the step before its code, a chunk of its own, has loaded
// (elements/lazy-step.ts): its number, title, summary, formula and which numbers it shows.
import { tex } from '../../ui/formula';
import type { StepInfo } from '../../elements/lazy-step';

export const flashStepInfo = {
  id: 'flash',
  number: 10,
  numbers: 'sentence',
  later: true,
  title: 'FlashAttention: the same result, one tile at a time',
  summary:
    'A tiled pass over K and V with a running max, sum and output per row gives exactly the attention output without ever storing the n × n matrix.',
  formula: tex`\begin{gathered} m_i' = \max\Big(m_i,\; \max_{j \in \text{tile}} s_{ij}\Big), \qquad \ell_i' = e^{m_i - m_i'}\,\ell_i + \sum_{j \in \text{tile}} e^{s_{ij} - m_i'} \\ \text{acc}_i' = e^{m_i - m_i'}\,\text{acc}_i + \sum_{j \in \text{tile}} e^{s_{ij} - m_i'}\, v_j, \qquad \text{out}_i = \frac{\text{acc}_i}{\ell_i} \;\text{ after the last tile} \end{gathered}`,
} satisfies StepInfo;
