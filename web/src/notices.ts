// The notice area: what validation changed, or what went wrong, in words for the reader. On the main
// page it hangs below the sticky settings bar (walkthrough.css), so a notice is in view wherever the
// reader is; it lays over the page rather than pushing it down, so it never moves what they read.
import { el } from './ui/dom';

export interface NoticeArea {
  element: HTMLElement;
  /** Shows these messages (each once) in place of the ones shown; nothing to show leaves them. */
  show(messages: readonly string[]): void;
  /**
   * The notices of a settings change: they replace the ones shown, and a change with none clears
   * them, since they described settings no longer in force (two notices about two different states
   * would contradict each other).
   */
  settle(messages: readonly string[]): void;
}

/** Each message once, in first-seen order (several checks may explain the same fix). */
export function uniqueMessages(messages: readonly string[]): string[] {
  return [...new Set(messages)];
}

/**
 * @param className  'notices' for the element's own area (one per element: tests and authors' CSS find it
 * by that class); a step with notices of its own (the training form) names its area differently.
 */
export function noticeArea(className = 'notices'): NoticeArea {
  const list = el('ul');
  const dismiss = el('button', { type: 'button', class: 'notice-dismiss' }, 'Dismiss');
  const element = el(
    'div',
    { class: `notice-area ${className}`, role: 'status', 'aria-live': 'polite', hidden: true, part: className },
    list,
    dismiss,
  );
  let shown: string[] = [];
  const hide = () => {
    element.hidden = true;
    shown = [];
  };
  dismiss.addEventListener('click', hide);
  element.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') hide();
  });
  const show = (messages: readonly string[]) => {
    const next = uniqueMessages(messages);
    if (next.length === 0) return;
    // The same notices again (each key typed in a sentence that is still too long): leave them, so a
    // screen reader does not announce them once per key.
    if (!element.hidden && next.length === shown.length && next.every((m, i) => m === shown[i])) return;
    shown = next;
    list.replaceChildren(...next.map((m) => el('li', {}, m)));
    element.hidden = false;
  };
  return {
    element,
    show,
    settle(messages) {
      if (messages.length === 0) {
        if (!element.hidden) hide();
      } else show(messages);
    },
  };
}
