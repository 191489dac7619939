// PLACEHOLDER: replaced by the real step.
import { el } from '../figures/dom';
import type { StepDefinition } from './types';

export const faqStep: StepDefinition = {
  id: 'faq',
  number: 10,
  title: 'Frequently asked questions',
  summary: '',
  mount(body) {
    body.append(el('p', {}, 'Coming soon.'));
    return { render() {} };
  },
};
