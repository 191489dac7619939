// The embeddable bundle's entry: defines <attention-walkthrough> and one element per step. One
// script tag loads it; every element on the page shares one engine (one .wasm download). The
// package's type declarations are generated from this module (elements/package-types.ts adds the
// global tag, event and JSX maps), and custom-elements.json from the classes below.
import { problemStep } from '../steps/01-problem';
import { qkvStep } from '../steps/02-qkv';
import { scoresStep } from '../steps/03-scores';
import { scaleStep } from '../steps/04-scale';
import { softmaxStep } from '../steps/05-softmax';
import { weightedSumStep } from '../steps/06-weighted-sum';
import { causalStep } from '../steps/07-causal';
import { multiHeadStep } from '../steps/08-multi-head';
import { costStep } from '../steps/09-cost';
import { flashStep } from '../features/flash/step';
import { longContextStep } from '../features/long-context/step';
import { faqStep } from '../steps/12-faq';
import { trainStep } from '../features/training/step';
import { STEPS } from '../steps/index';
import { fragmentStep, onFragmentChange } from '../state';
import { AttentionElement } from './attention-element';
import { TRAINING_OBSERVED_ATTRIBUTES } from './attributes';
import { STEP_ELEMENTS, WALKTHROUGH_ELEMENT } from './registry';

export { AttentionElement, type AttentionChangeDetail } from './attention-element';
export type { AttentionDebug } from './debug';
export { STEP_ELEMENTS, WALKTHROUGH_ELEMENT } from './registry';
export type { Settings as AttentionConfig } from '../settings';
export type { FlashSnapshot, Snapshot as AttentionSnapshot } from '../snapshot';
export type { TrainedSnapshot } from '../features/trained-model/trained';
export type {
  DotProductSamples,
  FlashTrace,
  FlashTraceStep,
  MaskMatrix,
  Matrix,
  PipelineSnapshot,
  SoftmaxSaturation,
  Tensor3,
} from '../engine/types';

/**
 * Every step, with a table of contents.
 * @tagname attention-walkthrough
 */
export class AttentionWalkthroughElement extends AttentionElement {
  /** @internal */
  protected readonly steps = STEPS;
  private stopWatchingFragment: (() => void) | null = null;

  protected override get withToc(): boolean {
    return true;
  }

  protected override get syncsUrl(): boolean {
    return this.hasAttribute('sync-url');
  }

  protected override get withEmbedCode(): boolean {
    return this.hasAttribute('embed-code');
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Hash links cannot see into the shadow root: follow the URL's fragment (#causal) here.
    this.stopWatchingFragment?.();
    this.stopWatchingFragment = onFragmentChange((step) => this.scrollToStep(step));
    this.addEventListener(
      'attention-change',
      () => {
        const step = fragmentStep();
        if (step) this.scrollToStep(step);
      },
      { once: true },
    );
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.stopWatchingFragment?.();
    this.stopWatchingFragment = null;
  }
}

/**
 * Step 1 alone: the problem attention solves.
 * @tagname attention-problem
 */
export class AttentionProblemElement extends AttentionElement {
  /** @internal */
  protected readonly steps = [problemStep];
}

/**
 * Step 2 alone: queries, keys and values (X W_q, X W_k, X W_v).
 * @tagname attention-qkv
 */
export class AttentionQkvElement extends AttentionElement {
  /** @internal */
  protected readonly steps = [qkvStep];
}

/**
 * Step 3 alone: the score matrix Q Kᵀ.
 * @tagname attention-scores
 */
export class AttentionScoresElement extends AttentionElement {
  /** @internal */
  protected readonly steps = [scoresStep];
}

/**
 * Step 4 alone: dividing by √d_k.
 * @tagname attention-scaling
 */
export class AttentionScalingElement extends AttentionElement {
  /** @internal */
  protected readonly steps = [scaleStep];
}

/**
 * Step 5 alone: softmax over each row.
 * @tagname attention-softmax
 */
export class AttentionSoftmaxElement extends AttentionElement {
  /** @internal */
  protected readonly steps = [softmaxStep];
}

/**
 * Step 6 alone: weights × V.
 * @tagname attention-weighted-sum
 */
export class AttentionWeightedSumElement extends AttentionElement {
  /** @internal */
  protected readonly steps = [weightedSumStep];
}

/**
 * Step 7 alone: causal and custom masks.
 * @tagname attention-mask
 */
export class AttentionMaskElement extends AttentionElement {
  /** @internal */
  protected readonly steps = [causalStep];
}

/**
 * Step 8 alone: multi-head attention.
 * @tagname attention-heads
 */
export class AttentionHeadsElement extends AttentionElement {
  /** @internal */
  protected readonly steps = [multiHeadStep];
}

/**
 * Step 9 alone: the quadratic cost.
 * @tagname attention-cost
 */
export class AttentionCostElement extends AttentionElement {
  /** @internal */
  protected readonly steps = [costStep];
}

/**
 * Step 10 alone: FlashAttention's tiles and online softmax.
 * @tagname attention-flash
 */
export class AttentionFlashElement extends AttentionElement {
  /** @internal */
  protected readonly steps = [flashStep];
}

/**
 * Avoiding the n × n matrix: sliding window, sparse patterns and linear attention beside full attention.
 * @tagname attention-long-context
 */
export class AttentionLongContextElement extends AttentionElement {
  /** @internal */
  protected readonly steps = [longContextStep];
}

/**
 * Questions and answers.
 * @tagname attention-faq
 */
export class AttentionFaqElement extends AttentionElement {
  /** @internal */
  protected readonly steps = [faqStep];
}

/**
 * Train it yourself: a fresh model trained in a background worker, with its loss, accuracy and attention live.
 * @tagname attention-train
 */
export class AttentionTrainElement extends AttentionElement {
  static override get observedAttributes(): string[] {
    return TRAINING_OBSERVED_ATTRIBUTES;
  }

  /** @internal */
  protected readonly steps = [trainStep];

  protected override get trainsOwnModel(): boolean {
    return true;
  }

  /** Its settings are the training run's, in its own form: the walkthrough's bar would change nothing. */
  protected override get defaultControls(): string {
    return 'none';
  }
}

/** Tag name -> element type, for every element the bundle defines. */
export interface AttentionElementTagNameMap {
  'attention-walkthrough': AttentionWalkthroughElement;
  'attention-problem': AttentionProblemElement;
  'attention-qkv': AttentionQkvElement;
  'attention-scores': AttentionScoresElement;
  'attention-scaling': AttentionScalingElement;
  'attention-softmax': AttentionSoftmaxElement;
  'attention-weighted-sum': AttentionWeightedSumElement;
  'attention-mask': AttentionMaskElement;
  'attention-heads': AttentionHeadsElement;
  'attention-cost': AttentionCostElement;
  'attention-flash': AttentionFlashElement;
  'attention-long-context': AttentionLongContextElement;
  'attention-faq': AttentionFaqElement;
  'attention-train': AttentionTrainElement;
}

/** Tag -> class of every element the bundle defines, under the registry's tags (a missing or extra one does not compile). */
const ELEMENT_CLASSES: { [Tag in keyof AttentionElementTagNameMap]: new () => AttentionElementTagNameMap[Tag] } = {
  [WALKTHROUGH_ELEMENT]: AttentionWalkthroughElement,
  [STEP_ELEMENTS.problem]: AttentionProblemElement,
  [STEP_ELEMENTS.qkv]: AttentionQkvElement,
  [STEP_ELEMENTS.scores]: AttentionScoresElement,
  [STEP_ELEMENTS.scale]: AttentionScalingElement,
  [STEP_ELEMENTS.softmax]: AttentionSoftmaxElement,
  [STEP_ELEMENTS['weighted-sum']]: AttentionWeightedSumElement,
  [STEP_ELEMENTS.causal]: AttentionMaskElement,
  [STEP_ELEMENTS['multi-head']]: AttentionHeadsElement,
  [STEP_ELEMENTS.cost]: AttentionCostElement,
  [STEP_ELEMENTS.flash]: AttentionFlashElement,
  [STEP_ELEMENTS['long-context']]: AttentionLongContextElement,
  [STEP_ELEMENTS.faq]: AttentionFaqElement,
  [STEP_ELEMENTS.train]: AttentionTrainElement,
};

/**
 * Defines every element in `registry` (tags already defined there are left alone). Importing the bundle
 * already does this for the global `customElements`; call it for a scoped registry.
 */
export function defineElements(registry: CustomElementRegistry = customElements): void {
  for (const [tag, element] of Object.entries(ELEMENT_CLASSES)) if (!registry.get(tag)) registry.define(tag, element);
}

defineElements();
