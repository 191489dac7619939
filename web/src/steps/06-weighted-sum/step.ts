// Step 4 of the article: output = weights V. Every output row is the value rows mixed in the
// proportions of that row's weights; any output cell can be worked out by hand.
import { byHandSum } from '../../ui/arithmetic';
import { codeBlock, outputBlock } from '../../ui/code-block';
import { el, setText, showChildren } from '../../ui/dom';
import { copyText } from '../../ui/export-toolbar';
import { ATTENTION_FUNCTION, numpyScript, SCRIPT_MAX_DMODEL } from '../../features/hands-on/numpy-script';
import { fmt, formatPercentDelta, percent, quoted, sub } from '../../ui/format';
import { tex } from '../../ui/formula';
import { dimensionLabels } from '../../ui/labels';
import { MatrixTable } from '../../ui/matrix-table/matrix-table';
import type { Snapshot } from '../../snapshot';
import type { StepDefinition } from '../types';
import { headView } from '../shared/head-view';
import { workedExampleNote } from '../shared/worked-example';

function link(href: string, text: string): HTMLAnchorElement {
  return el('a', { href }, text);
}

export const weightedSumStep: StepDefinition = {
  id: 'weighted-sum',
  number: 6,
  title: 'Weighted sum of values',
  summary: 'Each output row mixes the value vectors of all tokens, in the proportions its weights give.',
  formula: tex`\text{output} = \text{weights}\; V, \qquad \text{out}_{ij} = \sum_{t=1}^{n} w_{it}\, v_{tj}`,
  mount(body, context) {
    const worked = workedExampleNote(context);
    let snapshot: Snapshot | null = null;
    const selection = { row: 0, col: 0 };

    const byHand = el('div', { class: 'by-hand-box', 'aria-live': 'polite' });
    const reading = el('p', { class: 'reading' });
    const weights = new MatrixTable({
      embed: context.embedCode,
      caption: 'weights',
      scale: 'sequential',
      corner: 'query ↓ key →',
      describe: (r, c, v) => (snapshot ? `${quoted(snapshot.tokens[r])} takes ${percent(v)} of ${quoted(snapshot.tokens[c])}’s value` : ''),
      formatDelta: formatPercentDelta,
      legend: 'more weight',
    });
    const values = new MatrixTable({
      embed: context.embedCode,
      caption: 'V',
      scale: 'diverging',
      corner: 'token',
      describe: (r, c, v) => (snapshot ? `value of ${quoted(snapshot.tokens[r])}, dimension ${c + 1}: ${fmt(v)}` : ''),
    });
    const output: MatrixTable = new MatrixTable({
      embed: context.embedCode,
      caption: 'output',
      scale: 'diverging',
      corner: 'token ↓ dim →',
      describe: (r, c, v) => (snapshot ? `output of ${quoted(snapshot.tokens[r])}, dimension ${c + 1}: ${fmt(v)}` : ''),
      onSelect: (row, col) => {
        selection.row = row;
        selection.col = col;
        showArithmetic();
      },
    });

    // Reproduce in NumPy: our attention_heads() and this page's matrices, as a script to run.
    const reproButton = el(
      'button',
      { type: 'button', class: 'hands-button primary numpy-repro-copy' },
      'Reproduce in NumPy: copy the script',
    );
    const reproStatus = el('p', { class: 'numpy-repro-status', role: 'status' });
    const reproBlock = outputBlock('The NumPy script');
    const reproCode = reproBlock.element.querySelector('pre')!;
    reproCode.classList.add('numpy-repro-code');
    const reproDetails = el('details', { class: 'numpy-repro-details' }, el('summary', {}, 'Show the script'), reproBlock.element);
    const script = () => (snapshot ? numpyScript(snapshot) : '');
    reproDetails.addEventListener('toggle', () => {
      if (reproDetails.open) setText(reproCode, script());
    });
    reproButton.addEventListener('click', async () => {
      const text = script();
      if (!text) return;
      if (reproDetails.open) setText(reproCode, text);
      if (await copyText(text)) {
        setText(
          reproStatus,
          `Copied: ${text.split('\n').length} lines of Python. Save them as attention.py and run python3 attention.py (it needs NumPy).`,
        );
        return;
      }
      // No clipboard here: open the script and select it, to copy by hand.
      setText(reproCode, text);
      reproDetails.open = true;
      getSelection()?.selectAllChildren(reproCode);
      reproBlock.element.focus();
      setText(
        reproStatus,
        'The clipboard is blocked here, so the script is open and selected below: press Ctrl+C (⌘C on a Mac) to copy it.',
      );
    });
    const repro = el('div', { class: 'numpy-repro' }, el('div', { class: 'numpy-repro-bar' }, reproButton, reproStatus), reproDetails);

    body.append(
      worked.element,
      el(
        'p',
        {},
        'The weights say how much to take from each token, the values what it hands over: each output row blends the value rows in its weights’ proportions.',
      ),
      el('figure', { class: 'figure' }, weights.element),
      el(
        'div',
        { class: 'figure-row' },
        el('figure', { class: 'figure' }, values.element),
        el('figure', { class: 'figure' }, output.element),
      ),
      byHand,
      reading,
      el('h3', {}, 'The whole mechanism in code'),
      el('p', {}, 'All of it fits in one NumPy function, for any number of heads and any mask:'),
      codeBlock(ATTENTION_FUNCTION, { label: 'attention_heads(): this page’s attention in NumPy' }),
      el(
        'p',
        {},
        'Lines 3, 9, 10–11, 12–13 and 14–18 are ',
        link('#qkv', 'steps 2'),
        ', ',
        link('#scores', '3'),
        ', ',
        link('#scale', '4'),
        ', ',
        link('#causal', '7'),
        ' and ',
        link('#softmax', '5'),
        '; line 19 is this step; lines 20–21 are ',
        link('#multi-head', 'step 8'),
        '.',
      ),
      el('h3', {}, 'Reproduce it in NumPy'),
      el(
        'p',
        {},
        'The button copies this function with this page’s matrices, mask and scaling: a script that prints the numbers shown here.',
      ),
      repro,
    );

    function showArithmetic(): void {
      if (!snapshot) return;
      const { pipeline: p, tokens, settings } = snapshot;
      const h = settings.head;
      const { row, col } = selection;
      const n = p.n;
      const dK = p.dK;
      const wRow = p.weights.data.subarray((h * n + row) * n, (h * n + row + 1) * n);
      const vCol = Array.from({ length: n }, (_, t) => p.V_heads.data[(h * n + t) * dK + col]);
      const value = p.headOutputs.data[(h * n + row) * dK + col];
      showChildren(
        byHand,
        el(
          'p',
          { class: 'by-hand-title' },
          `Output row ${row + 1} (${quoted(tokens[row])}), dimension ${col + 1}: weights of row ${row + 1} times column ${col + 1} of V`,
        ),
        byHandSum(
          `out${sub(row + 1)},${sub(col + 1)}`,
          Array.from(wRow, (w, t) => ({ a: w, b: vCol[t] })),
          value,
        ),
      );
      weights.highlight([row], []);
      values.highlight([], [col]);

      if (p.fullyMaskedRows[row]) {
        setText(reading, `Every key is blocked for row ${row + 1}, so all its weights are 0 and its output is 0.`);
        return;
      }
      let total = 0;
      let best = 0;
      for (let t = 0; t < n; t++) {
        total += wRow[t];
        if (wRow[t] > wRow[best]) best = t;
      }
      const lo = Math.min(...vCol);
      const hi = Math.max(...vCol);
      setText(
        reading,
        `Row ${row + 1}’s weights are never negative and add up to ${fmt(total)}, so ${fmt(value)} averages column ${col + 1} of V, ` +
          `between its smallest value (${fmt(lo)}) and its largest (${fmt(hi)}); the biggest share, ${percent(wRow[best])}, is of ${quoted(tokens[best])}’s value, ${fmt(vCol[best])}.`,
      );
    }

    return {
      render(next) {
        worked.update(next);
        snapshot = next;
        const p = next.pipeline;
        const { h, n, labels, headNote, numbers, dimNumbers } = headView(next);
        const masked = (r: number, c: number) => p.mask.data[r * n + c] === 0 && p.weights.data[(h * n + r) * n + c] === 0;
        const base = next.baseline;
        reproButton.disabled = p.dModel > SCRIPT_MAX_DMODEL;
        setText(
          reproStatus,
          p.dModel > SCRIPT_MAX_DMODEL
            ? `The script writes out all four d_model × d_model matrices, so it is offered up to d_model ${SCRIPT_MAX_DMODEL}; this page has ${p.dModel}.`
            : '',
        );
        if (reproDetails.open && p.dModel <= SCRIPT_MAX_DMODEL) setText(reproCode, script());
        weights.update(
          {
            data: p.weights.data,
            offset: h * n * n,
            rows: n,
            cols: n,
            rowLabels: labels,
            colLabels: labels,
            extent: 1,
            showNumbers: numbers,
            blocked: masked,
            blockedText: '0',
            baseline: base?.weights.data,
          },
          `weights${headNote}, (n, n) = (${n}, ${n}); each row adds up to 1`,
        );
        values.update(
          {
            data: p.V_heads.data,
            offset: h * n * p.dK,
            rows: n,
            cols: p.dK,
            rowLabels: labels,
            colLabels: dimensionLabels(p.dK),
            showNumbers: dimNumbers,
            baseline: base?.V_heads.data,
          },
          `V${headNote}: values, (n, dₖ) = (${n}, ${p.dK})`,
        );
        output.update(
          {
            data: p.headOutputs.data,
            offset: h * n * p.dK,
            rows: n,
            cols: p.dK,
            rowLabels: labels,
            colLabels: dimensionLabels(p.dK),
            showNumbers: dimNumbers,
            baseline: base?.headOutputs.data,
          },
          `output = weights V${headNote}, (n, dₖ) = (${n}, ${p.dK})`,
        );
        selection.row = Math.min(selection.row, n - 1);
        selection.col = Math.min(selection.col, p.dK - 1);
        if (!output.selection) output.select(selection.row, selection.col);
        else showArithmetic();
      },
    };
  },
};
