// "Use these weights in the walkthrough": whether a run's model can stand in for the shipped one, and
// the record it is shown with (the same fields as the shipped model's args file). Pure, so both are
// read the same way by the button, its note and the walkthrough.
import { SHIPPED_MODEL, type ShippedModelRecord } from '../../model/shipped';
import { EVALUATE_EVERY, type ExportedWeights } from './train-plan';
import type { TrainSettings } from './train-settings';

/** Why this run's model cannot replace the walkthrough's, or null when it can. */
export function useProblem(settings: TrainSettings): string | null {
  if (settings.task !== 'who-is-it') return 'Only a “Who is “it”?” model reads the walkthrough’s sentence.';
  if (settings.dModel !== SHIPPED_MODEL.dModel || settings.heads !== SHIPPED_MODEL.heads)
    return `The walkthrough’s figures are laid out for d_model ${SHIPPED_MODEL.dModel} with ${SHIPPED_MODEL.heads} heads, the shipped model’s shape: train that shape to use it there.`;
  return null;
}

/** The record of a run's exported weights, as the walkthrough describes the model it shows. */
export function trainedRecord(settings: TrainSettings, exported: ExportedWeights, parameters: number, batch: number): ShippedModelRecord {
  return {
    task: settings.task,
    layers: settings.layers,
    heads: settings.heads,
    dModel: settings.dModel,
    parameters,
    optimizer: settings.optimizer,
    learningRate: settings.learningRate,
    batch,
    seed: settings.seed,
    steps: exported.step,
    heldoutExamples: exported.evaluation.examples,
    heldoutAccuracy: exported.evaluation.accuracy,
    heldoutLoss: exported.evaluation.loss,
    firstFullAccuracyStep: exported.targetStep ?? -1,
    evaluatedEvery: EVALUATE_EVERY,
    bytes: exported.bytes.length,
  };
}
