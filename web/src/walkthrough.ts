// Assembles a walkthrough (all steps, or one for an embed) inside a root: settings bar, notices,
// contents, one section per step. Data flows one way:
// control -> state.update() -> FrameScheduler (at most one engine call per frame) -> snapshot -> steps.
// What the page provides besides the engine (the timing service, embed code) comes in through
// the options and reaches each step through its context; this module imports nothing above it.
import { FrameScheduler } from './compute';
import { createControls, type ControlName } from './controls';
import { EngineCrash, type AttentionEngine } from './engine/engine';
import { el } from './ui/dom';
import { embedTools } from './ui/export-toolbar';
import { formulaElement } from './ui/formula';
import { barStatement } from './steps/shared/which-model';
import { loadShippedWeights } from './model/shipped';
import { noticeArea } from './notices';
import { shapeOf, type Settings } from './settings';
import type { WalkthroughState } from './state';
import type { TrainSettings } from './features/training/train-settings';
import type { ArrivedPart, Snapshot } from './snapshot';
import { StepRenderer, type StepSection } from './step-renderer';
import { isLazyStep, loadFailureMessage, loadingMessage, stepsDrawnAtStart, type LazyStep } from './elements/lazy-step';
import {
  hasTrainedWeights,
  loadTrainedWeights,
  needsTrainedWeights,
  provideTrainedWeights,
  type ReaderModel,
} from './features/trained-model/trained';
import { ensureReaderModel } from './features/reader/model';
import { STEPS } from './steps/index';
import type { EmbedCode, StepContext, StepDefinition, StepView } from './steps/types';
import type { TimingService } from './features/cost/cost-plan';
import type { TrainingService } from './features/training/training-service';

export interface WalkthroughOptions {
  root: HTMLElement | ShadowRoot;
  engine: AttentionEngine;
  state: WalkthroughState;
  steps?: readonly StepDefinition[];
  controls?: ReadonlySet<ControlName>;
  /** A table of contents (the full walkthrough). */
  toc?: boolean;
  /** Makes a step's "Embed this step" for its figures' menus (the main page's element layer); without it, none. */
  embedCode?: (step: StepDefinition, settings: () => { settings: Settings; training: TrainSettings }) => EmbedCode;
  /** The page's timing service for the "Run it on my machine" measurement; without it, none. */
  timing?: TimingService;
  /** The page's training service for "Train it yourself"; without it, none. */
  training?: TrainingService;
  onSnapshot?: (snapshot: Snapshot) => void;
  /**
   * The sections of this walkthrough prerendered at its settings (web/tooling/prerender-walkthrough.ts),
   * by step id. Each stays on the page until its step's first drawing makes the live section, which
   * takes its place: the first computation in stages, then what is in view one section per task, the
   * rest in idle time, instead of in one long task. onSnapshot hears of the first drawing once every
   * step is drawn.
   */
  prerendered?: ReadonlyMap<string, HTMLElement>;
}

export interface Walkthrough {
  readonly snapshot: Snapshot | null;
  /** Shows messages in the notice area (e.g. what validation changed in an attribute). */
  notify(messages: string[]): void;
  /** Recomputes now instead of at the next frame. */
  flush(): void;
  /** Every section shows the latest settings (none is waiting for idle time). */
  readonly drawn: boolean;
  /**
   * Resolves once the walkthrough shows its current settings: they are computed (or refused, with a
   * notice), no engine restart is under way, and every section is drawn, including those left for idle time.
   */
  readonly updateComplete: Promise<void>;
}

/**
 * "Copy link": the section's address with the settings in force, to the clipboard; where the clipboard
 * is refused (an insecure origin, a denied permission), the link is shown as selected text, to copy by hand.
 */
function copyLinkButton(step: StepDefinition, link: () => string): HTMLElement {
  const status = el('span', { class: 'copy-link-status', role: 'status' });
  const button = el(
    'button',
    { type: 'button', class: 'copy-link', title: 'Copy a link to this step with the current settings' },
    'Copy link',
    el('span', { class: 'visually-hidden' }, ` to step ${step.number}`),
  );
  button.addEventListener('click', () => {
    const url = link();
    // Shown as selected text, not a field: nothing new to Tab through, and focus stays on the button.
    const shown = () => {
      const text = el('span', { class: 'copy-link-text' }, url);
      status.replaceChildren('Copy this link: ', text);
      getSelection()?.selectAllChildren(text);
    };
    if (!navigator.clipboard?.writeText) return shown();
    navigator.clipboard.writeText(url).then(() => status.replaceChildren('Link copied'), shown);
  });
  return el('span', { class: 'copy-link-row' }, button, status);
}

function stepSection(step: StepDefinition, link?: () => string): { section: HTMLElement; body: HTMLElement } {
  const headingId = `step-${step.id}-title`;
  const body = el('div', { class: 'step-body', part: 'body' });
  const header = el(
    'div',
    { class: 'step-header' },
    el('h2', { id: headingId }, el('span', { class: 'step-number' }, `${step.number}.`), ' ', step.title),
    link ? copyLinkButton(step, link) : null,
  );
  const section = el(
    'section',
    { class: 'step', id: step.id, 'aria-labelledby': headingId, 'data-step': step.id, part: 'step' },
    header,
    step.formula ? formulaElement(step.formula, `Formula: ${step.title}`) : null,
    body,
  );
  return { section, body };
}

/** The parts of a snapshot that can arrive late (snapshot.ts) that a step shows, as its definition says. */
export function partsShown(step: StepDefinition): ArrivedPart[] {
  const parts: ArrivedPart[] = [];
  if (step.numbers === 'reader' || step.readerAnswer) parts.push('reader');
  if (step.later) parts.push('later');
  if (step.numbers === 'sentence' || step.numbers === 'reader') parts.push('weights');
  return parts;
}

/** Whether a figure's menu in the section is always usable: one not covered by a prediction (ui/predict.ts). */
function hasReachableMenu(body: HTMLElement): boolean {
  return [...body.querySelectorAll('.export-tools')].some((menu) => !menu.closest('.predict-target'));
}

export function mountWalkthrough(options: WalkthroughOptions): Walkthrough {
  const { root, engine, state, steps = STEPS, onSnapshot } = options;
  let latest: Snapshot | null = null;
  const notice = noticeArea();
  const controls = createControls((change, history) => state.update(change, history), options.controls);
  const sections: StepSection[] = [];
  // Predictions (ui/predict.ts) belong to the full walkthrough; a single embedded figure shows its answer.
  const contextFor = (step: StepDefinition): StepContext => ({
    update: (change) => state.update(change),
    predictions: Boolean(options.toc),
    timing: options.timing,
    training: options.training,
    useTrainedModel: options.toc ? useTrainedModel : undefined,
    loadReaderModel: (causal) => {
      void ensureReaderModel(engine, causal).then((ready) => {
        if (ready) scheduler.arrived('reader');
      });
    },
    trainingSettings: {
      get current() {
        return state.training;
      },
      takeNotices: () => state.takeTrainingNotices(),
      update: (change) => state.updateTraining(change),
      subscribe: (listener) => state.subscribeTraining(listener),
    },
    embedCode: options.embedCode?.(step, () => ({ settings: state.settings, training: state.training })),
  });

  // "Use these weights": the engine's trained model becomes the reader's (or the shipped one again), and
  // every step is computed again with trained weights (and the model's own scaling).
  async function useTrainedModel(model: ReaderModel | null): Promise<void> {
    provideTrainedWeights(engine, model ? model.bytes : await loadShippedWeights(), model?.record);
    const change: Partial<Settings> = { weights: 'trained', scale: model ? model.scale : true };
    if (state.settings.weights === change.weights && state.settings.scale === change.scale) request({ ...state.settings });
    else state.update(change);
  }

  // Over a prerendered copy in `root` (the page's first mount): its content, table of contents and
  // sections stay where they are, and only its settings bar is replaced by the live one. Moving the
  // whole tree restyled and laid out every element of it.
  const copyBar = options.prerendered ? root.querySelector(':scope > .settings-bar') : null;
  const copyContent = copyBar ? root.querySelector<HTMLElement>(':scope > .content') : null;
  const content = copyContent ?? el('div', { class: 'content' });
  // The full walkthrough's notices hang below its sticky bar, in view wherever the reader is; an
  // embed's (or a walkthrough without a bar) sit above its figure.
  if (options.toc && !controls.element.hidden) controls.noticeSlot.append(notice.element);
  else content.prepend(notice.element);
  if (options.toc && !copyContent) {
    content.appendChild(
      el(
        'nav',
        { class: 'toc', 'aria-label': 'Steps' },
        el('ol', {}, ...steps.map((step) => el('li', {}, el('a', { href: `#${step.id}` }, step.title)))),
      ),
    );
  }
  const mountStep = (step: StepDefinition): { section: HTMLElement; view: StepView } => {
    const context = contextFor(step);
    // The full walkthrough's sections are links of their own page; a single embedded step is not.
    const { section, body } = stepSection(step, options.toc ? () => state.linkTo(step.id) : undefined);
    const view = step.mount(body, context);
    // "Embed this step" is in every figure's menu. A section without a figure menu that is always in
    // reach (none, or each behind a prediction until it is answered) gets one at its end instead.
    if (context.embedCode && !hasReachableMenu(body)) body.appendChild(embedTools(() => step.title, context.embedCode));
    return { section, view };
  };
  /**
   * The engine's later module, for the steps it computes (StepDefinition.later): fetched once, at such a
   * step's first drawing, and then the page computes again with it. A failed fetch may be tried again.
   */
  let laterLoad: Promise<void> | null = null;
  const loadLater = () =>
    engine.hasLater
      ? Promise.resolve()
      : (laterLoad ??= engine.loadLater().then(
          () => void scheduler.arrived('later'),
          (error: unknown) => {
            laterLoad = null;
            throw error;
          },
        ));
  /**
   * A step whose code is fetched apart (elements/lazy-step.ts) keeps its copy, or a heading and a
   * loading line, until the code is here; if it cannot come, a line in place says why.
   */
  const lazySection = (step: LazyStep, copy: HTMLElement | undefined): StepSection => {
    const status = el('p', { class: 'aside step-loading', role: 'status' }, loadingMessage(step));
    // The copy needs no loading line: it already shows the step.
    const placeholder = copy ?? stepSection(step).section;
    if (!copy) placeholder.append(status);
    // A step that shows the trained model fetches its weights beside its code, and is drawn once both are here.
    const load = () =>
      Promise.all([step.load(), weightsForDrawing(step), step.later && loadLater()]).then(
        () => true,
        (error: unknown) => {
          status.textContent = loadFailureMessage(step, error, copy !== undefined);
          placeholder.append(status);
          return false;
        },
      );
    return { section: placeholder, mount: () => mountStep(step), load };
  };
  for (const step of steps) {
    const copy = options.prerendered?.get(step.id);
    const made: StepSection = isLazyStep(step)
      ? lazySection(step, copy)
      : copy
        ? { section: copy, mount: () => mountStep(step) }
        : mountStep(step);
    const entry: StepSection = { ...made, shows: partsShown(step) };
    // In the steps' order: after the previous step's section (a step without a prerendered copy among copies).
    if (entry.section.parentNode !== content) content.insertBefore(entry.section, sections.at(-1)?.section.nextSibling ?? null);
    sections.push(entry);
  }
  if (copyBar && copyContent) copyBar.replaceWith(controls.element);
  else root.append(controls.element, content);
  const renderer = new StepRenderer(sections);
  let firstPaint = true;

  // The steps drawn, or whose code is on the way to be: the trained weights are fetched only for what
  // these show (a step from multi-head on beside the example: its first drawing asks for them).
  const drawing = new Set<StepDefinition>(stepsDrawnAtStart(steps));
  // Why the trained weights could not come for the steps beside the example, once said: those steps then
  // show random weights (and their line says so) rather than asking again at every change.
  let exampleWeightsFailure: string | null = null;
  const needsWeightsNow = (settings: Settings) =>
    needsTrainedWeights(settings.weights, [...drawing]) &&
    !hasTrainedWeights(engine) &&
    !(settings.weights === 'example' && exampleWeightsFailure);
  /** A lazy step's first drawing: it waits for the trained weights too when it shows them and they are not here. */
  function weightsForDrawing(step: StepDefinition): Promise<void> | undefined {
    drawing.add(step);
    if (!needsWeightsNow(state.settings)) return undefined;
    request({ ...state.settings });
    return weightsArrival ?? undefined;
  }

  // For updateComplete: the last settings asked of the scheduler, the last it answered (with a
  // snapshot or an error), and whether a crashed engine is being re-created.
  let requested: Settings | null = null;
  let answered: Settings | null = null;
  let restarting = false;
  const answerWaiters: (() => void)[] = [];
  const request = (settings: Settings) => {
    requested = settings;
    // Settings that show the trained model before its weights are here (an element that started
    // without them, then asked for trained weights; a step from multi-head on drawn beside the example):
    // fetched first, then computed.
    if (needsWeightsNow(settings)) weightsArrival ??= computeWithWeights(settings).finally(() => (weightsArrival = null));
    else scheduler.request(settings);
  };
  const answer = (settings: Settings | null) => {
    if (settings) answered = settings;
    for (const resolve of answerWaiters.splice(0)) resolve();
  };
  const updateComplete = async (): Promise<void> => {
    for (;;) {
      if (requested !== answered || restarting) await new Promise<void>((resolve) => answerWaiters.push(resolve));
      else {
        await renderer.settled();
        if (requested === answered && !restarting) return;
      }
    }
  };

  // The last settings the figures were drawn for, and settings already retried after an engine crash.
  let lastGood: Settings | null = null;
  let retried: Settings | null = null;
  const describe = (settings: Settings) => {
    if (settings.weights === 'example') return 'the article’s four-token example';
    const { dModel, heads } = shapeOf(settings);
    return `${settings.weights === 'trained' ? 'the trained model, ' : ''}d_model ${dModel}, ${heads} head${heads === 1 ? '' : 's'}`;
  };
  /** Back to the settings the figures show, so controls, URL and figures agree again. */
  const goBack = (messages: string[]) => {
    // The state change first: its (empty) notices would clear the ones that say why.
    const previous = lastGood;
    if (previous) state.update(previous, 'replace');
    notice.show(previous ? [...messages, `The figures still show your previous settings (${describe(previous)}).`] : messages);
  };

  /** The trained weights' download under way (computeWithWeights), if any: one at a time. */
  let weightsArrival: Promise<void> | null = null;

  /**
   * Fetches the trained weights, then computes the latest settings (now, so that a step waiting for
   * them draws the new numbers). If they cannot come: beside the example, the steps that wanted them
   * show random weights and a notice says why; for trained weights, it says why and goes back.
   */
  async function computeWithWeights(settings: Settings): Promise<void> {
    const { failure } = await loadTrainedWeights(engine);
    const latest = requested ?? settings;
    if (failure && latest.weights === 'example') {
      exampleWeightsFailure = failure;
      notice.show([`The trained model could not be loaded (${failure}): the steps that show the sentence use random weights instead.`]);
    } else if (failure) {
      answer(latest);
      return goBack([`The trained model could not be loaded (${failure}).`]);
    }
    // Beside the example, the weights change only the steps that show the sentence: the snapshot shown
    // is completed with them, and only those steps are drawn again (FrameScheduler.arrived).
    if (!failure && latest.weights === 'example' && scheduler.arrived('weights', latest)) return;
    scheduler.request(latest);
    scheduler.flush();
  }

  const scheduler = new FrameScheduler(
    engine,
    (snapshot, repeats) => {
      latest = snapshot;
      // The bar says what the steps below it show: only a walkthrough of several steps has that to say.
      if (steps.length > 1) controls.describe(barStatement(steps, snapshot));
      lastGood = snapshot.settings;
      retried = null;
      answer(snapshot.settings);
      if (firstPaint && options.prerendered && sections.length > 1) {
        firstPaint = false;
        renderer.renderFromTop(snapshot);
        // As on a page drawn in one go: the first attention-change says that every step shows the numbers.
        void renderer.settled().then(() => {
          if (latest === snapshot) onSnapshot?.(snapshot);
        });
        return;
      }
      // A single embedded step is drawn before its attention-change goes out, on screen or not (its
      // host may read the figure at once); the whole walkthrough leaves off-screen steps to idle time.
      if (firstPaint || sections.length === 1) renderer.renderAll(snapshot);
      else renderer.render(snapshot, repeats);
      firstPaint = false;
      // A step whose code is still on the way is drawn when it arrives, and the change is heard then.
      if (!renderer.loading) onSnapshot?.(snapshot);
      else
        void renderer.settled().then(() => {
          if (latest === snapshot) onSnapshot?.(snapshot);
        });
    },
    (error, settings) => {
      const reason = error instanceof Error ? error.message : String(error);
      if (!(error instanceof EngineCrash)) {
        answer(settings);
        goBack([`The engine could not compute these settings: ${reason}`]);
        return;
      }
      restarting = true;
      answer(settings);
      // The wasm instance failed (out of memory): re-create it, then try these settings once more.
      // Compared by value: a recompute asked for in the meantime (the reader model arriving, say) passes
      // a copy of the same settings, and that is still the second failure on them.
      const again = retried !== null && JSON.stringify(retried) === JSON.stringify(settings);
      retried = settings;
      notice.show([`The engine stopped while computing ${describe(settings)} (${reason}). Restarting it…`]);
      engine.restart().then(
        () => {
          restarting = false;
          if (again) {
            goBack([`The engine ran out of memory twice on ${describe(settings)}, so it was restarted and these settings were left out.`]);
          } else {
            notice.show([`The engine stopped (${reason}) and was restarted; your settings were computed again.`]);
            request(state.settings);
          }
          answer(null);
        },
        (restartError: unknown) => {
          restarting = false;
          notice.show([
            `The engine stopped (${reason}) and could not be restarted (${restartError instanceof Error ? restartError.message : String(restartError)}). Reload the page to get the live figures back; the text still reads.`,
          ]);
          answer(null);
        },
      );
    },
  );

  state.subscribe(({ settings, notices }) => {
    controls.show(settings);
    notice.settle(notices);
    request(settings);
  });
  controls.show(state.settings);
  notice.show(state.takeInitialNotices());
  request(state.settings);
  // A step already here that needs the later module (an embed's single step) asks for it at once; its
  // figures say they are loading until then.
  for (const step of steps)
    if (step.later && !isLazyStep(step)) loadLater().catch((error: unknown) => notice.show([loadFailureMessage(step, error, false)]));
  // Over a prerendered page, which already shows these numbers, the first computation and drawing are
  // spread over tasks (a phone's CPU spent ~400 ms on them in one); otherwise the first paint is
  // synchronous: the page arrives complete.
  if (options.prerendered && sections.length > 1) scheduler.flushInTasks();
  else scheduler.flush();

  return {
    get snapshot() {
      return latest;
    },
    get drawn() {
      return renderer.drawn;
    },
    get updateComplete() {
      return updateComplete();
    },
    notify: (messages) => notice.show(messages),
    flush: () => {
      request(state.settings);
      scheduler.flush();
      renderer.flush();
    },
  };
}
