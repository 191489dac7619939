// PLACEHOLDER: replaced by the real step.
import { el } from '../figures/dom';
import type { StepDefinition } from './types';

export const scaleStep: StepDefinition = {
  id: 'scale',
  number: 4,
  title: 'Scale by √d_k, and why',
  summary: '',
  mount(body) {
    body.append(el('p', {}, 'Coming soon.'));
    return { render() {} };
  },
};
