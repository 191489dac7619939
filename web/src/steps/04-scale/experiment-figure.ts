// Step 4's variance experiment: random dot products at this dₖ before and after dividing by √dₖ, as a
// histogram, and their standard deviations in a table (beside another dₖ, the article's 64 too).
// Random vectors, not a model's numbers: the figure depends on dₖ and the seed only.
import { columnHeads } from '../../ui/data-table';
import { el, showChildren } from '../../ui/dom';
import { count, fmt } from '../../ui/format';
import { chartTools } from '../../ui/export-toolbar';
import { Histogram } from '../../ui/histogram';
import { scrollRegion } from '../../ui/scroll-region';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import type { Figure } from '../shared/figure';

export class ExperimentFigure implements Figure {
  readonly element: HTMLElement;
  private readonly histogram = new Histogram({
    title: 'Random dot products before and after dividing by √dₖ',
    xLabel: 'value of the dot product',
    className: 'scale-histogram',
  });
  private readonly statsBody = el('tbody');

  constructor(embed: EmbedCode | undefined) {
    const statsTable = el(
      'table',
      { class: 'data-table scale-stats' },
      el('caption', {}, 'Standard deviation of the dot products'),
      columnHeads(['dot products', 'measured', 'expected']),
      this.statsBody,
    );
    this.element = el(
      'figure',
      { class: 'figure scale-experiment' },
      this.histogram.element,
      chartTools(this.histogram, 'Random dot products before and after dividing by the square root of dₖ', embed),
      scrollRegion({ label: 'Standard deviation of the dot products' }, statsTable),
    );
  }

  render({ dots, articleDots: article }: Snapshot): void {
    const dK = dots.dK;
    const root = fmt(Math.sqrt(dK));
    const spread = Math.max(dots.rawStd, dots.scaledStd, 1);
    const limit = Math.max(4, Math.ceil(4 * spread));
    this.histogram.update(
      [
        {
          label: `q · k: standard deviation ${fmt(dots.rawStd)}`,
          values: dots.raw,
          className: 'series-b',
          markers: [
            { at: -dots.rawStd, label: '−σ' },
            { at: dots.rawStd, label: '+σ' },
          ],
        },
        {
          label: `q · k / √${dK}: standard deviation ${fmt(dots.scaledStd)}`,
          values: dots.scaled,
          className: 'series-a',
          markers: [
            { at: -dots.scaledStd, label: '−σ' },
            { at: dots.scaledStd, label: '+σ' },
          ],
        },
      ],
      [-limit, limit],
      `Histogram of ${count(dots.raw.length)} random dot products with dₖ = ${dK}. Before scaling their standard deviation is ${fmt(dots.rawStd)}, close to √${dK} = ${root}; ` +
        `after dividing by ${root} it is ${fmt(dots.scaledStd)}, close to 1.`,
    );
    // The current dₖ's rows, then (beside the example's dₖ 4, or any other) the article's dₖ 64: its std ≈ 8 -> ≈ 1.
    const rowsFor = (samples: Snapshot['dots'], current: boolean) => {
      const d = samples.dK;
      const note = current ? '' : ' (the article’s)';
      return [
        el(
          'tr',
          { class: current ? null : 'scale-article-dk' },
          el('th', { scope: 'row' }, `q · k, dₖ = ${d}${note}`),
          el('td', { class: 'stat scale-raw-std' }, fmt(samples.rawStd)),
          el('td', { class: 'stat' }, `√${d} = ${fmt(Math.sqrt(d))}`),
        ),
        el(
          'tr',
          { class: current ? null : 'scale-article-dk' },
          el('th', { scope: 'row' }, `q · k / √${d}`),
          el('td', { class: 'stat scale-scaled-std' }, fmt(samples.scaledStd)),
          el('td', { class: 'stat' }, '1'),
        ),
      ];
    };
    showChildren(this.statsBody, ...rowsFor(dots, true), ...(article ? rowsFor(article, false) : []));
  }
}
