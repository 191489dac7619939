// Step 4's saturation demo: softmax of the article's row [1, 2, 3], and of the same row stretched by
// √dₖ, side by side, with the gradient that still flows under each. Fixed scores, not a model's.
import { el } from '../../ui/dom';
import { fmt } from '../../ui/format';
import { chartTools } from '../../ui/export-toolbar';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import type { Figure } from '../shared/figure';
import { probabilityBars } from '../shared/probability-bars';
import { num, rowText } from './prose';

export class SaturationFigure implements Figure {
  readonly element: HTMLElement;
  private readonly softBars = probabilityBars('', 'scale-soft');
  private readonly sharpBars = probabilityBars('', 'scale-sharp');
  private readonly softNorm = el('figcaption', { class: 'scale-gradient' });
  private readonly sharpNorm = el('figcaption', { class: 'scale-gradient' });

  constructor(embed: EmbedCode | undefined) {
    const { softBars, sharpBars } = this;
    this.element = el(
      'div',
      { class: 'figure-row scale-saturation' },
      el('figure', { class: 'figure' }, softBars.element, this.softNorm, chartTools(softBars, 'Softmax of 1, 2, 3', embed)),
      el(
        'figure',
        { class: 'figure' },
        sharpBars.element,
        this.sharpNorm,
        chartTools(sharpBars, 'Softmax of 1, 2, 3 stretched by the square root of dₖ', embed),
      ),
    );
  }

  render({ saturation }: Snapshot): void {
    // The dₖ the stretch stands for: the pipeline's, or the article's 64 beside its four-token example.
    const { row, soft, sharp, factor, dK } = saturation;
    const stretched = Array.from(row, (v) => v * factor);
    this.softBars.update(
      Array.from(soft.probabilities, (v, i) => ({ label: num(row[i]), value: v, emphasis: i === row.length - 1 })),
      `softmax(${rowText(row)})`,
    );
    this.sharpBars.update(
      Array.from(sharp.probabilities, (v, i) => ({ label: num(stretched[i]), value: v, emphasis: i === row.length - 1 })),
      `softmax(${rowText(row)} × √${dK}) = softmax(${rowText(stretched)})`,
    );
    this.softNorm.replaceChildren('Gradient that still flows: ', el('span', { class: 'stat scale-soft-norm' }, fmt(soft.jacobianNorm, 3)));
    this.sharpNorm.replaceChildren(
      'Gradient that still flows: ',
      el('span', { class: 'stat scale-sharp-norm' }, fmt(sharp.jacobianNorm, 3)),
    );
  }
}
