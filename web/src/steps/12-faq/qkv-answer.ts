// The FAQ's second answer, query, key and value: the followed token's q, k and v rows in the shown
// head, and whose key it matches against whose value it takes.
import { el, setText } from '../../ui/dom';
import { fmt, quoted } from '../../ui/format';
import { dimensionLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import { LIMITS } from '../../settings';
import type { Snapshot } from '../../snapshot';
import type { EmbedCode } from '../types';
import { modelLine } from '../shared/figure';
import { argmax, headRow } from '../shared/head-view';
import { followed, question } from './prose';

/** How many entries of a vector the reading prints before "…". */
const PRINTED = 6;

export class QkvAnswer {
  readonly element: HTMLDetailsElement;
  private readonly line = modelLine();
  private readonly table: MatrixTable;
  private readonly reading = el('p', { class: 'faq-live faq-qkv-reading' });

  constructor(embed: EmbedCode | undefined) {
    this.table = new MatrixTable({ embed, caption: 'q, k, v', scale: 'diverging', corner: 'row' });
    this.element = question(
      'What is the difference between query, key and value?',
      el('p', {}, 'Looking, offering and handing over are separate jobs: a word can match one question and pass on something else.'),
      el('figure', { class: 'figure' }, this.line.element, this.table.element),
      this.reading,
    );
  }

  render(s: Snapshot, focus: number): void {
    this.line.render(s);
    const { pipeline: p, tokens, settings } = s;
    const { t, who, headNote } = followed(s, focus);
    const { n, dK } = p;
    const h = settings.head;
    const rows = new Float32Array(3 * dK);
    const at = (tensor: Float32Array) => tensor.subarray((h * n + t) * dK, (h * n + t + 1) * dK);
    rows.set(at(p.Q_heads.data), 0);
    rows.set(at(p.K_heads.data), dK);
    rows.set(at(p.V_heads.data), 2 * dK);
    this.table.update(
      {
        data: rows,
        rows: 3,
        cols: dK,
        rowLabels: ['q (query)', 'k (key)', 'v (value)'],
        colLabels: dimensionLabels(dK),
        showNumbers: dK <= LIMITS.maxTokensWithNumbers,
      },
      `q, k and v of ${who}, ${headNote}, dₖ = ${dK}`,
    );
    const scoreRow = headRow(p.scores.data, n, h, t);
    const match = argmax(scoreRow);
    const vector = (tensor: Float32Array, token: number) => {
      const values = Array.from(tensor.subarray((h * n + token) * dK, (h * n + token) * dK + Math.min(dK, PRINTED)), (v) => fmt(v));
      return `[${values.join(', ')}${dK > PRINTED ? ', …' : ''}]`;
    };
    setText(
      this.reading,
      `${who} matches the key of ${quoted(tokens[match])} best (${fmt(scoreRow[match])}) but takes its value, v = ${vector(p.V_heads.data, match)}, not its key.`,
    );
  }
}
