// Multi-head attention: d_model stays fixed while h changes. The columns of Q, K, V are cut into h
// slices of d_k, each slice runs its own attention, the results are glued back together and mixed
// by W_o. Every head's map is drawn, and the work is counted to show it does not depend on h.
// Its words are in prose.ts; its parts: the h control (head-choices.ts), the shapes (flow-figure.ts),
// the work count (cost-figure.ts), the maps (head-maps-figure.ts) and the output (output-figure.ts).
import { codeBlock } from '../../ui/code-block';
import { ATTENTION_FUNCTION, HEAD_LINES } from '../../features/hands-on/numpy-script';
import { headChoices, type Settings } from '../../settings';
import { Prediction } from '../../ui/predict';
import { sentenceView } from '../../snapshot';
import type { StepDefinition } from '../types';
import { multiHeadStepInfo } from './step-info';
import { sentenceStepNote } from '../shared/worked-example';
import { drawnInPieces } from '../shared/pieces';
import { CostFigure } from './cost-figure';
import { FlowFigure } from './flow-figure';
import { HeadChoices } from './head-choices';
import { HeadMapsFigure } from './head-maps-figure';
import { OutputFigure } from './output-figure';
import { codeHeading, costHeading, intro, mapsHeading, outputHeading, workQuestion } from './prose';

export const multiHeadStep: StepDefinition = {
  ...multiHeadStepInfo,
  mount(body, context) {
    const choices = new HeadChoices(context);
    const flow = new FlowFigure();
    const cost = new CostFigure();
    // Beside the article's example the steps above show its one head: choosing a head of the sentence
    // here moves them to the sentence, with that head.
    let sentenceWeights: Settings['weights'] | null = null;
    const maps = new HeadMapsFigure(
      context.embedCode,
      (head) => context.update(sentenceWeights ? { head, weights: sentenceWeights } : { head }),
      () => sentenceWeights !== null,
    );
    const output = new OutputFigure(context.embedCode);
    // Predict first: does splitting into more heads cost more work?
    const predict = context.predictions ? new Prediction([cost.element, cost.reading]) : null;

    const shownNote = sentenceStepNote(context);
    body.append(
      shownNote.element,
      intro(),
      choices.choices,
      choices.note,
      flow.element,
      ...costHeading(),
      ...(predict ? [predict.element] : []),
      cost.element,
      cost.reading,
      ...mapsHeading(),
      ...maps.parts,
      ...outputHeading(),
      output.element,
      ...codeHeading(),
      codeBlock(ATTENTION_FUNCTION, { label: 'attention_heads(): the head lines highlighted', highlight: [...HEAD_LINES] }),
    );

    // In pieces: the step's DOM and tables were 100–200 ms of one task on a phone's CPU.
    return drawnInPieces(function* (shown) {
      // The article's example has one head: this step splits the sentence's d_model instead.
      const next = sentenceView(shown);
      shownNote.update(shown);
      sentenceWeights = shown.sentence ? next.settings.weights : null;
      choices.render(next);
      flow.render(next);
      cost.render(next);
      predict?.update(workQuestion(next, headChoices(next.pipeline.dModel)));
      yield;
      yield* maps.render(next);
      yield;
      output.render(next);
    });
  },
};
