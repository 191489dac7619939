// Step 1 of the article: every query against every key. scores = Q K^T, one number per pair.
// Its words are in prose.ts, its figures in query-key-figure.ts and scores-figure.ts; this file
// places them and works the selected score out by hand.
import { byHandSum } from '../../ui/arithmetic';
import { el, setText, showChildren } from '../../ui/dom';
import { sub } from '../../ui/format';
import type { Snapshot } from '../../snapshot';
import type { StepDefinition } from '../types';
import { scoresStepInfo } from './step-info';
import { selectedCell } from '../shared/selected-cell';
import { workedExampleNote } from '../shared/worked-example';
import { aside, cellTitle, intro, rowReading } from './prose';
import { QueryKeyFigure } from './query-key-figure';
import { ScoresFigure } from './scores-figure';

export const scoresStep: StepDefinition = {
  ...scoresStepInfo,
  mount(body, context) {
    const worked = workedExampleNote(context);
    let snapshot: Snapshot | null = null;
    const cell = selectedCell(showArithmetic);
    const { selection, byHand, reading } = cell;
    const queryKey = new QueryKeyFigure(context.embedCode);
    const scores = new ScoresFigure(context.embedCode, cell.select);

    body.append(worked.element, ...intro(), queryKey.element, scores.element, byHand, reading, aside());

    function showArithmetic(): void {
      if (!snapshot) return;
      const { pipeline: p, settings } = snapshot;
      const { row, col } = selection;
      const h = settings.head;
      const dK = p.dK;
      const q = p.Q_heads.data.subarray((h * p.n + row) * dK, (h * p.n + row + 1) * dK);
      const k = p.K_heads.data.subarray((h * p.n + col) * dK, (h * p.n + col + 1) * dK);
      const value = p.scores.data[(h * p.n + row) * p.n + col];
      const terms = Array.from(q, (a, t) => ({ a, b: k[t] }));
      showChildren(
        byHand,
        el('p', { class: 'by-hand-title' }, cellTitle(snapshot, row, col)),
        byHandSum(`q${sub(row + 1)} · k${sub(col + 1)}`, terms, value),
      );
      queryKey.highlight(row, col);
      setText(reading, rowReading(snapshot, row));
    }

    return {
      render(next) {
        worked.update(next);
        snapshot = next;
        queryKey.render(next);
        scores.render(next);
        cell.follow(scores.table, next.pipeline.n, next.pipeline.n);
      },
    };
  },
};
