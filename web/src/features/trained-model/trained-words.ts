// Words and small figures about the trained model (weights=trained), shared by step 1 and step 8.
// Every number comes from the snapshot's TrainedSnapshot: measured by the engine on the shipped
// weights, or read from the record written when they were trained; none is typed here.
import type { HeadShare } from '../../engine/training';
import type { HeadRef, TrainedSnapshot } from './trained';
import { el } from '../../ui/dom';
import { count, percent, quoted } from '../../ui/format';

/** "layer 2, head 1" for a 0-based head. */
export function headName(ref: HeadRef): string {
  return `layer ${ref.layer + 1}, head ${ref.head + 1}`;
}

/** Row `row` of one head of one layer of the model's attention. */
export function trainedRow(trained: TrainedSnapshot, ref: HeadRef, row: number): Float32Array {
  const n = trained.words.length;
  return trained.attention[ref.layer].data.subarray((ref.head * n + row) * n, (ref.head * n + row + 1) * n);
}

export function shareOf(trained: TrainedSnapshot, ref: HeadRef): HeadShare {
  return trained.shares.find((s) => s.layer === ref.layer && s.head === ref.head)!;
}

/** Task, size, steps and accuracy: the engine's describe()/evaluate() now, and the training record. */
export function modelFacts(trained: TrainedSnapshot): string {
  const { model, evaluation, record } = trained;
  return (
    `${trained.origin === 'reader' ? 'Your model, trained in “Train it yourself”' : 'The trained model'}: ` +
    `${model.layers} layer${model.layers === 1 ? '' : 's'} × ${model.heads} heads, d_model ${model.dModel}, ` +
    `${count(model.parameters)} parameters, ${count(model.steps)} steps (${record.optimizer === 'adamw' ? 'AdamW' : record.optimizer === 'sgd' ? 'SGD' : record.optimizer}, ` +
    `learning rate ${record.learningRate}, batch ${record.batch}, seed ${record.seed}) in this page’s C++. ` +
    `On ${count(evaluation.examples)} held-out sentences just now: ${percent(evaluation.accuracy, 1)} correct (${percent(record.heldoutAccuracy, 1)} when trained).`
  );
}

/** The model's most probable words at "it", as a small list of words and probabilities. */
export function predictionList(trained: TrainedSnapshot): HTMLElement {
  const word = trained.words[trained.query] ?? '';
  return el(
    'div',
    { class: 'trained-prediction' },
    el('p', { class: 'trained-prediction-title' }, `The model’s most probable words at ${quoted(word)}:`),
    el(
      'ol',
      { class: 'trained-prediction-list' },
      ...trained.top.map((t, i) =>
        el(
          'li',
          { class: i === 0 ? 'trained-prediction-top' : null },
          el('span', { class: 'trained-prediction-word' }, t.word),
          ' ',
          el('span', { class: 'trained-prediction-p' }, percent(t.probability, 1)),
        ),
      ),
    ),
  );
}

/** The notes a reader needs about how the model read the sentence: unknown words, cut positions. */
export function readingNotes(trained: TrainedSnapshot, tokens: readonly string[]): string[] {
  const notes: string[] = [];
  const unknown = tokens.filter((_, i) => trained.unknown[i]);
  if (unknown.length) {
    const listed = [...new Set(unknown)].slice(0, 6).map(quoted).join(', ');
    notes.push(
      `${listed} ${unknown.length === 1 ? 'is' : 'are'} not in the trained vocabulary (${trained.model.vocabularySize} words): ` +
        `the model reads ${unknown.length === 1 ? 'it' : 'each'} as its one unknown-word embedding, so ${unknown.length === 1 ? 'it carries' : 'they carry'} no meaning of ${unknown.length === 1 ? 'its' : 'their'} own.`,
    );
  }
  if (trained.cut) {
    notes.push(
      `The trained model has ${trained.cut.positions} positions, and your sentence has ${trained.cut.words} words: ` +
        `with trained weights the model and every step below read the first ${trained.cut.positions}. Random weights take the whole sentence.`,
    );
  }
  return notes;
}

/**
 * A layer takes a shortcut when, averaged over its heads, "it" reads both nouns about equally: it
 * gathers the two candidates instead of choosing (a later layer chooses, using the adjective).
 */
export function shortcutLayers(trained: TrainedSnapshot): { layer: number; referent: number; otherNoun: number }[] {
  const found: { layer: number; referent: number; otherNoun: number }[] = [];
  for (let layer = 0; layer < trained.model.layers; layer++) {
    const heads = trained.shares.filter((s) => s.layer === layer);
    const referent = heads.reduce((sum, s) => sum + s.referent, 0) / heads.length;
    const otherNoun = heads.reduce((sum, s) => sum + s.otherNoun, 0) / heads.length;
    // Both nouns get a real share, and neither gets twice the other.
    if (Math.min(referent, otherNoun) >= 0.1 && Math.max(referent, otherNoun) < 2 * Math.min(referent, otherNoun))
      found.push({ layer, referent, otherNoun });
  }
  return found;
}
