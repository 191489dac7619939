// Step 2 of the article: divide the scores by sqrt(d_k), and why. The division of one live score (the
// score matrix itself is drawn once, in step 3), the variance experiment (random dot products before
// and after: experiment-figure.ts), the saturation demo (softmax of [1, 2, 3] with and without the
// spread that d_k would cause, and how much gradient survives: saturation-figure.ts), and what scaling
// does to the current sentence's weights (effect-figure.ts). Its words are in prose.ts.
import { el, replaceChildren, setText, showChildren } from '../../ui/dom';
import { fmt } from '../../ui/format';
import { Prediction } from '../../ui/predict';
import type { Snapshot } from '../../snapshot';
import type { StepDefinition } from '../types';
import { drawnInPieces } from '../shared/pieces';
import { scaleStepInfo } from './step-info';
import { workedExampleNote } from '../shared/worked-example';
import { EffectFigure, rowMaxima } from './effect-figure';
import { ExperimentFigure } from './experiment-figure';
import {
  ARTICLE_DK,
  divisionNote,
  effectHeading,
  effectText,
  experimentIntroText,
  experimentReadingText,
  saturationHeading,
  saturationQuestion,
  saturationReadingText,
  tryArticleText,
  whatText,
  whyHeading,
} from './prose';
import { SaturationFigure } from './saturation-figure';

export const scaleStep: StepDefinition = {
  ...scaleStepInfo,
  mount(body, context) {
    const worked = workedExampleNote(context);
    let snapshot: Snapshot | null = null;

    const what = el('p', {});
    const division = el('div', { class: 'by-hand-box', 'aria-live': 'polite' });

    const experimentIntro = el('p', {});
    const experiment = new ExperimentFigure(context.embedCode);
    const experimentReading = el('p', { class: 'reading' });
    const tryButton = el('button', { type: 'button', class: 'scale-try' });
    tryButton.addEventListener('click', () => context.update({ weights: 'random', dModel: 512, heads: 8 }));

    const saturation = new SaturationFigure(context.embedCode);
    const saturationReading = el('p', {});
    // Predict first: without the division, what does a larger d_k do to the largest weight?
    const predict = context.predictions ? new Prediction([saturation.element, saturationReading]) : null;

    const effect = el('p', { 'aria-live': 'polite' });
    const effectFigure = new EffectFigure(context.embedCode);
    const scaleButton = el('button', { type: 'button', class: 'scale-toggle' });
    scaleButton.addEventListener('click', () => context.update({ scale: !snapshot?.settings.scale }));

    body.append(
      worked.element,
      what,
      division,
      ...whyHeading(),
      experimentIntro,
      experiment.element,
      experimentReading,
      ...saturationHeading(),
      ...(predict ? [predict.element] : []),
      saturation.element,
      saturationReading,
      el('p', { class: 'scale-try-row' }, tryButton),
      effectHeading(),
      effect,
      effectFigure.element,
    );

    /** The division of the first score (the article's q₁ · k₁ by default): every other cell is the same sum. */
    function showDivision(next: Snapshot): void {
      const { pipeline: p, settings } = next;
      const at = settings.head * p.n * p.n;
      const raw = p.scores.data[at];
      const result = p.scoresScaled.data[at];
      showChildren(
        division,
        el(
          'p',
          { class: 'by-hand scale-division' },
          el('span', { class: 'by-hand-label' }, 'scaled[1, 1]'),
          ' = ',
          el('span', { class: 'scale-raw', 'data-value': raw }, fmt(raw)),
          settings.scale ? ` ÷ √${p.dK} = ${fmt(raw)} ÷ ${fmt(Math.sqrt(p.dK))} = ` : ' × 1 = ',
          el('strong', { class: 'by-hand-result', 'data-value': result }, fmt(result)),
        ),
        el('p', { class: 'scale-division-note' }, divisionNote(next)),
      );
    }

    /** What scaling does here, in words, with the button that switches it. */
    function showEffect(next: Snapshot): void {
      const { pipeline: p, settings } = next;
      const withScaling = rowMaxima(p.weights, settings.head);
      const without = rowMaxima(p.weightsUnscaled, 0); // computed for the shown head only
      const rows = withScaling.map((_, i) => i).filter((i) => !p.fullyMaskedRows[i]);
      setText(scaleButton, settings.scale ? 'Switch scaling off' : 'Switch scaling back on');
      const text = effectText(next, withScaling, without, rows);
      if (settings.scale && p.dK === 1) replaceChildren(effect, text);
      else replaceChildren(effect, text, scaleButton, ' to compare.');
      effectFigure.render(next);
    }

    let shownDots: Snapshot['dots'] | null = null;
    let shownSaturation: Snapshot['saturation']['soft'] | null = null;
    let shownHeads = 0;

    // In pieces (steps/shared/pieces.ts): drawn whole, the step was one task of ~100 ms on a phone's CPU.
    return drawnInPieces(function* (next) {
      worked.update(next);
      snapshot = next;
      setText(what, whatText(next));
      showDivision(next);
      yield;
      // The experiments depend only on (d_k, seed), and compute.ts hands back the same objects while
      // those stay: a causal or sentence change does not redraw the histogram or the bars.
      if (next.dots !== shownDots) {
        shownDots = next.dots;
        setText(experimentIntro, experimentIntroText(next));
        experiment.render(next);
        setText(experimentReading, experimentReadingText(next));
      }
      yield;
      // The heads too: at dₖ = 1 the reading's advice depends on them.
      if (next.saturation.soft !== shownSaturation || next.pipeline.heads !== shownHeads) {
        shownSaturation = next.saturation.soft;
        shownHeads = next.pipeline.heads;
        saturation.render(next);
        setText(saturationReading, saturationReadingText(next));
        predict?.update(saturationQuestion(next));
        tryButton.hidden = next.saturation.dK === ARTICLE_DK;
        setText(tryButton, tryArticleText());
      }
      yield;
      showEffect(next);
    });
  },
};
