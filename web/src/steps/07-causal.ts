// PLACEHOLDER: replaced by the real step.
import { el } from '../figures/dom';
import type { StepDefinition } from './types';

export const causalStep: StepDefinition = {
  id: 'causal',
  number: 7,
  title: 'Causal masking: no peeking at the future',
  summary: '',
  mount(body) {
    body.append(el('p', {}, 'Coming soon.'));
    return { render() {} };
  },
};
