// Multi-head attention: d_model stays fixed while h changes. The columns of Q, K, V are cut into h
// slices of d_k, each slice runs its own attention, the results are glued back together and mixed
// by W_o. Every head's map is drawn, and the work is counted to show it does not depend on h.
// Length: each step is one file; this one is long because it holds every head's map, the split-and-merge
// code and the work count.
import { codeBlock } from '../../ui/code-block';
import { ATTENTION_FUNCTION, HEAD_LINES } from '../../features/hands-on/numpy-script';
import { costOfShape, costOfSnapshot, type LayerCost } from '../../features/cost/cost-model';
import { el, replaceChildren, setText, setVar, showChildren } from '../../ui/dom';
import { count, fmt, percent, quoted } from '../../ui/format';
import { tex } from '../../ui/formula';
import { figureTools } from '../../ui/export-toolbar';
import { HeadGrid, LABELLED_TOKENS } from '../../ui/head-grid';
import { dimensionLabels, tokenLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import { Prediction } from '../../ui/predict';
import { scrollRegion } from '../../ui/scroll-region';
import { TrainedHeads } from '../../features/trained-model/trained-heads';
import { headChoices, LIMITS, maxHeadsFor, type Settings } from '../../settings';
import { type Snapshot, sentenceView } from '../../snapshot';
import type { StepDefinition } from '../types';
import { sentenceStepNote } from '../shared/worked-example';

/** Widest output drawn; past it, the first columns (the rest are computed, not drawn). */
export const OUTPUT_MAX_COLUMNS = 64;

function firstColumns(data: Float32Array, rows: number, cols: number, keep: number): Float32Array {
  const out = new Float32Array(rows * keep);
  for (let r = 0; r < rows; r++) out.set(data.subarray(r * cols, r * cols + keep), r * keep);
  return out;
}

/** At most this many heads get a map; the rest are counted in words. */
export const MAX_HEAD_MAPS = 16;

/** The key each query token weights most in one head. */
export function topKey(weights: Float32Array, head: number, n: number, row: number): number {
  let best = 0;
  const base = (head * n + row) * n;
  for (let c = 1; c < n; c++) if (weights[base + c] > weights[base + best]) best = c;
  return best;
}

const COST_PARTS: { key: keyof LayerCost; label: string; formula: string }[] = [
  { key: 'projections', label: 'Q, K, V projections', formula: '3 · n · d_model²' },
  { key: 'scores', label: 'Scores Qᵢ Kᵢᵀ, all heads', formula: 'h · n² · dₖ = n² · d_model' },
  { key: 'weightedSum', label: 'Weighted sums, all heads', formula: 'h · n² · dₖ = n² · d_model' },
  { key: 'output', label: 'Output projection × W_o', formula: 'n · d_model²' },
];

function shape(rows: number, cols: number): string {
  return `(${rows}, ${cols})`;
}

export const multiHeadStep: StepDefinition = {
  id: 'multi-head',
  number: 8,
  numbers: 'sentence',
  title: 'Multi-head attention: several questions at once',
  summary: 'h smaller attentions run side by side on slices of d_model and are glued back together, for about the same work as one.',
  formula: tex`\text{head}_i = \operatorname{softmax}\!\Big(\frac{Q_i K_i^{\top}}{\sqrt{d_k}}\Big) V_i, \qquad \text{output} = \operatorname{concat}(\text{head}_1, \dots, \text{head}_h)\, W_o, \qquad d_k = \frac{d_{\text{model}}}{h}`,
  mount(body, context) {
    const choices = el('div', { class: 'multi-head-choices', role: 'group', 'aria-label': 'Number of heads h' });
    const choicesNote = el('p', { class: 'multi-head-choices-note', 'aria-live': 'polite' });
    const flow = el('ol', { class: 'multi-head-flow', 'aria-label': 'Shapes through multi-head attention, for this page' });
    const split = el('div', { class: 'multi-head-split', 'aria-hidden': 'true' });
    const costTable = el('table', { class: 'data-table multi-head-cost' });
    const costReading = el('p', { class: 'reading multi-head-cost-reading' });
    const trainedHeads = new TrainedHeads(context.embedCode);
    // Beside the article's example the steps above show its one head: choosing a head of the sentence
    // here moves them to the sentence, with that head.
    let sentenceWeights: Settings['weights'] | null = null;
    const grid = new HeadGrid(
      (head) => context.update(sentenceWeights ? { head, weights: sentenceWeights } : { head }),
      'Attention maps, one per head',
    );
    const gridNote = el('p', { class: 'multi-head-grid-note' });
    const gridTools = figureTools(
      () => grid.element,
      () => 'Attention maps, one per head',
      (palette) => grid.svgFile('Attention maps, one per head: rows are query tokens, columns are key tokens', palette),
      context.embedCode,
    );
    const topTable = el('table', { class: 'data-table multi-head-top' });
    const topDetails = el(
      'details',
      { class: 'multi-head-top-details' },
      el('summary', {}, 'The same maps in words'),
      scrollRegion({ label: 'Each head’s strongest key per token', className: 'matrix-scroll' }, topTable),
    );
    let outputTokens: string[] = [];
    const output = new MatrixTable({
      embed: context.embedCode,
      caption: 'output',
      scale: 'diverging',
      corner: 'token ↓ dim →',
      describe: (r, c, v) => `layer output for ${quoted(outputTokens[r] ?? '')}, dimension ${c + 1}: ${fmt(v)}`,
    });
    const costRegion = scrollRegion(
      { label: 'Multiply-adds and parameters for each number of heads', className: 'matrix-scroll' },
      costTable,
    );
    // Predict first: does splitting into more heads cost more work?
    const predict = context.predictions ? new Prediction([costRegion, costReading]) : null;

    const shownNote = sentenceStepNote(context);
    body.append(
      shownNote.element,
      el(
        'p',
        {},
        'One head gives each token one set of weights, but “it” asks several questions. Multi-head attention cuts Q, K and V into h slices of dₖ = d_model / h columns, runs each, and joins the results.',
      ),
      choices,
      choicesNote,
      el(
        'figure',
        { class: 'figure multi-head-diagram' },
        split,
        flow,
        el('figcaption', {}, 'The strip: Q’s columns, one slice per head.'),
      ),
      el('h3', {}, 'The same work, however you slice it'),
      el('p', {}, 'h heads of width dₖ do h · n² · dₖ = n² · d_model multiply-adds for the scores, as one wide head would:'),
      ...(predict ? [predict.element] : []),
      costRegion,
      costReading,
      el('h3', {}, 'Every head’s attention map'),
      el(
        'p',
        {},
        'Each square is one head’s weights; a stronger blue means more weight. Point at or click a token on the left to highlight its row in every head; pick a map to show that head in the steps above.',
      ),
      trainedHeads.element,
      grid.element,
      gridTools,
      gridNote,
      topDetails,
      el('h3', {}, 'Concatenate, then mix with W_o'),
      el('p', {}, 'Side by side the head outputs are (n, d_model) again; one more learned matrix, W_o, mixes them:'),
      el('figure', { class: 'figure' }, output.element),
      el('h3', {}, 'In code'),
      el('p', {}, 'In step 6’s function, split() makes the h slices and the last two lines join them and apply W_o.'),
      codeBlock(ATTENTION_FUNCTION, { label: 'attention_heads(): the head lines highlighted', highlight: [...HEAD_LINES] }),
    );

    let choiceKey = '';
    function renderChoices(dModel: number, n: number, current: number, trained: boolean): void {
      const options = headChoices(dModel, n);
      const key = `${dModel}/${options.length}/${trained}`;
      if (key !== choiceKey) {
        choiceKey = key;
        replaceChildren(
          choices,
          el('span', { class: 'multi-head-choices-label', 'aria-hidden': 'true' }, 'h ='),
          ...options.map((h) => {
            // The trained model's h is fixed by its weights: the other counts are for random weights.
            const button = el(
              'button',
              {
                type: 'button',
                class: 'multi-head-choice',
                'data-heads': h,
                'aria-label': `${h} head${h === 1 ? '' : 's'} of dₖ = ${dModel / h}`,
                disabled: trained && h !== current,
                title:
                  trained && h !== current ? `The trained model has h = ${current}: choose random weights (Numbers) for other h.` : null,
              },
              String(h),
            );
            button.addEventListener('click', () => context.update({ heads: h }));
            return button;
          }),
        );
      }
      choices
        .querySelectorAll<HTMLButtonElement>('button')
        .forEach((button) => button.setAttribute('aria-pressed', String(Number(button.dataset.heads) === current)));
      setText(
        choicesNote,
        `h = ${current}: dₖ = ${dModel} / ${current} = ${dModel / current}. ` +
          (trained
            ? `The model was trained with h = ${current}; random weights allow other divisors of ${dModel}.`
            : `d_model stays; these are the values that divide d_model = ${dModel}${maxHeadsFor(n) < Math.min(dModel, LIMITS.maxHeads) ? ` up to ${maxHeadsFor(n)}, the most heads ${n} tokens may have` : dModel > LIMITS.maxHeads ? ` (up to ${LIMITS.maxHeads})` : ''}.`),
      );
    }

    function renderFlow(s: Snapshot): void {
      const p = s.pipeline;
      const stage = (name: string, detail: string, shapeText: string) =>
        el(
          'li',
          { class: 'multi-head-stage' },
          el('span', { class: 'multi-head-stage-name' }, name),
          el('span', { class: 'multi-head-stage-detail' }, detail),
          el('span', { class: 'multi-head-shape' }, shapeText),
        );
      showChildren(
        flow,
        stage('X', 'one row per token', shape(p.X.rows, p.X.cols)),
        stage('Q, K, V', `X times W_q, W_k, W_v, each ${shape(p.W_q.rows, p.W_q.cols)}`, `3 × ${shape(p.Q.rows, p.Q.cols)}`),
        stage(
          'split',
          `columns cut into h = ${p.heads} slice${p.heads === 1 ? '' : 's'}`,
          `${p.heads} × 3 × ${shape(p.Q_heads.rows, p.Q_heads.cols)}`,
        ),
        stage(
          'attention per head',
          `softmax(Q_i K_iᵀ / √${p.dK}) is ${shape(p.weights.rows, p.weights.cols)}, times V_i`,
          `${p.heads} × ${shape(p.headOutputs.rows, p.headOutputs.cols)}`,
        ),
        stage('concat', 'head outputs side by side', shape(p.merged.rows, p.merged.cols)),
        stage('× W_o', `mix the heads, W_o is ${shape(p.W_o.rows, p.W_o.cols)}`, shape(p.output.rows, p.output.cols)),
      );
      setVar(split, '--heads', p.heads);
      const labelled = p.heads <= 8;
      showChildren(
        split,
        ...Array.from({ length: p.heads }, (_, i) =>
          el(
            'span',
            { class: `multi-head-slice${i === s.settings.head ? ' multi-head-slice-shown' : ''}` },
            labelled ? `head ${i + 1}: ${i * p.dK + 1}–${(i + 1) * p.dK}` : '',
          ),
        ),
      );
    }

    function renderCost(s: Snapshot): void {
      const p = s.pipeline;
      const actual = costOfSnapshot(p);
      const options = headChoices(p.dModel);
      const columns = options.map((h) => ({ h, cost: h === p.heads ? actual : costOfShape(p.n, p.dModel, h) }));
      const headRow = el(
        'tr',
        {},
        el('th', { scope: 'col' }, 'part of the layer'),
        ...columns.map(({ h }) => el('th', { scope: 'col', class: h === p.heads ? 'multi-head-current' : null }, `h = ${h}`)),
      );
      const row = (label: string, formula: string, value: (c: LayerCost) => number, className?: string) =>
        el(
          'tr',
          { class: className ?? null },
          el('th', { scope: 'row' }, label, el('span', { class: 'multi-head-formula' }, formula)),
          ...columns.map(({ h, cost }) =>
            el('td', { class: `num${h === p.heads ? ' multi-head-current' : ''}`, 'data-heads': h }, count(value(cost))),
          ),
        );
      showChildren(
        costTable,
        el('caption', {}, `One layer’s work and weights, n = ${p.n}, d_model = ${p.dModel}`),
        el('thead', {}, headRow),
        el('tbody', {}, ...COST_PARTS.map((part) => row(part.label, part.formula, (c) => c[part.key]))),
        el(
          'tfoot',
          {},
          row('Total multiply-adds', '3nd² + 2n²d + nd²', (c) => c.total, 'multi-head-total'),
          row('Parameters', 'W_q, W_k, W_v, W_o: 4 · d_model²', (c) => c.params, 'multi-head-params'),
        ),
      );
      const same = columns.every(({ cost }) => cost.total === actual.total && cost.params === actual.params);
      const one = costOfShape(p.n, p.dModel, 1);
      const most = options[options.length - 1];
      const grows = costOfShape(p.n, p.dModel, most).total > one.total * 1.01;
      predict?.update(
        options.length < 2
          ? null
          : {
              key: 'multi-head-work',
              question: `Splitting d_model = ${p.dModel} into more heads: does the total work of the layer grow with h?`,
              choices: [
                { id: 'grows', label: 'Yes, about h times more' },
                { id: 'same', label: 'No, about the same' },
                { id: 'shrinks', label: 'It shrinks' },
              ],
              correct: grows ? 'grows' : 'same',
              explanation:
                `Each head works on dₖ = d_model / h columns only. h heads doing n² · dₖ multiply-adds each add up to n² · d_model, the same as one wide head, ` +
                `and the projections do not depend on h at all. For this page: ${count(one.total)} multiply-adds with 1 head, ${count(costOfShape(p.n, p.dModel, most).total)} with ${most}. ` +
                'What more heads buy is variety: several smaller attention maps instead of one.',
            },
      );
      const attentionShare = (actual.scores + actual.weightedSum) / actual.total;
      setText(
        costReading,
        same
          ? `Every column is identical: ${count(actual.total)} multiply-adds and ${count(actual.params)} parameters, whether ${options.length === 1 ? 'h is 1' : `h is ${options[0]} or ${options[options.length - 1]}`}. ` +
              `At n = ${p.n} the n × n products are ${percent(attentionShare)} of the work.`
          : `With these shapes the count changes with h: ${count(actual.total)} multiply-adds at h = ${p.heads}.`,
      );
    }

    function renderHeads(s: Snapshot): void {
      const p = s.pipeline;
      const n = p.n;
      const shown = Math.min(p.heads, MAX_HEAD_MAPS);
      const maps = Array.from({ length: shown }, (_, head) => {
        let best = 0;
        let bestValue = -1;
        for (let i = 0; i < n * n; i++)
          if (p.weights.data[head * n * n + i] > bestValue) {
            bestValue = p.weights.data[head * n * n + i];
            best = i;
          }
        const r = Math.floor(best / n);
        const c = best % n;
        return {
          data: p.weights.data.subarray(head * n * n, (head + 1) * n * n),
          n,
          caption: `Head ${head + 1}`,
          description:
            `Head ${head + 1} of ${p.heads}: attention map, ${n} × ${n}. Strongest: ${quoted(s.tokens[r])} takes ${percent(bestValue)} from ${quoted(s.tokens[c])}.` +
            (sentenceWeights
              ? ' Show this head, on this sentence, in the steps above.'
              : head === s.settings.head
                ? ' Shown in the steps above.'
                : ' Show this head in the steps above.'),
        };
      });
      const labels = tokenLabels(s.tokens);
      grid.update(maps, s.settings.head, labels);
      setText(
        gridNote,
        p.heads > MAX_HEAD_MAPS
          ? `Showing the first ${MAX_HEAD_MAPS} of ${p.heads} heads; the others are computed too, and the steps above can show any of them.`
          : `${p.heads} head${p.heads === 1 ? '' : 's'}, each map ${n} × ${n}.${s.settings.causal ? ' The causal mask is on, so everything above each map’s diagonal is empty.' : ''}` +
              (n > LABELLED_TOKENS
                ? ` At ${n} tokens a row is too thin for a label: point at a row of a map to highlight it in every head.`
                : ''),
      );

      showChildren(
        topTable,
        el(
          'caption',
          {},
          `For each token, the key with the largest weight in each head${p.heads > MAX_HEAD_MAPS ? ` (first ${MAX_HEAD_MAPS} heads)` : ''}`,
        ),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { scope: 'col' }, 'token'),
            ...Array.from({ length: shown }, (_, head) => el('th', { scope: 'col' }, `head ${head + 1}`)),
          ),
        ),
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

    return {
      render(shown) {
        // The article's example has one head: this step splits the sentence's d_model instead.
        const next = sentenceView(shown);
        shownNote.update(shown);
        sentenceWeights = shown.sentence ? next.settings.weights : null;
        const { pipeline: p, tokens } = next;
        renderChoices(p.dModel, p.n, p.heads, next.trained !== null);
        trainedHeads.update(next.trained, tokens);
        renderFlow(next);
        renderCost(next);
        renderHeads(next);
        const labels = tokenLabels(tokens);
        outputTokens = tokens;
        const numbers = p.n <= LIMITS.maxTokensWithNumbers && p.dModel <= LIMITS.maxTokensWithNumbers;
        // A (128, 512) output would be 65,536 cells: past OUTPUT_MAX_COLUMNS only the first columns are drawn.
        const cols = Math.min(p.dModel, OUTPUT_MAX_COLUMNS);
        const data = cols === p.dModel ? p.output.data : firstColumns(p.output.data, p.n, p.dModel, cols);
        output.update(
          {
            data,
            rows: p.n,
            cols,
            rowLabels: labels,
            colLabels: dimensionLabels(cols),
            showNumbers: numbers,
            baseline: next.baseline
              ? cols === p.dModel
                ? next.baseline.output.data
                : firstColumns(next.baseline.output.data, p.n, p.dModel, cols)
              : null,
          },
          `output = concat(heads) W_o, (n, d_model) = (${p.n}, ${p.dModel})` +
            `${cols < p.dModel ? `, dimensions 1–${cols} of ${p.dModel} drawn` : ''}${numbers ? '' : ', colours only at this size'}`,
        );
      },
    };
  },
};
