// The one registry of steps: adding a step is its file or folder plus one line here (STEP_REGISTRY),
// then `npm run generate:steps`, which writes elements/generated/ from this list: the walkthrough's step
// list (step-list.ts) and the stylesheets in the steps' folders (step-styles.ts) in this order, the tags (step-tags.ts,
// re-exported by elements/registry.ts) and one element class per step (step-elements.ts), from which the
// package's .d.ts and its Custom Elements Manifest are read. They are generated rather than made at run
// time because the manifest's analyzer and tsc's declarations read classes and literal types in source
// text. tests/unit/step-registry.test.ts fails while a generated file differs from what this list writes.
//
// This module is plain data and imports nothing: the generator reads it before anything is generated.

/** One step: `module`'s `exportName` is its StepDefinition (whose `id` must be `id`); paths are under web/src. */
export interface StepRegistration {
  /** The step's id (`StepDefinition.id`): its anchor, its `step=` name in the embed. */
  readonly id: string;
  /** The custom element that shows this step alone. */
  readonly element: `attention-${string}`;
  /** That element's class name in the package. */
  readonly className: `Attention${string}Element`;
  /** The element's one-line description in the .d.ts and the manifest. */
  readonly description: string;
  /** The module exporting the step, without extension, and the export's name. */
  readonly module: string;
  readonly exportName: string;
  /** The element trains a model of its own: its attributes are a training run's, and it hides the settings bar. */
  readonly trainsOwnModel?: true;
  /**
   * The step's code is a chunk of its own, fetched when the walkthrough first draws the step
   * (elements/lazy-step.ts); `${module}-info` exports its metadata as `${exportName}Info`.
   */
  readonly lazy?: true;
  /**
   * The prerendered copy keeps the step's prose and names each figure in one line instead of drawing it
   * (web/tooling/walkthrough-markup.ts): the steps far down the page, drawn live before a reader gets there.
   */
  readonly figuresNamedInCopy?: true;
}

// prettier-ignore
export const STEP_REGISTRY = [
  { id: 'problem', element: 'attention-problem', className: 'AttentionProblemElement', description: 'Step 1 alone: the problem attention solves.', module: 'steps/01-problem/step', exportName: 'problemStep' },
  { id: 'qkv', element: 'attention-qkv', className: 'AttentionQkvElement', description: 'Step 2 alone: queries, keys and values (X W_q, X W_k, X W_v).', module: 'steps/02-qkv/step', exportName: 'qkvStep', lazy: true },
  { id: 'scores', element: 'attention-scores', className: 'AttentionScoresElement', description: 'Step 3 alone: the score matrix Q Kᵀ.', module: 'steps/03-scores/step', exportName: 'scoresStep', lazy: true },
  { id: 'scale', element: 'attention-scaling', className: 'AttentionScalingElement', description: 'Step 4 alone: dividing by √d_k.', module: 'steps/04-scale/step', exportName: 'scaleStep', lazy: true },
  { id: 'softmax', element: 'attention-softmax', className: 'AttentionSoftmaxElement', description: 'Step 5 alone: softmax over each row.', module: 'steps/05-softmax/step', exportName: 'softmaxStep', lazy: true },
  { id: 'weighted-sum', element: 'attention-weighted-sum', className: 'AttentionWeightedSumElement', description: 'Step 6 alone: weights × V.', module: 'steps/06-weighted-sum/step', exportName: 'weightedSumStep', lazy: true },
  { id: 'causal', element: 'attention-mask', className: 'AttentionMaskElement', description: 'Step 7 alone: causal and custom masks.', module: 'steps/07-causal/step', exportName: 'causalStep', lazy: true },
  { id: 'multi-head', element: 'attention-heads', className: 'AttentionHeadsElement', description: 'Step 8 alone: multi-head attention.', module: 'steps/08-multi-head/step', exportName: 'multiHeadStep', lazy: true },
  { id: 'cost', element: 'attention-cost', className: 'AttentionCostElement', description: 'Step 9 alone: the quadratic cost.', module: 'steps/09-cost/step', exportName: 'costStep', lazy: true, figuresNamedInCopy: true },
  { id: 'flash', element: 'attention-flash', className: 'AttentionFlashElement', description: "Step 10 alone: FlashAttention's tiles and online softmax.", module: 'features/flash/step', exportName: 'flashStep', lazy: true, figuresNamedInCopy: true },
  { id: 'long-context', element: 'attention-long-context', className: 'AttentionLongContextElement', description: 'Avoiding the n × n matrix: sliding window, sparse patterns and linear attention beside full attention.', module: 'features/long-context/step', exportName: 'longContextStep', lazy: true, figuresNamedInCopy: true },
  { id: 'train', element: 'attention-train', className: 'AttentionTrainElement', description: 'Train it yourself: a fresh model trained in a background worker, with its loss, accuracy and attention live.', module: 'features/training/step', exportName: 'trainStep', trainsOwnModel: true, lazy: true, figuresNamedInCopy: true },
  { id: 'faq', element: 'attention-faq', className: 'AttentionFaqElement', description: 'Questions and answers.', module: 'steps/12-faq/step', exportName: 'faqStep', lazy: true, figuresNamedInCopy: true },
] as const satisfies readonly StepRegistration[];
