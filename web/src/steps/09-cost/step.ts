// The cost, precisely: what the (n, n) score matrix (drawn once, in step 3) costs as n grows, computed
// for this page's d_model and h (not quoted): entries, float32 bytes, multiply-adds, and the ratios that
// make "double the context, four times the cost" and "2k -> 8k is 16x" checkable. The rows are
// cost-rows.ts's, drawn by cost-table.ts and cost-chart.ts; the words are in prose.ts.
import { el, replaceChildren, setText, showChildren } from '../../ui/dom';
import { sentenceView } from '../../snapshot';
import type { StepDefinition } from '../types';
import { sentenceStepNote } from '../shared/worked-example';
import { CostChart } from './cost-chart';
import { costRow } from './cost-rows';
import { CostTable } from './cost-table';
import { flashAside, intro, matrixText, ratiosText } from './prose';
import { costStepInfo } from './step-info';

export const costStep: StepDefinition = {
  ...costStepInfo,
  mount(body, context) {
    const matrixReading = el('p', { class: 'reading' });
    const table = new CostTable();
    const ratios = el('p', { class: 'reading cost-ratios' });
    const chart = new CostChart(context.embedCode);
    const flashLink = el('span', { class: 'cost-flash-ref' });
    const runLink = el('span', { class: 'cost-flash-run' });
    const techniqueLinks = el('span', { class: 'cost-techniques' }, 'Sliding windows, sparse patterns and linear attention');

    const shownNote = sentenceStepNote(context);
    body.append(
      shownNote.element,
      intro(),
      matrixReading,
      table.element,
      ratios,
      chart.element,
      flashAside(techniqueLinks, flashLink, runLink),
    );

    return {
      render(shown) {
        // The cost of n × n shows on the sentence rather than on the article's four tokens.
        const next = sentenceView(shown);
        const { pipeline: p } = next;
        shownNote.update(shown);
        const row = (n: number) => costRow(n, p.dModel, p.heads);
        setText(matrixReading, matrixText(row(p.n), p.heads));
        table.render(next);
        setText(ratios, ratiosText(row(2048), row(8192), row(131072)));
        chart.render(next);

        // Inside an element's shadow root the document cannot see the sections: ask the root that holds this step.
        // The links appear only where the sections exist (the walkthrough); a single-step embed keeps the words.
        const root = body.getRootNode() as Document | ShadowRoot;
        const has = (id: string) => Boolean(root.getElementById?.(id) ?? document.getElementById(id));
        showChildren(flashLink, has('flash') ? el('a', { href: '#flash' }, 'FlashAttention') : 'FlashAttention');
        if (has('flash-run')) showChildren(runLink, ' ', el('a', { href: '#flash-run' }, 'Time both methods in your browser'), '.');
        else replaceChildren(runLink);
        // Each technique links its live figure in the long-context step, where that step is on the page.
        const live = (id: string, text: string) => (has(id) ? el('a', { href: `#${id}` }, text) : text);
        showChildren(
          techniqueLinks,
          live('lc-window', 'Sliding windows'),
          ', ',
          live('lc-global', 'sparse patterns'),
          ' and ',
          live('lc-linear', 'linear attention'),
        );
      },
    };
  },
};
