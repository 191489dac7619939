// The embeddable bundle's entry: defines <attention-walkthrough> and one element per step (their
// classes are generated from the step registry into generated/step-elements.ts). One script tag loads
// it; every element on the page shares one engine (one .wasm download). The package's type
// declarations are generated from this module (elements/package-types.ts adds the global tag, event
// and JSX maps), and custom-elements.json from these classes.
import { STEPS } from '../steps/index';
import { fragmentStep, onFragmentChange } from '../state';
import { AttentionElement } from './attention-element';
import { STEP_ELEMENT_CLASSES, type StepElementTagNameMap } from './generated/step-element-classes';
import { WALKTHROUGH_ELEMENT } from './registry';

export { AttentionElement, type AttentionChangeDetail } from './attention-element';
export type { AttentionDebug } from './debug';
export { STEP_ELEMENTS, WALKTHROUGH_ELEMENT } from './registry';
export * from './generated/step-elements';
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

/** Tag name -> element type, for every element the bundle defines: the walkthrough and the steps' (generated). */
export interface AttentionElementTagNameMap extends StepElementTagNameMap {
  'attention-walkthrough': AttentionWalkthroughElement;
}

/** Tag -> class of every element the bundle defines, under the registry's tags (a missing or extra one does not compile). */
const ELEMENT_CLASSES: { [Tag in keyof AttentionElementTagNameMap]: new () => AttentionElementTagNameMap[Tag] } = {
  [WALKTHROUGH_ELEMENT]: AttentionWalkthroughElement,
  ...STEP_ELEMENT_CLASSES,
};

/**
 * Defines every element in `registry` (tags already defined there are left alone). Importing the bundle
 * already does this for the global `customElements`; call it for a scoped registry.
 */
export function defineElements(registry: CustomElementRegistry = customElements): void {
  for (const [tag, element] of Object.entries(ELEMENT_CLASSES)) if (!registry.get(tag)) registry.define(tag, element);
}

defineElements();
