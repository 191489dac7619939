// The embeddable bundle's entry: defines <attention-walkthrough> and one element per step. One
// script tag loads it; every element on the page shares one engine (one .wasm download).
import { STEPS } from '../steps/index';
import type { StepDefinition } from '../steps/types';
import { AttentionElement } from './attention-element';
import { STEP_ELEMENTS, WALKTHROUGH_ELEMENT } from './registry';

export { AttentionElement, type AttentionChangeDetail } from './attention-element';
export { STEP_ELEMENTS, WALKTHROUGH_ELEMENT } from './registry';

/** <attention-walkthrough>: every step. With `sync-url` (the main page) its settings live in the URL. */
export class AttentionWalkthroughElement extends AttentionElement {
  private onHash = () => {
    let id = location.hash.slice(1);
    try {
      id = decodeURIComponent(id);
    } catch {
      // A malformed escape ("#%E0%A4") names no step; leave it as typed.
    }
    return this.scrollToStep(id);
  };

  protected get steps(): readonly StepDefinition[] {
    return STEPS;
  }

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
    window.addEventListener('hashchange', this.onHash);
    this.addEventListener('attention-change', () => {
      if (location.hash) this.onHash();
    }, { once: true });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('hashchange', this.onHash);
  }
}

function stepElementClass(step: StepDefinition): CustomElementConstructor {
  return class extends AttentionElement {
    protected get steps(): readonly StepDefinition[] {
      return [step];
    }
  };
}

export function defineElements(registry: CustomElementRegistry = customElements): void {
  if (!registry.get(WALKTHROUGH_ELEMENT)) registry.define(WALKTHROUGH_ELEMENT, AttentionWalkthroughElement);
  for (const step of STEPS) {
    const tag = STEP_ELEMENTS[step.id];
    if (tag && !registry.get(tag)) registry.define(tag, stepElementClass(step));
  }
}

defineElements();
