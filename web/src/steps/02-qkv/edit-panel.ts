// Step 2's edit panel: how to edit, what is edited and what it moved, Undo; or, when the example is
// too large to edit, the way to a small one.
import { el, replaceChildren, setText } from '../../ui/dom';
import { editsAllowed, parseEdits } from '../../features/hands-on/hands-on-settings';
import type { PipelineSnapshot } from '../../engine/types';
import type { Snapshot } from '../../snapshot';
import type { StepContext } from '../types';
import type { Figure } from '../shared/figure';
import type { EditSession } from './edits';
import { editedText, editHelp, editLine, noEdits, tooLargeToEdit } from './prose';

/** How many edits the list names before counting the rest. */
const LISTED = 8;

/** How many of the shown head's weights and of the output moved since the edits. */
function countMoved(p: PipelineSnapshot, seeded: PipelineSnapshot, h: number): { weights: number; output: number } {
  let weights = 0;
  let output = 0;
  for (let i = 0; i < p.n * p.n; i++)
    if (Math.abs(p.weights.data[h * p.n * p.n + i] - seeded.weights.data[h * p.n * p.n + i]) >= 5e-4) weights++;
  for (let i = 0; i < p.output.data.length; i++) if (Math.abs(p.output.data[i] - seeded.output.data[i]) >= 5e-4) output++;
  return { weights, output };
}

export class EditPanel implements Figure {
  readonly element: HTMLElement;
  private readonly help = editHelp();
  private readonly status = el('p', { class: 'qkv-edit-status', 'aria-live': 'polite' });
  private readonly list = el('ul', { class: 'qkv-edit-list' });
  private readonly resetButton = el('button', { type: 'button', class: 'hands-button qkv-reset' }, 'Undo every edit');
  private readonly smallButton = el(
    'button',
    { type: 'button', class: 'hands-button primary qkv-small' },
    'Use the article’s four-token example',
  );

  constructor(session: EditSession, context: Pick<StepContext, 'update'>) {
    this.resetButton.addEventListener('click', () => session.reset());
    this.smallButton.addEventListener('click', () => context.update({ weights: 'example' }));
    this.element = el(
      'div',
      { class: 'qkv-edit', role: 'group', 'aria-label': 'Edit the numbers' },
      el('p', { class: 'qkv-edit-title' }, 'Work it by hand: edit the numbers'),
      this.help,
      el('div', { class: 'qkv-edit-bar' }, this.status, this.resetButton, this.smallButton),
      this.list,
    );
  }

  /** Whether the snapshot's matrices can be edited at all. */
  static allows({ pipeline: p }: Snapshot): boolean {
    return editsAllowed(p.n, p.dModel);
  }

  render(snapshot: Snapshot): void {
    const { pipeline: p, settings, tokens } = snapshot;
    const allowed = EditPanel.allows(snapshot);
    this.help.hidden = !allowed;
    this.smallButton.hidden = allowed;
    const edits = parseEdits(settings.edits).edits;
    this.resetButton.disabled = edits.length === 0;
    this.resetButton.hidden = !allowed && edits.length === 0;
    if (!allowed) {
      setText(this.status, tooLargeToEdit(snapshot));
      this.list.replaceChildren();
      return;
    }
    if (edits.length === 0) {
      setText(this.status, noEdits(snapshot));
      this.list.replaceChildren();
      return;
    }
    const seeded = snapshot.baseline ?? p;
    setText(this.status, editedText(edits.length, p, countMoved(p, seeded, settings.head)));
    const shown = edits.slice(0, LISTED);
    replaceChildren(
      this.list,
      ...shown.map((e) => el('li', {}, editLine(e, seeded, tokens))),
      edits.length > shown.length ? el('li', {}, `and ${edits.length - shown.length} more`) : null,
    );
  }
}
