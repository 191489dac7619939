// Assembles a walkthrough (all steps, or one for an embed) inside a root: settings bar, notices,
// contents, one section per step. Data flows one way:
// control -> state.update() -> FrameScheduler (one engine call per frame) -> snapshot -> steps.
import { FrameScheduler } from './compute';
import { createControls, type ControlName } from './controls';
import { embedCodePanel } from './embed-code';
import type { AttentionEngine } from './engine/engine';
import { el } from './figures/dom';
import { formulaElement } from './figures/formula';
import type { WalkthroughState } from './state';
import type { Snapshot } from './snapshot';
import { STEPS } from './steps/index';
import type { StepDefinition, StepView } from './steps/types';

export interface WalkthroughOptions {
  root: HTMLElement | ShadowRoot;
  engine: AttentionEngine;
  state: WalkthroughState;
  steps?: readonly StepDefinition[];
  controls?: ReadonlySet<ControlName>;
  /** A table of contents (the full walkthrough). */
  toc?: boolean;
  /** A "Copy embed code" button on every section (the main page). */
  embedCode?: boolean;
  onSnapshot?: (snapshot: Snapshot) => void;
}

export interface Walkthrough {
  readonly snapshot: Snapshot | null;
  /** Shows messages in the notice area (e.g. what validation changed in an attribute). */
  notify(messages: string[]): void;
  /** Recomputes now instead of at the next frame. */
  flush(): void;
}

function noticeArea(): { element: HTMLElement; show(messages: string[]): void } {
  const list = el('ul');
  const dismiss = el('button', { type: 'button', class: 'notice-dismiss' }, 'Dismiss');
  const element = el('div', { class: 'notices', role: 'status', 'aria-live': 'polite', hidden: true, part: 'notices' }, list, dismiss);
  dismiss.addEventListener('click', () => {
    element.hidden = true;
  });
  return {
    element,
    show(messages) {
      if (messages.length === 0) return;
      list.replaceChildren(...messages.map((m) => el('li', {}, m)));
      element.hidden = false;
    },
  };
}

function stepSection(step: StepDefinition, extra: HTMLElement | null): { section: HTMLElement; body: HTMLElement } {
  const headingId = `step-${step.id}-title`;
  const body = el('div', { class: 'step-body', part: 'body' });
  const section = el('section', { class: 'step', id: step.id, 'aria-labelledby': headingId, 'data-step': step.id, part: 'step' },
    el('div', { class: 'step-header' },
      el('h2', { id: headingId }, el('span', { class: 'step-number' }, `${step.number}.`), ' ', step.title),
      extra),
    step.formula ? formulaElement(step.formula, `Formula: ${step.title}`) : null,
    body);
  return { section, body };
}

export function mountWalkthrough(options: WalkthroughOptions): Walkthrough {
  const { root, engine, state, steps = STEPS, onSnapshot } = options;
  let latest: Snapshot | null = null;
  const notice = noticeArea();
  const controls = createControls((change, history) => state.update(change, history), options.controls);
  const views: StepView[] = [];
  const context = { update: (change: Parameters<WalkthroughState['update']>[0]) => state.update(change) };

  const content = el('div', { class: 'content' }, notice.element);
  if (options.toc) {
    content.appendChild(el('nav', { class: 'toc', 'aria-label': 'Steps' },
      el('ol', {}, ...steps.map((step) => el('li', {}, el('a', { href: `#${step.id}` }, step.title))))));
  }
  for (const step of steps) {
    const panel = options.embedCode ? embedCodePanel(step, () => state.settings) : null;
    const { section, body } = stepSection(step, panel?.button ?? null);
    if (panel) section.insertBefore(panel.element, section.children[1]);
    views.push(step.mount(body, context));
    content.appendChild(section);
  }
  root.append(controls.element, content);

  const scheduler = new FrameScheduler(
    engine,
    (snapshot) => {
      latest = snapshot;
      for (const view of views) view.render(snapshot);
      onSnapshot?.(snapshot);
    },
    (error) => notice.show([`The engine could not compute this setting: ${error instanceof Error ? error.message : String(error)}`]),
  );

  state.subscribe(({ settings, notices }) => {
    controls.show(settings);
    notice.show(notices);
    scheduler.request(settings);
  });
  controls.show(state.settings);
  notice.show(state.takeInitialNotices());
  scheduler.request(state.settings);
  scheduler.flush(); // the first paint is synchronous: the page arrives complete

  return {
    get snapshot() {
      return latest;
    },
    notify: (messages) => notice.show(messages),
    flush: () => {
      scheduler.request(state.settings);
      scheduler.flush();
    },
  };
}
