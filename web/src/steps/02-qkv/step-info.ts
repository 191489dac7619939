// Query, key, value (step 2): what the walkthrough shows of the step before its code, a chunk of its own, has loaded
// (elements/lazy-step.ts): its number, title, summary, formula and which numbers it shows.
import { tex } from '../../ui/formula';
import type { StepInfo } from '../../elements/lazy-step';

export const qkvStepInfo = {
  id: 'qkv',
  number: 2,
  title: 'Query, key, value',
  summary:
    'Three learned matrices turn each token’s embedding into a query (what it looks for), a key (what it offers) and a value (what it passes on).',
  formula: tex`Q = X W_q, \qquad K = X W_k, \qquad V = X W_v`,
} satisfies StepInfo;
