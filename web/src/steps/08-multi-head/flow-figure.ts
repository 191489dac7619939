// Step 8's diagram: the strip of Q's columns, one slice per head, and the shapes through multi-head
// attention for this page, from X to the output. Shapes only: the model's numbers are in the maps.
import { el, setVar, showChildren } from '../../ui/dom';
import type { Snapshot } from '../../snapshot';
import type { Figure } from '../shared/figure';

function shape(rows: number, cols: number): string {
  return `(${rows}, ${cols})`;
}

/** Above this many heads the strip's slices are too thin for their labels. */
const LABELLED_SLICES = 8;

export class FlowFigure implements Figure {
  readonly element: HTMLElement;
  private readonly flow = el('ol', { class: 'multi-head-flow', 'aria-label': 'Shapes through multi-head attention, for this page' });
  private readonly split = el('div', { class: 'multi-head-split', 'aria-hidden': 'true' });

  constructor() {
    this.element = el(
      'figure',
      { class: 'figure multi-head-diagram' },
      this.split,
      this.flow,
      el('figcaption', {}, 'The strip: Q’s columns, one slice per head.'),
    );
  }

  render(s: Snapshot): void {
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
      this.flow,
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
    setVar(this.split, '--heads', p.heads);
    const labelled = p.heads <= LABELLED_SLICES;
    showChildren(
      this.split,
      ...Array.from({ length: p.heads }, (_, i) =>
        el(
          'span',
          { class: `multi-head-slice${i === s.settings.head ? ' multi-head-slice-shown' : ''}` },
          labelled ? `head ${i + 1}: ${i * p.dK + 1}–${(i + 1) * p.dK}` : '',
        ),
      ),
    );
  }
}
