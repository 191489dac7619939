// The FAQ's words: each question and its short answer, and the helpers its answers share (links: ../shared/prose).
import { el } from '../../ui/dom';
import { quoted } from '../../ui/format';
import type { Snapshot } from '../../snapshot';

/** One question, open, with its answer. */
export function question(title: string, ...children: (Node | string)[]): HTMLDetailsElement {
  return el('details', { class: 'faq-item', open: true }, el('summary', {}, el('h3', { class: 'faq-question' }, title)), ...children);
}

/** What the answers need of the followed token: its index, its quoted word, the head they read. */
export interface Followed {
  t: number;
  who: string;
  /** "head 2 of 4", or "the only head". */
  headNote: string;
}

export function followed({ pipeline: p, tokens, settings }: Snapshot, focus: number): Followed {
  const t = Math.max(0, Math.min(p.n - 1, focus));
  return { t, who: quoted(tokens[t]), headNote: p.heads > 1 ? `head ${settings.head + 1} of ${p.heads}` : 'the only head' };
}
