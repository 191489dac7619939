// PLACEHOLDER: replaced by the real step.
import { el } from '../figures/dom';
import type { StepDefinition } from './types';

export const problemStep: StepDefinition = {
  id: 'problem',
  number: 1,
  title: 'The problem: what does “it” refer to?',
  summary: '',
  mount(body) {
    body.append(el('p', {}, 'Coming soon.'));
    return { render() {} };
  },
};
