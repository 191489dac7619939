// The base of every custom element: a shadow root with the shared styles, attributes validated
// into settings, a lazy start when the element nears the viewport, one shared engine for the whole
// page, read-only `config` and `result`, and an `attention-change` event.
import { loadEngine } from '../engine/engine';
import { el } from '../figures/dom';
import type { Settings } from '../settings';
import type { Snapshot } from '../snapshot';
import { WalkthroughState } from '../state';
import type { StepDefinition } from '../steps/types';
import { mountWalkthrough, type Walkthrough } from '../walkthrough';
import { OBSERVED_ATTRIBUTES, SETTING_ATTRIBUTES, parseControls, settingsFromAttributes } from './attributes';
import { sharedStyleSheet } from './styles';

export interface AttentionChangeDetail {
  config: Settings;
  result: Snapshot;
}

/** Starts work this far before the element scrolls into view. */
const NEAR_VIEWPORT = '300px';

export abstract class AttentionElement extends HTMLElement {
  static get observedAttributes(): string[] {
    return OBSERVED_ATTRIBUTES;
  }

  /** The steps this element shows. */
  protected abstract get steps(): readonly StepDefinition[];
  /** The full walkthrough has a table of contents; single steps do not. */
  protected get withToc(): boolean {
    return false;
  }

  private readonly shadow: ShadowRoot;
  private state: WalkthroughState | null = null;
  private walkthrough: Walkthrough | null = null;
  private observer: IntersectionObserver | null = null;
  private starting = false;

  constructor() {
    super();
    this.shadow = this.attachShadow({ mode: 'open' });
    this.shadow.adoptedStyleSheets = [sharedStyleSheet()];
  }

  /** The settings the element shows (read-only copy). */
  get config(): Settings | null {
    return this.state ? { ...this.state.settings } : null;
  }

  /** The numbers the element shows: the engine's snapshot for `config` (treat as read-only). */
  get result(): Snapshot | null {
    return this.walkthrough?.snapshot ?? null;
  }

  connectedCallback(): void {
    if (this.walkthrough || this.starting) return;
    this.showPlaceholder();
    if (typeof IntersectionObserver === 'undefined') {
      void this.start();
      return;
    }
    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) void this.start();
    }, { rootMargin: NEAR_VIEWPORT });
    this.observer.observe(this);
  }

  disconnectedCallback(): void {
    this.observer?.disconnect();
    this.observer = null;
  }

  attributeChangedCallback(name: string, oldValue: string | null, newValue: string | null): void {
    if (oldValue === newValue || !this.walkthrough || !this.state) return;
    if (name in SETTING_ATTRIBUTES && !this.syncsUrl) {
      const { settings, notices } = settingsFromAttributes(this);
      this.state.update(settings, 'none');
      this.walkthrough.notify(notices);
    } else if (name === 'controls') {
      this.remount();
    }
  }

  /** The main page's walkthrough keeps its settings in the URL instead of attributes. */
  protected get syncsUrl(): boolean {
    return false;
  }

  protected get withEmbedCode(): boolean {
    return false;
  }

  private showPlaceholder(): void {
    const [first] = this.steps;
    this.shadow.replaceChildren(el('div', { class: 'placeholder', part: 'placeholder' },
      el('h2', {}, this.steps.length === 1 ? first.title : 'Attention, worked out by hand'),
      el('p', {}, this.steps.length === 1 ? first.summary : 'Every step of softmax(Q Kᵀ / √d_k) V with live numbers.'),
      el('p', { class: 'hint' }, 'Loading the live figure…')));
  }

  private async start(): Promise<void> {
    if (this.starting || this.walkthrough) return;
    this.starting = true;
    this.observer?.disconnect();
    try {
      const engine = await loadEngine();
      const { settings, notices } = this.syncsUrl ? { settings: undefined, notices: [] } : settingsFromAttributes(this);
      this.state = new WalkthroughState(this.syncsUrl, settings);
      this.mount(engine, notices);
    } catch (error) {
      this.showLoadError(error);
    } finally {
      this.starting = false;
    }
  }

  private engineRef: Awaited<ReturnType<typeof loadEngine>> | null = null;

  private mount(engine: Awaited<ReturnType<typeof loadEngine>>, notices: string[]): void {
    this.engineRef = engine;
    const controls = parseControls(this.getAttribute('controls'));
    const frame = el('div', { class: `frame${this.withToc ? '' : ' framed'}`, part: 'frame' });
    this.shadow.replaceChildren(frame);
    this.walkthrough = mountWalkthrough({
      root: frame,
      engine,
      state: this.state!,
      steps: this.steps,
      controls: controls.visible,
      toc: this.withToc,
      embedCode: this.withEmbedCode,
      onSnapshot: (snapshot) => {
        this.dataset.ready = 'true';
        this.dispatchEvent(new CustomEvent<AttentionChangeDetail>('attention-change', {
          detail: { config: { ...snapshot.settings }, result: snapshot },
          bubbles: true,
          composed: true,
        }));
      },
    });
    this.walkthrough.notify([...notices, ...controls.notices]);
  }

  private remount(): void {
    if (this.engineRef) this.mount(this.engineRef, []);
  }

  private showLoadError(error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.dataset.ready = 'error';
    const [first] = this.steps;
    this.shadow.replaceChildren(el('div', { class: 'placeholder', part: 'placeholder' },
      el('h2', {}, this.steps.length === 1 ? first.title : 'Attention, worked out by hand'),
      el('p', {}, this.steps.length === 1 ? first.summary : 'Every step of softmax(Q Kᵀ / √d_k) V with live numbers.'),
      el('p', { class: 'load-error', role: 'alert' },
        `The live figure could not start: ${reason}. It needs WebAssembly with SIMD (any current browser) and, on pages with a Content-Security-Policy, 'wasm-unsafe-eval' in script-src.`)));
    this.dispatchEvent(new CustomEvent('attention-error', { detail: { message: reason }, bubbles: true, composed: true }));
  }

  /** Scrolls to a step by id (hash links cannot see into a shadow root). */
  scrollToStep(id: string): boolean {
    const target = this.shadow.getElementById(id);
    target?.scrollIntoView();
    return Boolean(target);
  }
}
