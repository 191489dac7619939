// Step 8's control for h: one button per head count that divides d_model (the trained model's h
// alone when it is shown), and a note on what h gives dₖ.
import { el, replaceChildren, setText } from '../../ui/dom';
import { headChoices } from '../../settings';
import type { Snapshot } from '../../snapshot';
import type { StepContext } from '../types';
import { choicesText, fixedHeadsTitle } from './prose';

export class HeadChoices {
  /** The buttons, and the note under them: two siblings in the step's body. */
  readonly choices = el('div', { class: 'multi-head-choices', role: 'group', 'aria-label': 'Number of heads h' });
  readonly note = el('p', { class: 'multi-head-choices-note', 'aria-live': 'polite' });
  /** The buttons' shape (d_model, how many, trained): they are made again only when it changes. */
  private key = '';

  constructor(private readonly context: Pick<StepContext, 'update'>) {}

  render({ pipeline: p, trained }: Snapshot): void {
    const { dModel, n, heads: current } = p;
    const isTrained = trained !== null;
    const options = headChoices(dModel, n);
    const key = `${dModel}/${options.length}/${isTrained}`;
    if (key !== this.key) {
      this.key = key;
      replaceChildren(
        this.choices,
        el('span', { class: 'multi-head-choices-label', 'aria-hidden': 'true' }, 'h ='),
        ...options.map((h) => {
          // The trained model's h is fixed by its weights: the other counts are for random weights.
          const button = el(
            'button',
            {
              type: 'button',
              class: 'multi-head-choice',
              'data-heads': h,
              'aria-label': `${h} head${h === 1 ? '' : 's'} of dₖ = ${dModel / h}`,
              disabled: isTrained && h !== current,
              title: isTrained && h !== current ? fixedHeadsTitle(current) : null,
            },
            String(h),
          );
          button.addEventListener('click', () => this.context.update({ heads: h }));
          return button;
        }),
      );
    }
    this.choices
      .querySelectorAll<HTMLButtonElement>('button')
      .forEach((button) => button.setAttribute('aria-pressed', String(Number(button.dataset.heads) === current)));
    setText(this.note, choicesText(dModel, n, current, isTrained));
  }
}
