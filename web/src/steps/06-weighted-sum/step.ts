// Step 4 of the article: output = weights V. Every output row is the value rows mixed in the
// proportions of that row's weights; any output cell can be worked out by hand. Its words are in
// prose.ts, its figures in weights-figure.ts and values-output-figure.ts; this file places them,
// works the selected cell out by hand and offers the NumPy script.
import { byHandSum } from '../../ui/arithmetic';
import { codeBlock, outputBlock } from '../../ui/code-block';
import { el, setText, showChildren } from '../../ui/dom';
import { copyText } from '../../ui/export-toolbar';
import { ATTENTION_FUNCTION, numpyScript, SCRIPT_MAX_DMODEL } from '../../features/hands-on/numpy-script';
import { sub } from '../../ui/format';
import type { Snapshot } from '../../snapshot';
import type { StepDefinition } from '../types';
import { weightedSumStepInfo } from './step-info';
import { selectedCell } from '../shared/selected-cell';
import { workedExampleNote } from '../shared/worked-example';
import {
  CLIPBOARD_BLOCKED,
  cellReading,
  cellTitle,
  codeHeading,
  codeLines,
  copiedText,
  intro,
  reproHeading,
  scriptTooLarge,
} from './prose';
import { ValuesOutputFigure } from './values-output-figure';
import { WeightsFigure } from './weights-figure';

export const weightedSumStep: StepDefinition = {
  ...weightedSumStepInfo,
  mount(body, context) {
    const worked = workedExampleNote(context);
    let snapshot: Snapshot | null = null;
    const cell = selectedCell(showArithmetic);
    const { selection, byHand, reading } = cell;
    const weights = new WeightsFigure(context.embedCode);
    const valuesOutput = new ValuesOutputFigure(context.embedCode, cell.select);

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
    /** The script the "Copied" line speaks of, while it is still the one the page's numbers make. */
    let copied: string | null = null;
    reproDetails.addEventListener('toggle', () => {
      if (reproDetails.open) setText(reproCode, script());
    });
    reproButton.addEventListener('click', async () => {
      const text = script();
      if (!text) return;
      if (reproDetails.open) setText(reproCode, text);
      if (await copyText(text)) {
        setText(reproStatus, copiedText(text.split('\n').length));
        copied = text;
        return;
      }
      // No clipboard here: open the script and select it, to copy by hand.
      setText(reproCode, text);
      reproDetails.open = true;
      getSelection()?.selectAllChildren(reproCode);
      reproBlock.element.focus();
      setText(reproStatus, CLIPBOARD_BLOCKED);
    });
    const repro = el('div', { class: 'numpy-repro' }, el('div', { class: 'numpy-repro-bar' }, reproButton, reproStatus), reproDetails);

    body.append(
      worked.element,
      intro(),
      weights.element,
      valuesOutput.element,
      byHand,
      reading,
      ...codeHeading(),
      codeBlock(ATTENTION_FUNCTION, { label: 'attention_heads(): this page’s attention in NumPy' }),
      codeLines(),
      ...reproHeading(),
      repro,
    );

    function showArithmetic(): void {
      if (!snapshot) return;
      const { pipeline: p, settings } = snapshot;
      const h = settings.head;
      const { row, col } = selection;
      const n = p.n;
      const dK = p.dK;
      const wRow = p.weights.data.subarray((h * n + row) * n, (h * n + row + 1) * n);
      const vCol = Array.from({ length: n }, (_, t) => p.V_heads.data[(h * n + t) * dK + col]);
      const value = p.headOutputs.data[(h * n + row) * dK + col];
      showChildren(
        byHand,
        el('p', { class: 'by-hand-title' }, cellTitle(snapshot, row, col)),
        byHandSum(
          `out${sub(row + 1)},${sub(col + 1)}`,
          Array.from(wRow, (w, t) => ({ a: w, b: vCol[t] })),
          value,
        ),
      );
      weights.highlight(row);
      valuesOutput.highlight(col);
      setText(reading, cellReading(snapshot, row, col, wRow, vCol, value));
    }

    return {
      render(next) {
        worked.update(next);
        snapshot = next;
        const p = next.pipeline;
        reproButton.disabled = p.dModel > SCRIPT_MAX_DMODEL;
        // A snapshot that leaves the script as it was (step 1's model arriving, its flips) keeps "Copied".
        if (copied !== null && (p.dModel > SCRIPT_MAX_DMODEL || copied !== script())) copied = null;
        if (copied === null) setText(reproStatus, p.dModel > SCRIPT_MAX_DMODEL ? scriptTooLarge(SCRIPT_MAX_DMODEL, p.dModel) : '');
        if (reproDetails.open && p.dModel <= SCRIPT_MAX_DMODEL) setText(reproCode, script());
        weights.render(next);
        valuesOutput.render(next);
        cell.follow(valuesOutput.output, p.n, p.dK);
      },
    };
  },
};
