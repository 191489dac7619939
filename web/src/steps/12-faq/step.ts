// The article's five questions, each answered in a few sentences and a live mini-figure from the
// current snapshot. The token the answers look at is "it" when the sentence has one (the
// article's question), else the last token; the reader can pick another.
import { BarChart, type Bar } from '../../ui/bars';
import { ratioLabel, scoreEntries } from '../../features/cost/cost-model';
import { controlForm, el, replaceChildren, setText, showChildren, svg } from '../../ui/dom';
import { count, fmt, percent, quoted } from '../../ui/format';
import { dimensionLabels, focusTokenIndex, tokenLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import { scrollRegion } from '../../ui/scroll-region';
import { LIMITS } from '../../settings';
import type { Snapshot } from '../../snapshot';
import type { StepDefinition } from '../types';
import { workedExampleNote } from '../shared/worked-example';
import { widerHeadAdvice } from '../shared/which-model';

/** Above this many tokens the weights row is shown as its largest entries plus the rest. */
export const BAR_ROW_MAX = 16;
export const BAR_ROW_TOP = 12;

function question(title: string, ...children: (Node | string)[]): HTMLDetailsElement {
  return el('details', { class: 'faq-item', open: true }, el('summary', {}, el('h3', { class: 'faq-question' }, title)), ...children);
}

function link(href: string, text: string): HTMLAnchorElement {
  return el('a', { href }, text);
}

export const faqStep: StepDefinition = {
  id: 'faq',
  number: 13,
  title: 'Frequently asked questions',
  summary: 'Five common questions, each answered with this page’s live numbers.',
  mount(body, context) {
    let snapshot: Snapshot | null = null;
    let focus = -1;
    let focusKey = '';

    const picker = el('select', { name: 'faq-token', class: 'faq-token-select' });
    picker.addEventListener('change', () => {
      focus = Number(picker.value);
      if (snapshot) draw(snapshot);
    });

    // 1. sqrt(d_k)
    const spread = el('p', { class: 'faq-live faq-spread' });
    const soft = new BarChart({
      caption: 'softmax([1, 2, 3])',
      labelHeader: 'score',
      valueHeader: 'probability',
      max: 1,
      format: (v) => fmt(v),
    });
    const sharp = new BarChart({ caption: 'sharp', labelHeader: 'score', valueHeader: 'probability', max: 1, format: (v) => fmt(v) });
    const gradient = el('p', { class: 'faq-live faq-gradient' });
    // 2. q, k, v
    const qkv = new MatrixTable({ embed: context.embedCode, caption: 'q, k, v', scale: 'diverging', corner: 'row' });
    const qkvReading = el('p', { class: 'faq-live faq-qkv-reading' });
    // 3. heads
    const headsTable = el('table', { class: 'data-table faq-heads' });
    const headsReading = el('p', { class: 'faq-live faq-heads-reading' });
    // 4. the map
    const row = new BarChart({ caption: 'weights', labelHeader: 'key token', valueHeader: 'weight', max: 1, className: 'faq-row-bars' });
    const rowReading = el('p', { class: 'faq-live faq-row-reading' });
    // 5. n^2
    const squares = svg('svg', { class: 'faq-squares', viewBox: '0 0 170 170', role: 'img', width: 170, height: 170 });
    const growth = el('p', { class: 'faq-live faq-growth' });
    const held = new BarChart({
      caption: 'held in memory',
      labelHeader: 'method',
      valueHeader: 'floats per head',
      className: 'faq-held-bars',
      format: (v) => count(v),
    });
    const flashRef = el('span', { class: 'faq-flash-ref' });
    const longContextRef = el('span', { class: 'faq-long-context-ref' });
    const measured = el('p', { class: 'faq-live faq-measured' });

    const worked = workedExampleNote(context);
    body.append(
      worked.element,
      controlForm({ class: 'faq-token' }, el('label', {}, 'The answers follow the token ', picker)),
      question(
        'Why divide by the square root of dₖ?',
        el(
          'p',
          {},
          'Dot products of dₖ terms spread like √dₖ, making softmax nearly one-hot with almost no gradient; dividing restores a spread of 1.',
        ),
        spread,
        el(
          'div',
          { class: 'figure-row faq-bars' },
          el('figure', { class: 'figure' }, soft.element),
          el('figure', { class: 'figure' }, sharp.element),
        ),
        gradient,
      ),
      question(
        'What is the difference between query, key and value?',
        el('p', {}, 'Looking, offering and handing over are separate jobs: a word can match one question and pass on something else.'),
        el('figure', { class: 'figure' }, qkv.element),
        qkvReading,
      ),
      question(
        'Why multiple attention heads?',
        el(
          'p',
          {},
          'Each head, one slice of d_model, follows its own relationship at no extra cost (',
          link('#multi-head', 'step 8'),
          ' counts it).',
        ),
        scrollRegion({ label: 'Where each head sends the chosen token', className: 'matrix-scroll' }, headsTable),
        headsReading,
      ),
      question(
        'Is attention the same as the attention maps I see visualised?',
        el('p', {}, 'Yes, the weights after the softmax: where information came from, not what was done with it.'),
        el('figure', { class: 'figure' }, row.element),
        rowReading,
      ),
      question(
        'Why is long context expensive?',
        el(
          'p',
          {},
          'The score matrix grows with n²: four times the context, sixteen times the work. FlashAttention saves memory, not multiplications (',
          link('#cost', 'step 9'),
          '; ',
          flashRef,
          ').',
          longContextRef,
        ),
        el('div', { class: 'faq-growth-figure' }, squares, growth),
        el('figure', { class: 'figure faq-held' }, held.element),
        measured,
      ),
    );

    function draw(s: Snapshot): void {
      const { pipeline: p, tokens, settings } = s;
      const n = p.n;
      const h = settings.head;
      const labels = tokenLabels(tokens);
      const t = Math.max(0, Math.min(n - 1, focus));
      const who = quoted(tokens[t]);
      const headNote = p.heads > 1 ? `head ${h + 1} of ${p.heads}` : 'the only head';

      // 1. The spread at this d_k, and softmax of [1, 2, 3] at the raw spread.
      const { dots, saturation } = s;
      setText(
        spread,
        `Here dₖ = ${dots.dK}: ${count(dots.raw.length)} dot products spread ${fmt(dots.rawStd)} (√${dots.dK} = ${fmt(Math.sqrt(dots.dK))}); divided, ${fmt(dots.scaledStd)}.` +
          // Beside the article's example (dₖ 4) the bars stretch by the article's own √64 (compute.ts).
          (saturation.dK === dots.dK ? '' : ` The bars below use the article’s dₖ = ${saturation.dK}.`),
      );
      const probs = (values: Float32Array): Bar[] => {
        const top = values.reduce((best, v, i) => (v > values[best] ? i : best), 0);
        return Array.from(values, (v, i) => ({ label: `score ${fmt(saturation.row[i], 0)}`, value: v, text: fmt(v), emphasis: i === top }));
      };
      soft.update(probs(saturation.soft.probabilities), 'softmax([1, 2, 3]): a spread of about 1');
      sharp.update(
        probs(saturation.sharp.probabilities),
        `softmax([1, 2, 3] × √${saturation.dK} = ${fmt(saturation.factor)}): the spread unscaled dₖ = ${saturation.dK} scores have`,
      );
      setText(
        gradient,
        saturation.factor === 1
          ? `At dₖ = 1, √dₖ is 1 and scaling changes nothing. Pick ${widerHeadAdvice(s)} to see the difference.`
          : `Gradient left: ${fmt(saturation.soft.jacobianNorm, 3)} for [1, 2, 3], ` +
              `${fmt(saturation.sharp.jacobianNorm, 3)} for [1, 2, 3] × ${fmt(saturation.factor)}.`,
      );

      // 2. The token's q, k and v rows in the shown head.
      const dK = p.dK;
      const rows = new Float32Array(3 * dK);
      const at = (tensor: Float32Array) => tensor.subarray((h * n + t) * dK, (h * n + t + 1) * dK);
      rows.set(at(p.Q_heads.data), 0);
      rows.set(at(p.K_heads.data), dK);
      rows.set(at(p.V_heads.data), 2 * dK);
      qkv.update(
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
      const scoreRow = p.scores.data.subarray((h * n + t) * n, (h * n + t + 1) * n);
      let match = 0;
      for (let j = 1; j < n; j++) if (scoreRow[j] > scoreRow[match]) match = j;
      const vector = (tensor: Float32Array, token: number) => {
        const values = Array.from(tensor.subarray((h * n + token) * dK, (h * n + token) * dK + Math.min(dK, 6)), (v) => fmt(v));
        return `[${values.join(', ')}${dK > 6 ? ', …' : ''}]`;
      };
      setText(
        qkvReading,
        `${who} matches the key of ${quoted(tokens[match])} best (${fmt(scoreRow[match])}) but takes its value, v = ${vector(p.V_heads.data, match)}, not its key.`,
      );

      // 3. Where each head sends the token.
      const tops = Array.from({ length: p.heads }, (_, head) => {
        const base = (head * n + t) * n;
        let best = 0;
        for (let j = 1; j < n; j++) if (p.weights.data[base + j] > p.weights.data[base + best]) best = j;
        return { head, key: best, weight: p.weights.data[base + best] };
      });
      showChildren(
        headsTable,
        el('caption', {}, `Where ${who} looks most, in each head`),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { scope: 'col' }, 'head'),
            el('th', { scope: 'col' }, 'strongest key'),
            el('th', { scope: 'col' }, 'its weight'),
          ),
        ),
        el(
          'tbody',
          {},
          ...tops.map((top) =>
            el(
              'tr',
              { class: top.head === h ? 'faq-current' : null },
              el('th', { scope: 'row' }, `head ${top.head + 1}`),
              el('td', {}, labels[top.key]),
              el('td', { class: 'num' }, percent(top.weight)),
            ),
          ),
        ),
      );
      const distinct = new Set(tops.map((top) => top.key)).size;
      setText(
        headsReading,
        p.heads === 1
          ? `With one head there is one answer: ${who} looks most at ${quoted(tokens[tops[0].key])}.`
          : `Across ${p.heads} heads, ${who} looks most at ${distinct} different token${distinct === 1 ? '' : 's'}` +
              // Only what the reader can change here: the seed means nothing to the trained model.
              `${distinct === 1 ? ` (these heads agree here; try another token${settings.weights === 'random' ? ' or seed' : ''})` : ''}. ` +
              (settings.weights === 'random'
                ? 'These weights are random, not trained; in trained models such differences become specialised heads.'
                : `These are the trained model’s heads in layer ${(s.trained?.resolving.layer ?? 0) + 1}: training decided what each one follows.`),
      );

      // 4. The token's row of the attention map.
      const weightsRow = p.weights.data.subarray((h * n + t) * n, (h * n + t + 1) * n);
      let best = 0;
      for (let j = 1; j < n; j++) if (weightsRow[j] > weightsRow[best]) best = j;
      let items: Bar[] = Array.from(weightsRow, (w, j) => ({ label: labels[j], value: w, text: percent(w), emphasis: j === best }));
      let rest = '';
      if (n > BAR_ROW_MAX) {
        const sorted = [...items].sort((a, b) => b.value - a.value);
        const others = sorted.slice(BAR_ROW_TOP);
        items = sorted.slice(0, BAR_ROW_TOP);
        rest = ` The other ${others.length} tokens share the remaining ${percent(others.reduce((sum, item) => sum + item.value, 0))}.`;
      }
      row.update(
        items,
        `Row ${t + 1} of the weights, ${headNote}: what ${who} draws from each token${n > BAR_ROW_MAX ? ` (largest ${BAR_ROW_TOP})` : ''}`,
      );
      const total = weightsRow.reduce((sum, w) => sum + w, 0);
      setText(
        rowReading,
        p.fullyMaskedRows[t]
          ? `Every key is blocked for ${who}, so its row is all zeros.`
          : `${who} draws its largest share, ${percent(weightsRow[best])}, from ${quoted(tokens[best])}; the whole row adds up to ${percent(total)}.${rest}`,
      );

      // 5. n^2 against (4n)^2.
      const now = scoreEntries(n);
      const later = scoreEntries(4 * n);
      const lines: SVGElement[] = [svg('rect', { class: 'faq-square-big', x: 5, y: 5, width: 160, height: 160 })];
      for (let i = 1; i < 4; i++) {
        lines.push(svg('line', { class: 'faq-square-grid', x1: 5 + 40 * i, x2: 5 + 40 * i, y1: 5, y2: 165 }));
        lines.push(svg('line', { class: 'faq-square-grid', x1: 5, x2: 165, y1: 5 + 40 * i, y2: 5 + 40 * i }));
      }
      lines.push(svg('rect', { class: 'faq-square-small', x: 5, y: 5, width: 40, height: 40 }));
      const words = `${n} tokens: ${count(now)} scores per head; ${4 * n} tokens: ${count(later)}, ${ratioLabel(later / now).slice(1)} times as many.`;
      squares.setAttribute(
        'aria-label',
        `Two squares: the score matrix for ${n} tokens fits ${later / now} times into the one for ${4 * n} tokens.`,
      );
      showChildren(squares, svg('title', {}, words), ...lines);
      setText(growth, words);

      // What each method holds at 4n: the whole matrix against one tile (step 10's meter, in small).
      const b = Math.min(settings.block, 4 * n);
      const tile = b * b + 3 * b;
      held.update(
        [
          { label: 'naive: n × n matrix', value: later, text: `${count(later)} floats` },
          { label: `tiled: ${b} × ${b} + 3 × ${b}`, value: tile, text: `${count(tile)} floats`, emphasis: true },
        ],
        `Held in memory for ${4 * n} tokens, one head`,
      );
      // Links only where the walkthrough has the sections; a single-step embed names them instead.
      const root = squares.getRootNode() as Document | ShadowRoot;
      const has = (id: string) => Boolean(root.getElementById?.(id));
      showChildren(flashRef, has('flash') ? link('#flash', 'step 10') : 'step 10');
      // The long-context step's two parts, where that step is on the page.
      if (has('long-context'))
        showChildren(
          longContextRef,
          ' Computing fewer scores: ',
          link('#long-context', 'windows, sparse patterns and linear attention'),
          '; what generating text keeps in memory: ',
          link('#kv-cache', 'the KV cache'),
          '.',
        );
      else showChildren(longContextRef);
      showChildren(
        measured,
        `Tiled: ${count(tile)} floats of memory, yet all ${count(later)} scores for ${4 * n} tokens computed. `,
        has('flash-run') ? link('#flash-run', 'Time both methods in your browser') : 'Step 10 times both methods in your browser',
        '.',
      );
    }

    return {
      render(next) {
        worked.update(next);
        snapshot = next;
        const key = next.tokens.join('\u0001');
        if (key !== focusKey) {
          focusKey = key;
          const labels = tokenLabels(next.tokens);
          replaceChildren(picker, ...labels.map((label, i) => el('option', { value: i }, label)));
          focus = focusTokenIndex(next.tokens);
        }
        picker.value = String(focus);
        draw(next);
      },
    };
  },
};
