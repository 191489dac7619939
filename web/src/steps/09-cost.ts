// PLACEHOLDER: replaced by the real step.
import { el } from '../figures/dom';
import type { StepDefinition } from './types';

export const costStep: StepDefinition = {
  id: 'cost',
  number: 9,
  title: 'The cost, precisely',
  summary: '',
  mount(body) {
    body.append(el('p', {}, 'Coming soon.'));
    return { render() {} };
  },
};
