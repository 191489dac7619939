// The cost, precisely: what the (n, n) score matrix (drawn once, in step 3) costs as n grows, computed
// for this page's d_model and h (not quoted): entries, float32 bytes, multiply-adds, and the ratios that
// make "double the context, four times the cost" and "2k -> 8k is 16x" checkable.
import { attentionMultiplyAdds, FLOAT32_BYTES, ratioLabel, scoreEntries, tokenCountLabel } from '../../features/cost/cost-model';
import { el, replaceChildren, setText, showChildren } from '../../ui/dom';
import { bytes, count } from '../../ui/format';
import { tex } from '../../ui/formula';
import { figureTools } from '../../ui/export-toolbar';
import { LogLogChart, type ChartTick } from '../../ui/line-chart';
import { scrollRegion } from '../../ui/scroll-region';
import { sentenceView } from '../../snapshot';
import type { StepDefinition } from '../types';
import { sentenceStepNote } from '../shared/worked-example';

/** Context lengths every reader sees, whatever the sentence: 1k ... 128k tokens. */
export const REFERENCE_LENGTHS = [1024, 2048, 4096, 8192, 16384, 32768, 131072];
/** Depth of the model the "whole model" column imagines. */
export const LAYERS = 32;

export interface CostRow {
  n: number;
  entries: number;
  bytesPerHead: number;
  bytesPerLayer: number;
  bytesModel: number;
  multiplyAdds: number;
}

export function costRow(n: number, dModel: number, heads: number): CostRow {
  const entries = scoreEntries(n);
  return {
    n,
    entries,
    bytesPerHead: FLOAT32_BYTES * entries,
    bytesPerLayer: FLOAT32_BYTES * entries * heads,
    bytesModel: FLOAT32_BYTES * entries * heads * LAYERS,
    multiplyAdds: attentionMultiplyAdds(n, dModel),
  };
}

/** This page's n, 2n, 4n, 8n, then the reference lengths, without repeats, shortest first. */
export function costLengths(n: number): number[] {
  return [...new Set([n, 2 * n, 4 * n, 8 * n, ...REFERENCE_LENGTHS])].sort((a, b) => a - b);
}

function columns(heads: number): { key: keyof CostRow; header: string; format: (v: number) => string }[] {
  return [
    { key: 'entries', header: 'scores per head (n²)', format: count },
    { key: 'bytesPerHead', header: 'float32 memory, one head (4n² bytes)', format: bytes },
    { key: 'bytesPerLayer', header: `one layer, ${heads} head${heads === 1 ? '' : 's'}`, format: bytes },
    { key: 'bytesModel', header: `${LAYERS} layers of ${heads} head${heads === 1 ? '' : 's'}`, format: bytes },
    { key: 'multiplyAdds', header: 'multiply-adds per layer (2·n²·d_model)', format: count },
  ];
}

function powerTicks(lo: number, hi: number, base: number, label: (v: number) => string): ChartTick[] {
  const ticks: ChartTick[] = [];
  for (let v = 1; v <= hi; v *= base) if (v >= lo) ticks.push({ value: v, label: label(v) });
  return ticks;
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export const costStep: StepDefinition = {
  id: 'cost',
  number: 9,
  numbers: 'sentence',
  title: 'The cost, precisely',
  summary: 'The score matrix has n² entries per head: double the tokens and its memory and work grow four times.',
  formula: tex`\text{scores} \in \mathbb{R}^{n \times n}: \quad n^2 \text{ entries per head}, \quad 4 n^2 \text{ bytes in float32}, \quad 2\, n^2 d_{\text{model}} \text{ multiply-adds per layer}`,
  mount(body, context) {
    const matrixReading = el('p', { class: 'reading' });
    const table = el('table', { class: 'data-table cost-table' });
    const ratios = el('p', { class: 'reading cost-ratios' });
    const chart = new LogLogChart({ xLabel: 'tokens n (log scale)', yLabel: 'bytes (log scale)' });
    const flashLink = el('span', { class: 'cost-flash-ref' });
    const runLink = el('span', { class: 'cost-flash-run' });
    const techniqueLinks = el('span', { class: 'cost-techniques' }, 'Sliding windows, sparse patterns and linear attention');

    const shownNote = sentenceStepNote(context);
    body.append(
      shownNote.element,
      el(
        'p',
        {},
        'Step 3’s score table has a row and a column per token: double the sentence, four times the numbers. Counted for this page’s d_model and heads, up to 128k tokens (1k = 1,024).',
      ),
      matrixReading,
      scrollRegion({ label: 'Size and work of the score matrix as n grows', className: 'matrix-scroll' }, table),
      ratios,
      el(
        'figure',
        { class: 'figure cost-chart' },
        chart.element,
        figureTools(
          () => chart.element,
          () => 'Memory of the score matrices against n (log-log)',
          (palette) => chart.svgFile(palette),
          context.embedCode,
        ),
        el('figcaption', {}, 'One layer’s score memory against n, log-log: n² is twice as steep as n.'),
      ),
      el(
        'aside',
        { class: 'cost-flash', 'aria-labelledby': 'cost-flash-title' },
        el('h3', { id: 'cost-flash-title' }, 'FlashAttention: same answer, no n × n table'),
        el(
          'p',
          {},
          techniqueLinks,
          ' avoid that table; ',
          flashLink,
          ' computes the same output in tiles: memory stops growing like n², the multiply-adds do not.',
          runLink,
        ),
      ),
    );

    return {
      render(shown) {
        // The cost of n × n shows on the sentence rather than on the article's four tokens.
        const { pipeline: p } = sentenceView(shown);
        shownNote.update(shown);
        const n = p.n;
        const here = costRow(n, p.dModel, p.heads);
        setText(
          matrixReading,
          `${n} token${n === 1 ? '' : 's'}: ${count(here.entries)} scores per head, ${count(here.entries * p.heads)} for all ${p.heads} head${p.heads === 1 ? '' : 's'}, ` +
            `${bytes(here.bytesPerLayer)} as float32.`,
        );

        const COLUMNS = columns(p.heads);
        const rows = costLengths(n).map((length) => costRow(length, p.dModel, p.heads));
        const find = (length: number) => rows.find((row) => row.n === length)!;
        const ratioRow = (label: string, from: CostRow, to: CostRow, className: string) =>
          el(
            'tr',
            { class: className },
            el('th', { scope: 'row' }, label),
            ...COLUMNS.map((column) => el('td', { class: 'num', 'data-key': column.key }, ratioLabel(to[column.key] / from[column.key]))),
          );
        showChildren(
          table,
          el('caption', {}, `The score matrix as n grows, for d_model = ${p.dModel} and h = ${p.heads}`),
          el(
            'thead',
            {},
            el('tr', {}, el('th', { scope: 'col' }, 'tokens n'), ...COLUMNS.map((column) => el('th', { scope: 'col' }, column.header))),
          ),
          el(
            'tbody',
            {},
            ...rows.map((row) =>
              el(
                'tr',
                { class: row.n === n ? 'cost-current' : null, 'data-n': row.n },
                el('th', { scope: 'row' }, tokenCountLabel(row.n), row.n === n ? el('span', { class: 'cost-here' }, ' (this page)') : null),
                ...COLUMNS.map((column) =>
                  el('td', { class: 'num', 'data-key': column.key, 'data-value': row[column.key] }, column.format(row[column.key])),
                ),
              ),
            ),
          ),
          el(
            'tfoot',
            {},
            ratioRow(`doubling n: ${tokenCountLabel(n)} → ${tokenCountLabel(2 * n)}`, find(n), find(2 * n), 'cost-ratio-double'),
            ratioRow('4× the context: 2k → 8k', find(2048), find(8192), 'cost-ratio-2k-8k'),
          ),
        );
        const k2 = find(2048);
        const k8 = find(8192);
        setText(
          ratios,
          `From 2k to 8k tokens the context grows 4 times, and every column grows ${ratioLabel(k8.entries / k2.entries).slice(1)} times: ` +
            `${count(k2.entries)} → ${count(k8.entries)} scores per head, ${bytes(k2.bytesPerLayer)} → ${bytes(k8.bytesPerLayer)} per layer. ` +
            `At 128k tokens a single head’s matrix alone is ${bytes(find(131072).bytesPerHead)}.`,
        );

        const first = rows[0];
        const last = rows[rows.length - 1];
        chart.update({
          series: [
            {
              label: `score matrices, ${p.heads} head${p.heads === 1 ? '' : 's'}: grows like n²`,
              className: 'series-quad',
              points: rows.map((row) => [row.n, row.bytesPerLayer]),
              markers: true,
            },
            {
              label: 'for comparison, growing like n',
              className: 'series-lin',
              points: [
                [first.n, first.bytesPerLayer],
                [last.n, (first.bytesPerLayer * last.n) / first.n],
              ],
            },
          ],
          xTicks: powerTicks(first.n, last.n, 4, tokenCountLabel),
          yTicks: powerTicks(
            first.bytesPerLayer,
            last.bytesPerLayer,
            1024,
            (v) => `1 ${BYTE_UNITS[Math.round(Math.log(v) / Math.log(1024))]}`,
          ),
          highlight: { x: n, y: here.bytesPerLayer, text: `this page: n = ${n}, ${bytes(here.bytesPerLayer)}` },
          description:
            `Log-log chart: memory of the score matrices of one layer with ${p.heads} head${p.heads === 1 ? '' : 's'}, from ${bytes(first.bytesPerLayer)} at ${tokenCountLabel(first.n)} tokens ` +
            `to ${bytes(last.bytesPerLayer)} at ${tokenCountLabel(last.n)} tokens, a straight line of slope 2 (×4 per doubling); a line growing like n is drawn for comparison.`,
        });

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
