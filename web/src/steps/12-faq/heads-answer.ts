// The FAQ's third answer, why several heads: where the followed token looks most in each head.
import { columnHeads } from '../../ui/data-table';
import { el, setText, showChildren } from '../../ui/dom';
import { percent, quoted } from '../../ui/format';
import { tokenLabels } from '../../ui/labels';
import { scrollRegion } from '../../ui/scroll-region';
import { whoIsIt, type Snapshot } from '../../snapshot';
import { modelLine } from '../shared/figure';
import { argmax, headRow } from '../shared/head-view';
import { link } from '../shared/prose';
import { followed, question } from './prose';

export class HeadsAnswer {
  readonly element: HTMLDetailsElement;
  private readonly line = modelLine();
  private readonly table = el('table', { class: 'data-table faq-heads' });
  private readonly reading = el('p', { class: 'faq-live faq-heads-reading' });

  constructor() {
    this.element = question(
      'Why multiple attention heads?',
      el(
        'p',
        {},
        'Each head, one slice of d_model, follows its own relationship at no extra cost (',
        link('#multi-head', 'step 8'),
        ' counts it).',
      ),
      this.line.element,
      scrollRegion({ label: 'Where each head sends the chosen token', className: 'matrix-scroll' }, this.table),
      this.reading,
    );
  }

  render(s: Snapshot, focus: number): void {
    this.line.render(s);
    const { pipeline: p, tokens, settings } = s;
    const { t, who } = followed(s, focus);
    const n = p.n;
    const labels = tokenLabels(tokens);
    const tops = Array.from({ length: p.heads }, (_, head) => {
      const row = headRow(p.weights.data, n, head, t);
      const best = argmax(row);
      return { head, key: best, weight: row[best] };
    });
    showChildren(
      this.table,
      el('caption', {}, `Where ${who} looks most, in each head`),
      columnHeads(['head', 'strongest key', 'its weight']),
      el(
        'tbody',
        {},
        ...tops.map((top) =>
          el(
            'tr',
            { class: top.head === settings.head ? 'faq-current' : null },
            el('th', { scope: 'row' }, `head ${top.head + 1}`),
            el('td', {}, labels[top.key]),
            el('td', { class: 'num' }, percent(top.weight)),
          ),
        ),
      ),
    );
    const distinct = new Set(tops.map((top) => top.key)).size;
    setText(
      this.reading,
      p.heads === 1
        ? `With one head there is one answer: ${who} looks most at ${quoted(tokens[tops[0].key])}.`
        : `Across ${p.heads} heads, ${who} looks most at ${distinct} different token${distinct === 1 ? '' : 's'}` +
            // Only what the reader can change here: the seed means nothing to the trained model.
            `${distinct === 1 ? ` (these heads agree here; try another token${settings.weights === 'random' ? ' or seed' : ''})` : ''}. ` +
            (settings.weights === 'random'
              ? 'These weights are random, not trained; in trained models such differences become specialised heads.'
              : `These are the trained model’s heads in layer ${(whoIsIt(s.trained)?.resolving.layer ?? 0) + 1}: training decided what each one follows.`),
    );
  }
}
