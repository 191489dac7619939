// Which numbers a figure shows, in one short line: the article's example, the trained model on the
// sentence, the reader's own trained model, or random weights, and their shape. Read from the
// snapshot the figure drew, so the line and the figure cannot disagree.
import { sentenceView, whoIsIt, type Snapshot } from '../../snapshot';
import { readerModelName } from '../../features/reader/figure';

/** "the article’s example", "the trained model on the sentence", "random weights (seed 3) on the sentence". */
export function modelName(snapshot: Snapshot): string {
  const { settings } = snapshot;
  const trained = whoIsIt(snapshot.trained);
  if (settings.weights === 'example') return 'the article’s example';
  if (trained) return trained.origin === 'reader' ? 'your own trained model on the sentence' : 'the trained model on the sentence';
  return `random weights (seed ${settings.seed}) on the sentence`;
}

/** "4 tokens, d_model 8, h = 1": the shape the figures compute with. */
export function modelShape(snapshot: Snapshot): string {
  const { n, dModel, heads } = snapshot.pipeline;
  return `${n} token${n === 1 ? '' : 's'}, d_model ${dModel}, h = ${heads}`;
}

/** "the article’s example (4 tokens, d_model 8, h = 1)". */
export function modelSummary(snapshot: Snapshot): string {
  return `${modelName(snapshot)} (${modelShape(snapshot)})`;
}

/** The same with a capital, to start a line. */
export function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "2–7, 12": step numbers with runs joined. */
export function stepList(numbers: readonly number[]): string {
  const sorted = [...numbers].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    runs.push(j === i ? String(sorted[i]) : j === i + 1 ? `${sorted[i]}, ${sorted[j]}` : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return runs.join(', ');
}

/** What a step shows, as its definition declares it (steps/types.ts). */
export interface StepNumbers {
  number: number;
  numbers?: 'sentence' | 'reader' | 'own';
}

/**
 * The settings bar's line: which numbers the steps below show, grouped by model, in the steps' order.
 * Beside the article's example, the sentence steps show another model, and the line says which; step 1
 * shows its reader model whenever a model is shown.
 */
export function barStatement(steps: readonly StepNumbers[], snapshot: Snapshot): string {
  const plural = (list: number[]) => `Step${list.length === 1 ? '' : 's'} ${stepList(list)}`;
  const own = steps.filter((s) => s.numbers === 'own').map((s) => s.number);
  const sentence = steps.filter((s) => s.numbers === 'sentence').map((s) => s.number);
  const reader = steps.filter((s) => s.numbers === 'reader').map((s) => s.number);
  const rest = steps.filter((s) => !s.numbers).map((s) => s.number);
  const { reader: readerView } = snapshot;
  // With random weights there is no reader model: step 1 shows the sentence's snapshot, as the others do.
  const sentenceSteps = readerView ? sentence : [...sentence, ...reader];
  const groups: [number[], string][] = snapshot.sentence
    ? [
        [rest, modelSummary(snapshot)],
        [sentenceSteps, modelSummary(sentenceView(snapshot))],
      ]
    : [[[...rest, ...sentenceSteps], modelSummary(snapshot)]];
  // Named without its shape, which step 1's own line gives: the bar's line must stay one line at 1280 px.
  if (readerView) groups.push([reader, readerModelName(readerView.causal)]);
  const parts = groups
    .filter(([list]) => list.length > 0)
    .sort(([a], [b]) => Math.min(...a) - Math.min(...b))
    // "Step 1 shows X; steps 2–7 Y": the verb once, so that the line stays one line.
    .map(([list, what], i) =>
      i === 0 ? `${plural(list)} show${list.length === 1 ? 's' : ''} ${what}` : `${plural(list).toLowerCase()} ${what}`,
    );
  if (own.length > 0)
    parts.push(`${plural(own).toLowerCase()} train${own.length === 1 ? 's' : ''} ${own.length === 1 ? 'its' : 'their'} own`);
  return parts.length === 0 ? '' : `${parts.join('; ')}.`;
}

/**
 * How to get a dₖ above 1, naming only what the reader can change from here: more d_model, and fewer
 * heads only when there is more than one (a suggestion never proposes a setting already in force).
 */
export function widerHeadAdvice(snapshot: Snapshot): string {
  return snapshot.pipeline.heads > 1 ? 'a larger d_model or fewer heads' : 'a larger d_model';
}
