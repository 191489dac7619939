// Step 8's maps: the trained model's reading of its heads (when it is shown), every head's attention
// map in a grid (picking one shows that head in the steps above), and the same maps in words: each
// token's strongest key per head. Its parts sit directly in the step's body, under the line naming
// their numbers.
import { columnHeads } from '../../ui/data-table';
import { el, setText, showChildren } from '../../ui/dom';
import { percent } from '../../ui/format';
import { figureTools } from '../../ui/export-toolbar';
import { HeadGrid } from '../../ui/head-grid';
import { tokenLabels } from '../../ui/labels';
import { scrollRegion } from '../../ui/scroll-region';
import { TrainedHeads } from '../../features/trained-model/trained-heads';
import { whoIsIt, type Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { modelLine } from '../shared/figure';
import { argmax, headRow } from '../shared/head-view';
import { gridNoteText, headMapDescription, MAX_HEAD_MAPS } from './prose';

/** The key each query token weights most in one head. */
export function topKey(weights: Float32Array, head: number, n: number, row: number): number {
  return argmax(headRow(weights, n, head, row));
}

export class HeadMapsFigure {
  /** The line, the trained model's heads, the grid, its menu, its note and the maps in words. */
  readonly parts: HTMLElement[];
  private readonly line = modelLine();
  private readonly trainedHeads: TrainedHeads;
  private readonly grid: HeadGrid;
  private readonly note = el('p', { class: 'multi-head-grid-note' });
  private readonly topTable = el('table', { class: 'data-table multi-head-top' });

  /**
   * @param pick  the reader picked head `head`'s map
   * @param beside  the maps show the sentence beside the article's example (picking one moves the steps above to it)
   */
  constructor(
    embed: EmbedCode | undefined,
    pick: (head: number) => void,
    private readonly beside: () => boolean,
  ) {
    this.trainedHeads = new TrainedHeads(embed);
    this.grid = new HeadGrid(pick, 'Attention maps, one per head');
    const grid = this.grid;
    const tools = figureTools(
      () => grid.element,
      () => 'Attention maps, one per head',
      (palette) => grid.svgFile('Attention maps, one per head: rows are query tokens, columns are key tokens', palette),
      embed,
    );
    const details = el(
      'details',
      { class: 'multi-head-top-details' },
      el('summary', {}, 'The same maps in words'),
      scrollRegion({ label: 'Each head’s strongest key per token', className: 'matrix-scroll' }, this.topTable),
    );
    this.parts = [this.line.element, this.trainedHeads.element, grid.element, tools, this.note, details];
  }

  /** In pieces (steps/shared/pieces.ts): the trained model's heads (a piece per map), then the maps and their words. */
  *render(s: Snapshot): Generator<void, void> {
    this.line.render(s);
    yield* this.trainedHeads.render(whoIsIt(s.trained), s.tokens);
    yield;
    const p = s.pipeline;
    const n = p.n;
    const shown = Math.min(p.heads, MAX_HEAD_MAPS);
    const beside = this.beside();
    const maps = Array.from({ length: shown }, (_, head) => {
      let best = 0;
      let bestValue = -1;
      for (let i = 0; i < n * n; i++)
        if (p.weights.data[head * n * n + i] > bestValue) {
          bestValue = p.weights.data[head * n * n + i];
          best = i;
        }
      return {
        data: p.weights.data.subarray(head * n * n, (head + 1) * n * n),
        n,
        caption: `Head ${head + 1}`,
        description: headMapDescription(s, head, Math.floor(best / n), best % n, bestValue, beside),
      };
    });
    const labels = tokenLabels(s.tokens);
    this.grid.update(maps, s.settings.head, labels);
    setText(this.note, gridNoteText(s));
    showChildren(
      this.topTable,
      el(
        'caption',
        {},
        `For each token, the key with the largest weight in each head${p.heads > MAX_HEAD_MAPS ? ` (first ${MAX_HEAD_MAPS} heads)` : ''}`,
      ),
      columnHeads(['token', ...Array.from({ length: shown }, (_, head) => `head ${head + 1}`)]),
      el(
        'tbody',
        {},
        ...labels.map((label, row) =>
          el(
            'tr',
            {},
            el('th', { scope: 'row' }, label),
            ...Array.from({ length: shown }, (_, head) => {
              const key = topKey(p.weights.data, head, n, row);
              return el(
                'td',
                {},
                `${labels[key]} `,
                el('span', { class: 'multi-head-top-weight' }, percent(p.weights.data[(head * n + row) * n + key])),
              );
            }),
          ),
        ),
      ),
    );
  }
}
