// PLACEHOLDER: replaced by the real step.
import { el } from '../figures/dom';
import type { StepDefinition } from './types';

export const softmaxStep: StepDefinition = {
  id: 'softmax',
  number: 5,
  title: 'Softmax: scores become attention weights',
  summary: '',
  mount(body) {
    body.append(el('p', {}, 'Coming soon.'));
    return { render() {} };
  },
};
