// Multi-head attention (step 8): what the walkthrough shows of the step before its code, a chunk of its own, has loaded
// (elements/lazy-step.ts): its number, title, summary, formula and which numbers it shows.
import { tex } from '../../ui/formula';
import type { StepInfo } from '../../elements/lazy-step';

export const multiHeadStepInfo = {
  id: 'multi-head',
  number: 8,
  numbers: 'sentence',
  title: 'Multi-head attention: several questions at once',
  summary: 'h smaller attentions run side by side on slices of d_model and are glued back together, for about the same work as one.',
  formula: tex`\text{head}_i = \operatorname{softmax}\!\Big(\frac{Q_i K_i^{\top}}{\sqrt{d_k}}\Big) V_i, \qquad \text{output} = \operatorname{concat}(\text{head}_1, \dots, \text{head}_h)\, W_o, \qquad d_k = \frac{d_{\text{model}}}{h}`,
} satisfies StepInfo;
