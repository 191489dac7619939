// PLACEHOLDER: replaced by the real step.
import { el } from '../figures/dom';
import type { StepDefinition } from './types';

export const weightedSumStep: StepDefinition = {
  id: 'weighted-sum',
  number: 6,
  title: 'Weighted sum of values',
  summary: '',
  mount(body) {
    body.append(el('p', {}, 'Coming soon.'));
    return { render() {} };
  },
};
