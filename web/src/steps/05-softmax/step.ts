// Step 3 of the article: softmax turns each row of scaled scores into attention weights. The
// attention map of the shown head with each row's sum (map-figure.ts), a sentence reading the chosen
// row (prose.ts), and the chosen cell's softmax worked out by hand (by-hand.ts).
import { el, setText, showChildren } from '../../ui/dom';
import { focusTokenIndex } from '../../ui/labels';
import type { Snapshot } from '../../snapshot';
import type { StepDefinition } from '../types';
import { softmaxStepInfo } from './step-info';
import { workedExampleNote } from '../shared/worked-example';
import { softmaxByHand } from './by-hand';
import { MapFigure } from './map-figure';
import { argmax, headRow } from '../shared/head-view';
import { aside, emptyRowsText, intro, rowSentence } from './prose';

export const softmaxStep: StepDefinition = {
  ...softmaxStepInfo,
  mount(body, context) {
    const worked = workedExampleNote(context);
    let snapshot: Snapshot | null = null;
    let sentenceKey = '';

    const figure = new MapFigure(context.embedCode, () => showRow());
    const map = figure.map;
    const reading = el('p', { class: 'softmax-reading', 'aria-live': 'polite' });
    const emptyRows = el('p', { class: 'aside softmax-empty-note', hidden: true });
    const byHand = el('div', { class: 'by-hand-box softmax-by-hand', 'aria-live': 'polite' });

    body.append(worked.element, ...intro(), figure.element, reading, emptyRows, byHand, aside());

    function showRow(): void {
      if (!snapshot || !map.selection) return;
      const [row, col] = map.selection;
      setText(reading, rowSentence(snapshot, row));
      showChildren(byHand, ...softmaxByHand(snapshot, row, col));
    }

    return {
      render(next) {
        worked.update(next);
        snapshot = next;
        const { pipeline: p, tokens, settings } = next;
        figure.render(next);
        const empty = Array.from(p.fullyMaskedRows).flatMap((flag, r) => (flag ? [r] : []));
        emptyRows.hidden = empty.length === 0;
        setText(emptyRows, emptyRowsText(empty));

        const key = tokens.join('\u0001');
        if (key !== sentenceKey || !map.selection) {
          // A new sentence: start on the row the page follows (“it”), at its largest weight; on the
          // article's example, on row 1, the row the article reads (31 / 26 / 25 / 18 %).
          sentenceKey = key;
          const row = settings.weights === 'example' ? 0 : focusTokenIndex(tokens);
          map.select(row, argmax(headRow(p.weights.data, p.n, settings.head, row)));
        } else showRow();
      },
    };
  },
};
