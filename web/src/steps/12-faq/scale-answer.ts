// The FAQ's first answer, why divide by √dₖ: the spread of dot products at this dₖ, softmax of
// [1, 2, 3] at a spread of 1 and at the unscaled spread, and the gradient left in each. Random
// vectors and a fixed row, not a model's numbers.
import type { Bar } from '../../ui/bars';
import { el, setText } from '../../ui/dom';
import { count, fmt } from '../../ui/format';
import type { Snapshot } from '../../snapshot';
import { probabilityBars } from '../shared/probability-bars';
import { widerHeadAdvice } from '../shared/which-model';
import { question } from './prose';

export class ScaleAnswer {
  readonly element: HTMLDetailsElement;
  private readonly spread = el('p', { class: 'faq-live faq-spread' });
  private readonly soft = probabilityBars('softmax([1, 2, 3])');
  private readonly sharp = probabilityBars('sharp');
  private readonly gradient = el('p', { class: 'faq-live faq-gradient' });

  constructor() {
    this.element = question(
      'Why divide by the square root of dₖ?',
      el(
        'p',
        {},
        'Dot products of dₖ terms spread like √dₖ, making softmax nearly one-hot with almost no gradient; dividing restores a spread of 1.',
      ),
      this.spread,
      el(
        'div',
        { class: 'figure-row faq-bars' },
        el('figure', { class: 'figure' }, this.soft.element),
        el('figure', { class: 'figure' }, this.sharp.element),
      ),
      this.gradient,
    );
  }

  render(s: Snapshot): void {
    const { dots, saturation } = s;
    setText(
      this.spread,
      `Here dₖ = ${dots.dK}: ${count(dots.raw.length)} dot products spread ${fmt(dots.rawStd)} (√${dots.dK} = ${fmt(Math.sqrt(dots.dK))}); divided, ${fmt(dots.scaledStd)}.` +
        // Beside the article's example (dₖ 4) the bars stretch by the article's own √64 (compute.ts).
        (saturation.dK === dots.dK ? '' : ` The bars below use the article’s dₖ = ${saturation.dK}.`),
    );
    const probs = (values: Float32Array): Bar[] => {
      const top = values.reduce((best, v, i) => (v > values[best] ? i : best), 0);
      return Array.from(values, (v, i) => ({ label: `score ${fmt(saturation.row[i], 0)}`, value: v, text: fmt(v), emphasis: i === top }));
    };
    this.soft.update(probs(saturation.soft.probabilities), 'softmax([1, 2, 3]): a spread of about 1');
    this.sharp.update(
      probs(saturation.sharp.probabilities),
      `softmax([1, 2, 3] × √${saturation.dK} = ${fmt(saturation.factor)}): the spread unscaled dₖ = ${saturation.dK} scores have`,
    );
    setText(
      this.gradient,
      saturation.factor === 1
        ? `At dₖ = 1, √dₖ is 1 and scaling changes nothing. Pick ${widerHeadAdvice(s)} to see the difference.`
        : `Gradient left: ${fmt(saturation.soft.jacobianNorm, 3)} for [1, 2, 3], ` +
            `${fmt(saturation.sharp.jacobianNorm, 3)} for [1, 2, 3] × ${fmt(saturation.factor)}.`,
    );
  }
}
