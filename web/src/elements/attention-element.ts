// The base of every custom element: a shadow root with the shared styles, attributes validated
// into settings, a lazy start when the element nears the viewport, one shared engine for the whole
// page, read-only `config` and `result`, and an `attention-change` event.
import { EngineError, loadEngine, type AttentionEngine } from '../engine/engine';
import { el } from '../ui/dom';
import { WALKTHROUGH_BAR_CONTROLS } from '../controls';
import { formulaElement } from '../ui/formula';
import { shownSettings, type Settings } from '../settings';
import type { Snapshot } from '../snapshot';
import { WalkthroughState } from '../state';
import { loadTrainedWeights, needsTrainedWeights } from '../features/trained-model/trained';
import { loadShippedWeights } from '../model/shipped';
import type { StepDefinition } from '../steps/types';
import { mountWalkthrough, type Walkthrough } from '../walkthrough';
import { workerTimingService } from '../features/cost/timing-service';
import { workerTrainingService } from '../features/training/training-service';
import { debugHandle, type AttentionDebug } from './debug';
import { embedCode } from './embed-code';
import { isLazyStep } from './lazy-step';
import {
  OBSERVED_ATTRIBUTES,
  SETTING_ATTRIBUTES,
  parseControls,
  settingsFromAttributes,
  themeNotices,
  TRAINING_ATTRIBUTE_NAMES,
  trainingFromAttributes,
} from './attributes';
import { adoptElementStyles } from './styles';
import { nextTask } from '../next-task';
import { stepsDrawnAtStart } from './lazy-step';

/** How long a step a link landed on is held in place while the sections above it draw (scrollToStep). */
const HOLD_STEP_MS = 10_000;

export interface AttentionChangeDetail {
  config: Settings;
  result: Snapshot;
}

/** Starts work this far before the element scrolls into view. */
const NEAR_VIEWPORT = '300px';

/**
 * The base of every element: configured by attributes (validated like URL parameters), started when it
 * nears the viewport, sharing one engine with every other element on the page (one .wasm download).
 */

/**
 * What the host page must do about a file the element could not download, read from the loaders'
 * messages (engine/engine.ts download(), model/shipped.ts): which files to serve, and how. Nothing for
 * the causes whose message already says it (no SIMD, a CSP without 'wasm-unsafe-eval').
 */
function hostAdvice(reason: string): string {
  if (/server answered 404/.test(reason))
    return ' The host must serve the files that come with the script (its .wasm, workers and trained weights: the whole embed/ folder) beside it, at the path it is loaded from.';
  if (/server answered \d/.test(reason)) return ' The server refused the file for now: reload later, or check the server.';
  if (/could not be downloaded \(/.test(reason))
    return ' From another origin, the host must serve the embed/ files with an Access-Control-Allow-Origin header (or from this page’s own origin), and a Content-Security-Policy must list that origin in connect-src.';
  if (/not WebAssembly|damaged/.test(reason)) return ' The host must serve the .wasm unchanged, as application/wasm.';
  return '';
}

export abstract class AttentionElement extends HTMLElement {
  static get observedAttributes(): string[] {
    return OBSERVED_ATTRIBUTES;
  }

  /** @internal The steps this element shows (the walkthrough's internals: not in the package's types). */
  protected abstract readonly steps: readonly StepDefinition[];
  /** The full walkthrough has a table of contents; single steps do not. */
  protected get withToc(): boolean {
    return false;
  }
  /**
   * Whether the element's setting attributes are a training run's (<attention-train>: task, layers,
   * learning-rate, ...) rather than the walkthrough's.
   */
  protected get trainsOwnModel(): boolean {
    return false;
  }
  /** The `controls` list when the attribute is absent: every control, unless the step has its own. */
  protected get defaultControls(): string | null {
    return this.steps.length > 1 ? WALKTHROUGH_BAR_CONTROLS : null;
  }

  private readonly shadow: ShadowRoot;
  /** The page's HTML already holds this element's drawing (a declarative shadow root from the build). */
  private readonly prerendered: boolean;
  private state: WalkthroughState | null = null;
  private walkthrough: Walkthrough | null = null;
  private observer: IntersectionObserver | null = null;
  private starting = false;
  /** The latest start(): loading the engine, then the first drawing (or the load error). */
  private startup: Promise<void> | null = null;

  constructor() {
    super();
    // A prerendered page (web/tooling/prerender-walkthrough.ts) parsed the shadow root already: its
    // content stays on screen, instead of the placeholder, until the live drawing replaces it.
    this.prerendered = this.shadowRoot !== null;
    this.shadow = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    // A prerendered copy is styled by its own inline <style> until start() adopts the shared sheet.
    if (!this.prerendered) adoptElementStyles(this.shadow);
  }

  /**
   * The settings the element shows (a read-only copy), with the shape it computes at: d_model 32 and 2
   * heads while it shows the trained model, whatever d-model and heads say (they wait for random weights).
   */
  get config(): Settings | null {
    return this.state ? shownSettings(this.state.settings) : null;
  }

  /** The numbers the element shows: the engine's snapshot for `config` (treat as read-only). */
  get result(): Snapshot | null {
    return this.walkthrough?.snapshot ?? null;
  }

  /**
   * Resolves once the element shows its current state, like Lit's `updateComplete`: after an attribute
   * or control change, when the engine has computed the settings (or refused them with a notice), any
   * engine restart has finished, and every step is drawn, including the steps the full walkthrough
   * draws in idle time. While the element is loading the engine, it waits for the first drawing (or the
   * load error's message). An element that has not started yet (it starts as it nears the viewport)
   * shows its placeholder, so the promise resolves at once. Canvases that paint in the next animation
   * frame (the heads' grid) may follow a frame later.
   */
  get updateComplete(): Promise<void> {
    return this.whenDrawn();
  }

  private async whenDrawn(): Promise<void> {
    if (this.startup) await this.startup;
    for (let walkthrough = this.walkthrough; walkthrough;) {
      await walkthrough.updateComplete;
      if (this.walkthrough === walkthrough) return;
      walkthrough = this.walkthrough; // remounted (a new `controls` list) meanwhile
    }
  }

  /**
   * With the `debug` attribute, the element's engine and UI path (AttentionDebug, elements/debug.ts) for
   * the console and the browser tests; null without the attribute or before the element has started.
   */
  get debug(): AttentionDebug | null {
    const { engineRef: engine, state, walkthrough } = this;
    if (!this.hasAttribute('debug') || !engine || !state || !walkthrough) return null;
    return debugHandle(engine, state, walkthrough);
  }

  connectedCallback(): void {
    if (this.walkthrough || this.starting) return;
    if (!this.prerendered) this.showPlaceholder();
    // A prerendered element is the page's own walkthrough, already on screen: it starts at once rather
    // than a viewport report later, so updateComplete from its first moment waits for its live drawing.
    if (this.prerendered || typeof IntersectionObserver === 'undefined') {
      this.startOnce();
      return;
    }
    this.observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) this.startOnce();
      },
      { rootMargin: NEAR_VIEWPORT },
    );
    this.observer.observe(this);
  }

  disconnectedCallback(): void {
    this.observer?.disconnect();
    this.observer = null;
    this.stopHoldingStep?.();
  }

  attributeChangedCallback(name: string, oldValue: string | null, newValue: string | null): void {
    if (oldValue === newValue || !this.walkthrough || !this.state) return;
    if (this.trainsOwnModel) {
      if ((TRAINING_ATTRIBUTE_NAMES as readonly string[]).includes(name)) this.state.setTraining(trainingFromAttributes(this));
      else if (name === 'controls') this.remount();
      else if (name === 'theme') this.walkthrough.notify(themeNotices(newValue));
      return;
    }
    if (name in SETTING_ATTRIBUTES && !this.syncsUrl) {
      const { settings, notices } = settingsFromAttributes(this);
      this.state.update(settings, 'none');
      this.walkthrough.notify(notices);
    } else if (name === 'controls') {
      this.remount();
    } else if (name === 'theme') {
      this.walkthrough.notify(themeNotices(newValue));
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
    this.shadow.replaceChildren(
      el(
        'div',
        { class: 'placeholder', part: 'placeholder' },
        el('h2', {}, this.steps.length === 1 ? first.title : 'Attention, worked out by hand'),
        el('p', {}, this.steps.length === 1 ? first.summary : 'Every step of softmax(Q Kᵀ / √dₖ) V with live numbers.'),
        el('p', { class: 'hint' }, 'Loading the live figure…'),
      ),
    );
  }

  private startOnce(): void {
    if (!this.starting && !this.walkthrough) this.startup = this.start();
  }

  private async start(): Promise<void> {
    if (this.starting || this.walkthrough) return;
    this.starting = true;
    this.observer?.disconnect();
    if (this.prerendered) {
      // Not in the task that evaluates the elements' bundle (defines the element, which connects it):
      // with building the shared sheet and the state, that was a 100–135 ms task on a phone's CPU
      // (tests/bench/page-walk.ts). The copy on screen shows the same numbers meanwhile.
      await new Promise<void>((resolve) => nextTask(resolve));
      adoptElementStyles(this.shadow);
    }
    try {
      const { settings, notices } =
        this.syncsUrl || this.trainsOwnModel ? { settings: undefined, notices: [] as string[] } : settingsFromAttributes(this);
      const state = new WalkthroughState(this.syncsUrl, settings, this.trainsOwnModel ? trainingFromAttributes(this) : undefined);
      // The trained model's weights only where a step drawn at once shows it (the walkthrough fetches them
      // when a later step's drawing or a later change needs them): they download while the engine compiles, and are awaited just below.
      const needsWeights = needsTrainedWeights(state.settings.weights, stepsDrawnAtStart(this.steps));
      if (needsWeights) loadShippedWeights().catch(() => {});
      const engine = await loadEngine();
      // A step here that the engine's later module computes, and whose code is here already (a single
      // step's element), gets the module before it starts; the walkthrough fetches it for lazy steps.
      if (this.steps.some((step) => step.later && !isLazyStep(step))) await engine.loadLater();
      const { failure } = needsWeights ? await loadTrainedWeights(engine) : { failure: null };
      this.state = state;
      // Without the weights the element still runs (random weights where the trained model would
      // be), says so in place with what the host must do, and tells the host page by the event.
      const weightsMessage = failure ? `The trained model could not be loaded (${failure}).${hostAdvice(failure)}` : null;
      if (weightsMessage) {
        notices.push(`${weightsMessage} Random weights are shown instead.`);
        if (this.state.settings.weights === 'trained') this.state.update({ weights: 'random' }, 'replace');
      }
      this.mount(engine, notices);
      if (weightsMessage)
        this.dispatchEvent(new CustomEvent('attention-error', { detail: { message: weightsMessage }, bubbles: true, composed: true }));
    } catch (error) {
      this.showLoadError(error);
    } finally {
      this.starting = false;
    }
  }

  private engineRef: AttentionEngine | null = null;

  private mount(engine: AttentionEngine, notices: string[]): void {
    this.engineRef = engine;
    const controls = parseControls(this.getAttribute('controls') ?? this.defaultControls);
    // The prerendered copy's sections stay on the page until each step's live section replaces it
    // (not on a remount: the copy is gone by then).
    const prerendered =
      this.prerendered && !this.walkthrough
        ? new Map([...this.shadow.querySelectorAll<HTMLElement>('section[data-step]')].map((section) => [section.dataset.step!, section]))
        : undefined;
    // The first mount over the prerendered copy builds in its frame (the walkthrough keeps its content
    // and sections where they are): taking the whole tree out and putting it back restyled and laid out
    // every element of it, ~400 ms on a phone's CPU. (The copy's inline <style> went just before, in
    // start(): adoptElementStyles.)
    const adopted = prerendered
      ? ([...this.shadow.children].find((child) => child.classList.contains('frame')) as HTMLElement | undefined)
      : null;
    const frame = adopted ?? el('div', { class: `frame${this.withToc ? '' : ' framed'}`, part: 'frame' });
    if (!adopted) this.shadow.replaceChildren(frame);
    this.walkthrough = mountWalkthrough({
      root: frame,
      engine,
      state: this.state!,
      steps: this.steps,
      controls: controls.visible,
      toc: this.withToc,
      embedCode: this.withEmbedCode ? embedCode : undefined,
      timing: workerTimingService(),
      training: workerTrainingService(),
      prerendered,
      onSnapshot: (snapshot) => {
        this.dataset.ready = 'true';
        this.dispatchEvent(
          new CustomEvent<AttentionChangeDetail>('attention-change', {
            detail: { config: shownSettings(snapshot.settings), result: snapshot },
            bubbles: true,
            composed: true,
          }),
        );
      },
    });
    this.walkthrough.notify([...notices, ...controls.notices, ...themeNotices(this.getAttribute('theme'))]);
  }

  private remount(): void {
    if (this.engineRef) this.mount(this.engineRef, []);
  }

  /**
   * Instead of an empty box: what went wrong and what to do, then each step's title, summary and
   * formula (MathML rendered at build time, so they need no engine).
   */
  private showLoadError(error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.dataset.ready = 'error';
    const advice =
      error instanceof EngineError
        ? hostAdvice(reason)
        : " It needs WebAssembly with SIMD (any current browser) and, on pages with a Content-Security-Policy, 'wasm-unsafe-eval' in script-src.";
    const single = this.steps.length === 1;
    this.shadow.replaceChildren(
      el(
        'div',
        { class: 'placeholder', part: 'placeholder' },
        single ? null : el('h2', {}, 'Attention, worked out by hand'),
        el(
          'p',
          { class: 'load-error', role: 'status' },
          `The live figure${single ? '' : 's'} could not start: ${reason}.${advice} The explanation below still reads; only the live numbers are missing.`,
        ),
        ...this.steps.map((step) =>
          el(
            'section',
            { class: 'step', 'aria-labelledby': `fallback-${step.id}` },
            el(single ? 'h2' : 'h3', { id: `fallback-${step.id}` }, single ? step.title : `${step.number}. ${step.title}`),
            el('p', {}, step.summary),
            step.formula ? formulaElement(step.formula, `Formula: ${step.title}`) : null,
          ),
        ),
      ),
    );
    this.dispatchEvent(new CustomEvent('attention-error', { detail: { message: reason }, bubbles: true, composed: true }));
  }

  /**
   * The sections just above `target` that the scroll to it brings near the viewport, laid out at their
   * real height now: each would otherwise get it in the frame after the scroll and push the target
   * down under the reader (a layout shift of most of the screen on a deep link). They stay laid out:
   * handed back to content-visibility, one the browser skips again takes the stylesheet's estimated
   * height for a frame, which moves the target just the same.
   */
  private layOutSectionsAbove(target: HTMLElement): void {
    const sections = [...this.shadow.querySelectorAll<HTMLElement>('section.step')];
    let covered = 0;
    for (let i = sections.indexOf(target) - 1; i >= 0 && covered < innerHeight; i--) {
      sections[i].style.contentVisibility = 'visible';
      // Step 1's blocks are skipped on their own as well (styles/walkthrough.css).
      for (const block of sections[i].querySelectorAll<HTMLElement>('.step-body > *'))
        if (getComputedStyle(block).contentVisibility === 'auto') block.style.contentVisibility = 'visible';
      covered += sections[i].getBoundingClientRect().height;
    }
  }

  /** Scrolls to a step by id (hash links cannot see into a shadow root). */
  scrollToStep(id: string): boolean {
    const target = this.shadow.getElementById(id);
    if (!target) return false;
    this.layOutSectionsAbove(target);
    target.scrollIntoView();
    const realign = this.holdStep(id);
    // Off-screen sections are laid out at an estimated height (content-visibility: auto) until they
    // near the viewport. The ones that came near with this scroll get their real height in the next
    // frame, which moves the target: align it again until it stays put (a few frames at most).
    // The browser decides which sections are near after a frame's layout, so watch a few frames.
    let frames = 0;
    let still = 0;
    const settle = () => {
      if (realign()) still = 0;
      else if (++still >= 3) return;
      if (++frames < 20) requestAnimationFrame(settle);
    };
    if (typeof requestAnimationFrame === 'function') requestAnimationFrame(settle);
    return true;
  }

  private stopHoldingStep: (() => void) | null = null;

  /**
   * Keeps the step just scrolled to (by id) where it is while the sections above it settle, and
   * returns the call that aligns it again when it has moved (true then). Besides the first frames
   * (scrollToStep), the live walkthrough replaces each prerendered section with its live one when it
   * draws (the target too, and later still on a slow phone), which changes the height above the
   * target and the element the id names; and the settings bar may settle at another height, which
   * moves where the target belongs (its scroll-margin-top follows the bar). A ResizeObserver reports
   * each after layout and before paint, so aligning there shows no jump; a MutationObserver hands it
   * the sections that replace others. It lets go at the reader's first input (wheel, touch, key or
   * pointer), or after HOLD_STEP_MS. A scroll event alone does not tell the reader's scroll from the
   * browser's own (scroll anchoring moves the page when a section above changes height), so it does
   * not end the hold.
   */
  private holdStep(id: string): () => boolean {
    this.stopHoldingStep?.();
    const current = () => this.shadow.getElementById(id);
    const marginOf = (target: HTMLElement) => parseFloat(getComputedStyle(target).scrollMarginTop) || 0;
    let held = current();
    let top = held?.getBoundingClientRect().top ?? 0;
    let margin = held ? marginOf(held) : 0;
    // The first frames' alignment (scrollToStep) runs whatever the reader does, as it always has; the
    // observers' only until the hold ends.
    const realign = (): boolean => {
      const target = current();
      if (!target) return false;
      const moved = target !== held || Math.abs(target.getBoundingClientRect().top - top) >= 1;
      if (!moved && Math.abs(marginOf(target) - margin) < 1) return false;
      target.scrollIntoView();
      held = target;
      top = target.getBoundingClientRect().top;
      margin = marginOf(target);
      return true;
    };
    const sections = held?.parentElement;
    if (typeof ResizeObserver !== 'function' || typeof MutationObserver !== 'function' || !sections) return realign;
    const resizes = new ResizeObserver(() => realign());
    // The sections above the target and the target itself, as they are now (observing an element
    // already observed changes nothing; a new one reports its first size, after its first layout).
    const observeAbove = () => {
      for (const section of sections.querySelectorAll<HTMLElement>(':scope > section.step')) {
        resizes.observe(section);
        if (section.id === id) break;
      }
    };
    const replacements = new MutationObserver(observeAbove);
    const inputs = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const;
    const stop = () => {
      resizes.disconnect();
      replacements.disconnect();
      clearTimeout(timer);
      for (const type of inputs) removeEventListener(type, stop, true);
      if (this.stopHoldingStep === stop) this.stopHoldingStep = null;
    };
    const timer = setTimeout(stop, HOLD_STEP_MS);
    observeAbove();
    replacements.observe(sections, { childList: true });
    const bar = this.shadow.querySelector('.controls');
    if (bar) resizes.observe(bar);
    for (const type of inputs) addEventListener(type, stop, { capture: true, passive: true });
    this.stopHoldingStep = stop;
    return realign;
  }
}
