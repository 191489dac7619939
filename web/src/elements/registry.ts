// Which custom element shows which step. Metadata as data: the docs page, the embed-code snippets,
// the iframe embed and the element definitions (elements/index.ts) all read this table, and its
// literal types are the package's (STEP_ELEMENTS.scale is typed 'attention-scaling').
export const STEP_ELEMENTS = Object.freeze({
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
  'long-context': 'attention-long-context',
  faq: 'attention-faq',
  train: 'attention-train',
} as const);

export const WALKTHROUGH_ELEMENT = 'attention-walkthrough';

/** The tag of an element that shows one step. */
export type StepElementTag = (typeof STEP_ELEMENTS)[keyof typeof STEP_ELEMENTS];

/** The tag of the element that shows step `id` alone; undefined for an unknown id ("constructor" included). */
export function stepElementTag(id: string): StepElementTag | undefined {
  return Object.hasOwn(STEP_ELEMENTS, id) ? STEP_ELEMENTS[id as keyof typeof STEP_ELEMENTS] : undefined;
}
