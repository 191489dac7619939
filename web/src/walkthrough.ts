// Assembles the walkthrough: settings bar, notices, one section per step. Data flows one way:
// control -> state.update() -> FrameScheduler (one engine call per frame) -> snapshot -> steps.
import { FrameScheduler } from './compute';
import { createControls } from './controls';
import type { AttentionEngine } from './engine/engine';
import { el } from './figures/dom';
import { formulaElement } from './figures/formula';
import { WalkthroughState } from './state';
import type { Snapshot } from './snapshot';
import { STEPS } from './steps/index';
import type { StepDefinition, StepView } from './steps/types';

export interface Walkthrough {
  state: WalkthroughState;
  /** The latest snapshot, for tests and embeds' `result`. */
  readonly snapshot: Snapshot | null;
}

export interface WalkthroughOptions {
  root: HTMLElement;
  engine: AttentionEngine;
  state: WalkthroughState;
  steps?: readonly StepDefinition[];
  onSnapshot?: (snapshot: Snapshot) => void;
}

export function notices(): { element: HTMLElement; show(messages: string[]): void } {
  const list = el('ul');
  const element = el('div', { class: 'notices', role: 'status', 'aria-live': 'polite', hidden: true }, list);
  const dismiss = el('button', { type: 'button', class: 'notice-dismiss' }, 'Dismiss');
  dismiss.addEventListener('click', () => {
    element.hidden = true;
  });
  element.appendChild(dismiss);
  return {
    element,
    show(messages) {
      if (messages.length === 0) return;
      list.replaceChildren(...messages.map((m) => el('li', {}, m)));
      element.hidden = false;
    },
  };
}

export function stepSection(step: StepDefinition): { section: HTMLElement; body: HTMLElement } {
  const headingId = `step-${step.id}-title`;
  const body = el('div', { class: 'step-body' });
  const section = el('section', { class: 'step', id: step.id, 'aria-labelledby': headingId },
    el('h2', { id: headingId }, el('span', { class: 'step-number' }, `${step.number}.`), ' ', step.title),
    step.formula ? formulaElement(step.formula, `Formula for: ${step.title}`) : null,
    body);
  return { section, body };
}

export function mountWalkthrough({ root, engine, state, steps = STEPS, onSnapshot }: WalkthroughOptions): Walkthrough {
  let latest: Snapshot | null = null;
  const notice = notices();
  const controls = createControls((change, history) => state.update(change, history));
  const views: StepView[] = [];
  const context = { update: (change: Parameters<WalkthroughState['update']>[0]) => state.update(change) };

  const toc = el('nav', { class: 'toc', 'aria-label': 'Steps' },
    el('ol', {}, ...steps.map((step) => el('li', {}, el('a', { href: `#${step.id}` }, step.title)))));
  const sections = el('div', { class: 'steps' });
  for (const step of steps) {
    const { section, body } = stepSection(step);
    views.push(step.mount(body, context));
    sections.appendChild(section);
  }
  root.append(controls.element, notice.element, toc, sections);

  const scheduler = new FrameScheduler(
    engine,
    (snapshot) => {
      latest = snapshot;
      for (const view of views) view.render(snapshot);
      onSnapshot?.(snapshot);
    },
    (error) => notice.show([`The engine could not compute this setting: ${error instanceof Error ? error.message : String(error)}`]),
  );

  state.subscribe(({ settings, notices: messages }) => {
    controls.show(settings);
    notice.show(messages);
    scheduler.request(settings);
  });
  controls.show(state.settings);
  notice.show(state.takeInitialNotices());
  scheduler.request(state.settings);
  scheduler.flush(); // first paint synchronously: the page arrives complete

  return {
    state,
    get snapshot() {
      return latest;
    },
  };
}
