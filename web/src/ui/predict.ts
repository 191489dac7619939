// Predict, then reveal: a question put to the reader before a figure shows the answer. The figure is
// blurred and inert (no focus, hidden from assistive technology) until the reader answers or skips;
// then the box says whether the guess was right and why, with the live numbers. Answers, and whether
// predictions are on at all, are remembered in localStorage, which may be missing or throw (sandboxed
// iframes, privacy modes): then they last for the visit only.
import { controlForm, el, replaceChildren, setText } from './dom';

export interface PredictChoice {
  id: string;
  label: string;
}

export interface PredictQuestion {
  /** What the answer is remembered under (include whatever the right answer depends on, e.g. the sentence). */
  key: string;
  question: string;
  choices: PredictChoice[];
  /** The choice that is right with the current numbers. */
  correct: string;
  /** Why, in our words, with the current numbers. */
  explanation: string;
}

const STORAGE_KEY = 'attention-by-hand:predictions';
const SKIPPED = '\u0000skip';

interface Stored {
  off: boolean;
  answers: Record<string, string>;
}

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // a sandboxed iframe throws on the mere access
  }
}

/** Whether predictions are on, and each answer: shared by every question on the page. */
export class PredictionStore {
  private state: Stored = { off: false, answers: {} };
  private readonly listeners = new Set<() => void>();

  constructor(private readonly key = STORAGE_KEY) {
    this.reload();
  }

  /** Reads what an earlier visit stored (tests call it after changing storage). */
  reload(): void {
    try {
      const text = storage()?.getItem(this.key);
      const parsed = text ? (JSON.parse(text) as Partial<Stored>) : null;
      const answers: Record<string, string> = {};
      if (parsed && typeof parsed.answers === 'object' && parsed.answers) {
        for (const [k, v] of Object.entries(parsed.answers)) if (typeof v === 'string') answers[k] = v;
      }
      this.state = { off: parsed?.off === true, answers };
    } catch {
      this.state = { off: false, answers: {} };
    }
    this.emit();
  }

  get enabled(): boolean {
    return !this.state.off;
  }

  setEnabled(on: boolean): void {
    this.state.off = !on;
    this.save();
  }

  /** The reader's choice for a question; SKIPPED when skipped; undefined when not answered. */
  answerOf(key: string): string | undefined {
    return this.state.answers[key];
  }

  answer(key: string, choice: string | null): void {
    if (choice === null) delete this.state.answers[key];
    else this.state.answers[key] = choice;
    this.save();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private save(): void {
    try {
      storage()?.setItem(this.key, JSON.stringify(this.state));
    } catch {
      // Full or blocked: remembered for this visit only.
    }
    this.emit();
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}

/** The page's one store. */
export const predictions = new PredictionStore();

let uid = 0;

/**
 * One question before one or more figures. update() with the current question (its right answer
 * may change with the numbers), or null when it does not apply (the figures are then shown).
 */
export class Prediction {
  readonly element: HTMLElement;
  private readonly questionText: HTMLElement;
  private readonly choices: HTMLElement;
  private readonly verdict: HTMLElement;
  private readonly actions: HTMLElement;
  private current: PredictQuestion | null = null;
  private wasCovered = false;
  /** What was last drawn: nothing is rebuilt (and focus is not lost) when it has not changed. */
  private drawn = '';

  constructor(
    private readonly covers: HTMLElement[],
    private readonly store: PredictionStore = predictions,
  ) {
    const id = `predict-${++uid}`;
    // Marked for good, covered or not: the walkthrough looks for a figure menu outside every prediction.
    for (const target of covers) target.classList.add('predict-target');
    this.questionText = el('p', { class: 'predict-question', id: `${id}-q` });
    this.choices = el('div', { class: 'predict-choices' });
    // Not a live region (it would repeat itself whenever the numbers change): focus moves here after an answer.
    this.verdict = el('p', { class: 'predict-verdict', tabindex: -1 });
    this.actions = el('div', { class: 'predict-actions' });
    this.element = el(
      'div',
      { class: 'predict', role: 'group', 'aria-labelledby': `${id}-q`, hidden: true },
      el('p', { class: 'predict-kicker', 'aria-hidden': 'true' }, 'Predict first'),
      this.questionText,
      this.choices,
      this.verdict,
      this.actions,
    );
    store.subscribe(() => this.draw());
  }

  update(question: PredictQuestion | null): void {
    this.current = question;
    this.draw();
  }

  /** True while the figures are covered (tests, and the step's own logic). */
  get covered(): boolean {
    return this.wasCovered;
  }

  private cover(on: boolean): void {
    for (const target of this.covers) {
      target.classList.toggle('predict-cover', on);
      target.toggleAttribute('inert', on);
      if (on) target.setAttribute('aria-hidden', 'true');
      else target.removeAttribute('aria-hidden');
      if (!on && this.wasCovered) target.classList.add('predict-revealed');
    }
    this.wasCovered = on;
  }

  private draw(): void {
    const q = this.current;
    if (!q || !this.store.enabled) {
      this.drawn = '';
      this.element.hidden = true;
      this.cover(false);
      return;
    }
    const answer = this.store.answerOf(q.key);
    const answered = answer !== undefined;
    // Before the reader answers, the answer and its explanation are not on screen: a settings change
    // that moves only them (the weights behind the right answer) redraws nothing.
    const signature = JSON.stringify(answered ? [q, answer] : [q.key, q.question, q.choices]);
    if (signature === this.drawn) return;
    this.drawn = signature;
    this.element.hidden = false;
    this.element.classList.toggle('answered', answered);
    setText(this.questionText, q.question);
    const label = (id: string) => q.choices.find((c) => c.id === id)?.label ?? id;
    replaceChildren(
      this.choices,
      ...q.choices.map((choice) => {
        const button = el(
          'button',
          {
            type: 'button',
            class: `predict-choice${answered && choice.id === q.correct ? ' predict-answer' : ''}`,
            'aria-pressed': answered ? String(choice.id === answer) : null,
            'aria-disabled': answered ? 'true' : null,
            'data-choice': choice.id,
          },
          choice.label,
        );
        // The verdict is drawn from the question as it is when the reader answers (this.current).
        button.addEventListener('click', () => {
          if (this.store.answerOf(q.key) !== undefined) return;
          this.store.answer(q.key, choice.id);
          this.verdict.focus();
        });
        return button;
      }),
    );
    if (!answered) {
      setText(this.verdict, '');
      const skip = el('button', { type: 'button', class: 'predict-link predict-skip' }, 'Skip: just show me');
      skip.addEventListener('click', () => {
        this.store.answer(q.key, SKIPPED);
        this.verdict.focus();
      });
      const off = el('button', { type: 'button', class: 'predict-link predict-off' }, 'Show everything (turn predictions off)');
      off.addEventListener('click', () => this.store.setEnabled(false));
      replaceChildren(this.actions, skip, off);
      this.cover(true);
      return;
    }
    const lead =
      answer === SKIPPED
        ? el('strong', {}, `The answer: ${label(q.correct)}. `)
        : answer === q.correct
          ? el('strong', {}, `Right: ${label(q.correct)}. `)
          : el('strong', {}, `Not quite: you said ${label(answer)}; the answer is ${label(q.correct)}. `);
    replaceChildren(this.verdict, lead, q.explanation);
    const again = el('button', { type: 'button', class: 'predict-link predict-again' }, 'Ask me again');
    again.addEventListener('click', () => {
      this.store.answer(q.key, null);
      (this.choices.firstElementChild as HTMLElement | null)?.focus();
    });
    replaceChildren(this.actions, again);
    this.cover(false);
  }
}

/** "Ask me to predict before some figures" as a checkbox (step 1's how-to), bound to the store. */
export function predictionToggle(store: PredictionStore = predictions): HTMLElement {
  const box = el('input', { type: 'checkbox', class: 'predict-toggle-input' });
  const sync = () => {
    box.checked = store.enabled;
  };
  box.addEventListener('change', () => store.setEnabled(box.checked));
  store.subscribe(sync);
  sync();
  return controlForm(
    {},
    el('label', { class: 'predict-toggle' }, box, 'Ask me to predict before some figures show their answer (remembered on this device)'),
  );
}
