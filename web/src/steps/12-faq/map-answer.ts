// The FAQ's fourth answer, attention maps: the followed token's row of the shown head's weights, as
// bars (the largest few and the rest, for long sentences).
import { BarChart, type Bar } from '../../ui/bars';
import { el, setText } from '../../ui/dom';
import { percent, quoted } from '../../ui/format';
import { tokenLabels } from '../../ui/labels';
import type { Snapshot } from '../../snapshot';
import { modelLine } from '../shared/figure';
import { argmax, headRow } from '../shared/head-view';
import { followed, question } from './prose';

/** Above this many tokens the weights row is shown as its largest entries plus the rest. */
export const BAR_ROW_MAX = 16;
export const BAR_ROW_TOP = 12;

export class MapAnswer {
  readonly element: HTMLDetailsElement;
  private readonly line = modelLine();
  private readonly bars = new BarChart({
    caption: 'weights',
    labelHeader: 'key token',
    valueHeader: 'weight',
    max: 1,
    className: 'faq-row-bars',
  });
  private readonly reading = el('p', { class: 'faq-live faq-row-reading' });

  constructor() {
    this.element = question(
      'Is attention the same as the attention maps I see visualised?',
      el('p', {}, 'Yes, the weights after the softmax: where information came from, not what was done with it.'),
      el('figure', { class: 'figure' }, this.line.element, this.bars.element),
      this.reading,
    );
  }

  render(s: Snapshot, focus: number): void {
    this.line.render(s);
    const { pipeline: p, tokens, settings } = s;
    const { t, who, headNote } = followed(s, focus);
    const n = p.n;
    const labels = tokenLabels(tokens);
    const weightsRow = headRow(p.weights.data, n, settings.head, t);
    const best = argmax(weightsRow);
    let items: Bar[] = Array.from(weightsRow, (w, j) => ({ label: labels[j], value: w, text: percent(w), emphasis: j === best }));
    let rest = '';
    if (n > BAR_ROW_MAX) {
      const sorted = [...items].sort((a, b) => b.value - a.value);
      const others = sorted.slice(BAR_ROW_TOP);
      items = sorted.slice(0, BAR_ROW_TOP);
      rest = ` The other ${others.length} tokens share the remaining ${percent(others.reduce((sum, item) => sum + item.value, 0))}.`;
    }
    this.bars.update(
      items,
      `Row ${t + 1} of the weights, ${headNote}: what ${who} draws from each token${n > BAR_ROW_MAX ? ` (largest ${BAR_ROW_TOP})` : ''}`,
    );
    const total = weightsRow.reduce((sum, w) => sum + w, 0);
    setText(
      this.reading,
      p.fullyMaskedRows[t]
        ? `Every key is blocked for ${who}, so its row is all zeros.`
        : `${who} draws its largest share, ${percent(weightsRow[best])}, from ${quoted(tokens[best])}; the whole row adds up to ${percent(total)}.${rest}`,
    );
  }
}
