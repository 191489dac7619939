// Which custom element shows which step. Metadata as data: the docs page, the embed-code snippets
// and the iframe embed all read this table.
export const STEP_ELEMENTS: Readonly<Record<string, string>> = Object.freeze({
  problem: 'attention-problem',
  qkv: 'attention-qkv',
  scores: 'attention-scores',
  scale: 'attention-scaling',
  softmax: 'attention-softmax',
  'weighted-sum': 'attention-weighted-sum',
  causal: 'attention-mask',
  'multi-head': 'attention-heads',
  cost: 'attention-cost',
  flash: 'attention-flash',
  faq: 'attention-faq',
});

export const WALKTHROUGH_ELEMENT = 'attention-walkthrough';
