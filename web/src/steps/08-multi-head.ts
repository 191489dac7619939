// PLACEHOLDER: replaced by the real step.
import { el } from '../figures/dom';
import type { StepDefinition } from './types';

export const multiHeadStep: StepDefinition = {
  id: 'multi-head',
  number: 8,
  title: 'Multi-head attention',
  summary: '',
  mount(body) {
    body.append(el('p', {}, 'Coming soon.'));
    return { render() {} };
  },
};
