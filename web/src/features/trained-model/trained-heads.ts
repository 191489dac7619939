// The trained model's heads (step 8, weights=trained): one labelled attention map per layer and head
// (rows read from columns, token labels on both axes, the weights as numbers), after one table of what
// each head does, measured: its mean weight from "it" on the referent, the other noun, the adjective
// and itself over the held-out sentences. A layer that reads both nouns alike is named.
import type { TrainedSnapshot } from './trained';
import { el, setText, showChildren } from '../../ui/dom';
import type { EmbedCode } from '../../ui/export-toolbar';
import { fmt, percent, quoted } from '../../ui/format';
import { tokenLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import { scrollRegion } from '../../ui/scroll-region';
import { headName, shareOf, shortcutLayers } from './trained-words';

export class TrainedHeads {
  readonly element: HTMLElement;
  private readonly summary = el('p', { class: 'trained-heads-summary' });
  private readonly shortcut = el('p', { class: 'trained-heads-shortcut' });
  private readonly grid = el('div', { class: 'trained-heads-grid' });
  private readonly table = el('table', { class: 'data-table trained-heads-shares' });
  private tables: MatrixTable[] = [];
  private shape = '';

  /** `embed`: the step's embed code, offered in every map's menu. */
  constructor(private readonly embed?: EmbedCode) {
    this.element = el(
      'div',
      { class: 'trained-heads', hidden: true },
      el('h3', {}, 'The trained model’s heads'),
      this.summary,
      scrollRegion({ label: 'What each trained head reads from “it”, on average', className: 'matrix-scroll' }, this.table),
      this.shortcut,
      this.grid,
    );
  }

  /**
   * In pieces (steps/shared/pieces.ts): the shares, then one head's map per piece. Drawn off screen in
   * one piece, the maps' making and first layout were a task of 100–150 ms on a phone's CPU
   * (tests/bench/README.md, the thirteenth pass). The maps are made anew for a new shape; a drawing
   * stopped before its last map leaves the shape unrecorded, so the next drawing makes them all again.
   */
  *render(trained: TrainedSnapshot | null, tokens: readonly string[]): Generator<void, void> {
    this.element.hidden = trained === null;
    if (!trained) return;
    const { layers, heads } = trained.model;
    const n = trained.words.length;
    const labels = tokenLabels(tokens.slice(0, n));
    const best = trained.resolving;
    const bestShare = shareOf(trained, best);
    setText(
      this.summary,
      `Over ${trained.evaluation.examples} held-out sentences, ${headName(best)} puts ${fmt(bestShare.referent)} of the weight from “it” on its noun ` +
        `and ${fmt(bestShare.otherNoun)} on the other: it resolves “it”, and step 1 shows it.`,
    );

    const columns = ['referent', 'other noun', 'adjective', 'itself'];
    showChildren(
      this.table,
      el('caption', {}, 'Mean weight from “it”, held-out sentences'),
      el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'head'), ...columns.map((c) => el('th', { scope: 'col' }, c)))),
      el(
        'tbody',
        {},
        ...trained.shares.map((s) =>
          el(
            'tr',
            { class: s.layer === best.layer && s.head === best.head ? 'trained-heads-best' : null },
            el('th', { scope: 'row' }, headName(s)),
            ...[s.referent, s.otherNoun, s.adjective, s.self].map((v) => el('td', { class: 'num' }, fmt(v))),
          ),
        ),
      ),
    );

    const shortcuts = shortcutLayers(trained);
    setText(
      this.shortcut,
      shortcuts
        .map(
          (s) =>
            `Layer ${s.layer + 1} takes a shortcut, on average ${fmt(s.referent)} on the referent and ${fmt(s.otherNoun)} on the other noun: it gathers both.` +
            (s.layer < layers - 1 ? ` Layer ${s.layer + 2} chooses, using the adjective.` : ''),
        )
        .join(' '),
    );
    this.shortcut.hidden = shortcuts.length === 0;

    const shape = `${layers}×${heads}×${n}`;
    const made = shape === this.shape;
    if (!made) {
      this.shape = '';
      this.tables = [];
      this.grid.replaceChildren();
    }
    for (let layer = 0; layer < layers; layer++)
      for (let head = 0; head < heads; head++) {
        yield;
        const index = layer * heads + head;
        if (!made) {
          const table = new MatrixTable({
            caption: headName({ layer, head }),
            scale: 'sequential',
            corner: 'reads ↓ from →',
            digits: 2,
            describe: (r, c, v) =>
              `${headName({ layer, head })}: ${quoted(labels[r] ?? '')} takes ${percent(v)} from ${quoted(labels[c] ?? '')}`,
            className: 'trained-head-map',
            legend: 'more weight',
            embed: this.embed,
          });
          this.tables.push(table);
          this.grid.append(el('figure', { class: 'figure trained-head' }, table.element));
        }
        const data = trained.attention[layer].data.subarray(head * n * n, (head + 1) * n * n);
        const resolves = layer === best.layer && head === best.head ? ' — resolves “it”' : '';
        this.tables[index].update(
          { data, rows: n, cols: n, rowLabels: labels, colLabels: labels, extent: 1, showNumbers: true },
          `${headName({ layer, head })}${resolves}: row i is what word i reads`,
        );
      }
    this.shape = shape;
  }
}
