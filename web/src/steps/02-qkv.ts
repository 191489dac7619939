// PLACEHOLDER: replaced by the real step.
import { el } from '../figures/dom';
import type { StepDefinition } from './types';

export const qkvStep: StepDefinition = {
  id: 'qkv',
  number: 2,
  title: 'Query, key, value',
  summary: '',
  mount(body) {
    body.append(el('p', {}, 'Coming soon.'));
    return { render() {} };
  },
};
