// What the experiments of "Train it yourself" found, in sentences made from the numbers the run
// measured (held-out scores, per-head attention scores, |∇W_q|, the probe's answer and attention):
// nothing here is written in advance, so the page says what this run did, also where it disagrees
// with the article or where its attention disagrees with its answer. Pure functions of the run's
// messages and settings, so the unit tests feed them real runs at a fixed seed and check the sentences.
import type { HeadScores } from '../../engine/training';
import type { Tensor3 } from '../../engine/types';
import { MAX_TRAIN_STEPS, type TrainSettings } from './train-settings';
import { stackShape } from '../../steps/shared/figure';
import { EVALUATE_EVERY, TARGET_ACCURACY, type ProbeReading, type TrainScore } from './train-plan';
import { fmt, percent, quoted } from '../../ui/format';

/** What one run reported: its scores (every EVALUATE_EVERY steps, with attention when measured) and |∇W_q| per step. */
export interface RunRecord {
  scores: TrainScore[];
  /** [step, |∇W_q| per layer] for each progress report that carried one. */
  queryGradients: [number, number[]][];
}

export type HeadRole = 'previous-token' | 'induction' | 'first-token' | 'self';

/** A head counts as having a role once more than this share of its weight goes where the role says. */
export const ROLE_THRESHOLD = 0.5;

const ROLE_SCORES: Record<HeadRole, (scores: HeadScores) => number> = {
  'previous-token': (s) => s.previousToken,
  induction: (s) => s.induction,
  'first-token': (s) => s.first,
  self: (s) => s.self,
};

const ROLE_WORDS: Record<HeadRole, string> = {
  'previous-token': 'the previous token',
  induction: 'the token after an earlier copy of the current one',
  'first-token': 'the first token',
  self: 'itself',
};

const article = (role: HeadRole) => (role === 'induction' ? 'an' : 'a');

export function headName(layer: number, head: number): string {
  return `Layer ${layer + 1}, head ${head + 1}`;
}

/** The head's role now: the largest of its scores, if it is past ROLE_THRESHOLD. */
export function headRole(scores: HeadScores): { role: HeadRole | null; best: HeadRole; value: number } {
  const ranked = (Object.keys(ROLE_SCORES) as HeadRole[])
    .map((role) => ({ role, value: ROLE_SCORES[role](scores) }))
    .sort((a, b) => b.value - a.value);
  const top = ranked[0]!;
  return { role: top.value > ROLE_THRESHOLD ? top.role : null, best: top.role, value: top.value };
}

/** One sentence per head, e.g. "Layer 2, head 1: an induction head: 76% of its weight goes to …". */
export function describeHeads(heads: readonly HeadScores[]): string[] {
  return heads.map((scores) => {
    const { role, best, value } = headRole(scores);
    const name = headName(scores.layer, scores.head);
    return role
      ? `${name}: ${article(role)} ${role} head: ${percent(value)} of its weight goes to ${ROLE_WORDS[role]}.`
      : `${name}: no clear role yet (at most ${percent(value)}, on ${ROLE_WORDS[best]}).`;
  });
}

/** The first scored step at which the head's score for `role` passed ROLE_THRESHOLD, or null. */
export function roleStep(scores: readonly TrainScore[], layer: number, head: number, role: HeadRole): number | null {
  for (const score of scores) {
    const h = score.attention?.heads.find((s) => s.layer === layer && s.head === head);
    if (h && ROLE_SCORES[role](h) > ROLE_THRESHOLD) return score.step;
  }
  return null;
}

/** The EVALUATE_EVERY-step window over which the held-out loss fell most. */
export function steepestFall(scores: readonly TrainScore[]): { from: TrainScore; to: TrainScore } | null {
  let best: { from: TrainScore; to: TrainScore } | null = null;
  for (let i = 1; i < scores.length; i++) {
    const from = scores[i - 1]!;
    const to = scores[i]!;
    if (!best || from.loss - to.loss > best.from.loss - best.to.loss) best = { from, to };
  }
  return best;
}

/** "Heads specialise": when the loss fell, which heads took which role and when, in this run's numbers. */
export function headFindings(run: RunRecord): string[] {
  const scored = run.scores.filter((s) => s.attention);
  const last = scored.at(-1);
  if (!last?.attention) return [];
  const findings: string[] = [];
  const fall = steepestFall(run.scores);
  if (fall)
    findings.push(
      `The held-out loss fell most between steps ${fall.from.step} and ${fall.to.step} (${fmt(fall.from.loss, 2)} → ${fmt(fall.to.loss, 2)}).`,
    );
  const formed = last.attention.heads
    .map((h) => ({ h, role: headRole(h).role }))
    .filter((x): x is { h: HeadScores; role: HeadRole } => x.role !== null)
    .map(({ h, role }) => ({ h, role, step: roleStep(scored, h.layer, h.head, role) }));
  for (const { h, role, step } of formed)
    findings.push(
      `${headName(h.layer, h.head)} became ${article(role)} ${role} head at step ${step} (${percent(ROLE_SCORES[role](h))} by step ${last.step}).`,
    );
  const induction = formed.filter((f) => f.role === 'induction' && f.step !== null).map((f) => f.step!);
  const previous = formed.filter((f) => f.role === 'previous-token' && f.step !== null).map((f) => f.step!);
  if (induction.length && previous.length) {
    const [i, p] = [Math.min(...induction), Math.min(...previous)];
    findings.push(
      i < p
        ? `Here the induction head${induction.length > 1 ? 's' : ''} formed ${p - i} steps before the previous-token head, not at the same time.`
        : i > p
          ? `The previous-token head formed first, ${i - p} steps before the induction head that reads it.`
          : 'The previous-token and induction heads formed at the same scored step.',
    );
  }
  if (!formed.length) findings.push(`No head passed ${percent(ROLE_THRESHOLD)} on any role in ${last.step} steps.`);
  return findings;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The steps over which the collapse of the unscaled gradient is read, after its first steps. */
export const GRADIENT_WINDOW: readonly [number, number] = [11, 50];

/** The last layer's |∇W_q| at `step`, or null. */
function gradientAt(run: RunRecord, step: number): number | null {
  const found = run.queryGradients.find(([s]) => s === step);
  return found ? (found[1].at(-1) ?? null) : null;
}

function windowMedian(run: RunRecord): number | null {
  const values = run.queryGradients.filter(([s]) => s >= GRADIENT_WINDOW[0] && s <= GRADIENT_WINDOW[1]).map(([, g]) => g.at(-1)!);
  return values.length ? median(values) : null;
}

const sci = (value: number) => (value >= 0.01 ? fmt(value, 3) : value.toExponential(1));

/** "Why scale": the scaled and the unscaled twin, compared on what the run measured. */
export function scaleFindings(scaled: RunRecord, unscaled: RunRecord): string[] {
  const findings: string[] = [];
  const start = (run: RunRecord) => run.scores.find((s) => s.step === 0)?.attention;
  const [a0, b0] = [start(scaled), start(unscaled)];
  if (a0 && b0)
    findings.push(
      `Before any training the scaled model's attention has an entropy of ${fmt(a0.entropy, 2)} nats per row, the unscaled one's ${fmt(b0.entropy, 2)}: ` +
        `${b0.entropy < a0.entropy / 2 ? 'already close to one-hot' : 'not much sharper'}.`,
    );
  const [a, b] = [scaled.scores.at(-1), unscaled.scores.at(-1)];
  if (a && b && a.step === b.step)
    findings.push(
      `At step ${a.step}: ${percent(a.accuracy, 1)} of held-out sentences right with scaling, ${percent(b.accuracy, 1)} without` +
        (a.attention && b.attention ? ` (entropy ${fmt(a.attention.entropy, 2)} against ${fmt(b.attention.entropy, 2)} nats).` : '.'),
    );
  const [g1a, g1b] = [gradientAt(scaled, 1), gradientAt(unscaled, 1)];
  const [ma, mb] = [windowMedian(scaled), windowMedian(unscaled)];
  if (g1a !== null && g1b !== null && ma !== null && mb !== null && g1a > 0 && mb > 0) {
    findings.push(
      `The last layer's |∇W_q| at step 1 is ${sci(g1b)} without scaling against ${sci(g1a)} with it: ` +
        `${g1b > g1a ? `${fmt(g1b / g1a, 1)}× larger, not small` : 'smaller from the start'}. ` +
        `Over steps ${GRADIENT_WINDOW[0]}–${GRADIENT_WINDOW[1]} its median is ${sci(mb)} against ${sci(ma)}` +
        (mb < ma ? `: ${fmt(ma / mb, 0)}× smaller once the unscaled softmax has locked in.` : '.'),
    );
  }
  return findings;
}

/** "a", "a and b", "a, b and c" (or with "or"): no Intl.ListFormat, whose first call sets up a locale. */
export function joinList(items: readonly string[], conjunction: 'and' | 'or'): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)!}`;
}

/** A duration as the page prints it: "850 ms", "4.20 s", "21.3 s". */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** How far back (in steps) the end of a run is compared with, for the rate it was still improving at. */
export const RISING_WINDOW = 100;

/**
 * The end of a run against TARGET_ACCURACY: when it got there, or what to try, from this run's own
 * numbers. A suggestion never names a setting already in force: more steps only when the held-out
 * accuracy, rising at the rate of the last RISING_WINDOW steps, would reach the target within the step
 * limit; scaling only when it is off; AdamW only under SGD.
 */
export function targetFinding(
  settings: TrainSettings,
  end: { targetStep: number | null; targetMs: number | null },
  scores: readonly TrainScore[],
): string {
  const target = percent(TARGET_ACCURACY);
  if (end.targetStep !== null && end.targetMs !== null)
    return `It first reached ${target} held-out accuracy at step ${end.targetStep}, after ${duration(end.targetMs)} of computing on your machine.`;
  const last = scores.at(-1);
  const before = last && scores.findLast((s) => s.step <= last.step - RISING_WINDOW);
  const tries: string[] = [];
  let trend = '';
  if (last && before) {
    const change = last.accuracy - before.accuracy;
    trend = `: ${percent(last.accuracy, 1)} at step ${last.step}, ${change > 0 ? 'up' : change < 0 ? 'down' : 'no change'} from ${percent(before.accuracy, 1)} at step ${before.step}`;
    // Steps still needed at the recent rate, in whole scoring intervals.
    const needed =
      change > 0
        ? Math.ceil(((TARGET_ACCURACY - last.accuracy) * (last.step - before.step)) / change / EVALUATE_EVERY) * EVALUATE_EVERY
        : Infinity;
    if (settings.steps + needed <= MAX_TRAIN_STEPS) tries.push(`more steps (at that rate about ${needed} more)`);
  }
  tries.push(`a learning rate other than ${settings.learningRate}`);
  if (!settings.scale) tries.push('scaling by √dₖ');
  if (settings.optimizer === 'sgd') tries.push('AdamW');
  return `It never reached ${target} held-out accuracy${trend}. Try ${joinList(tries, 'or')}.`;
}

/** Row `row` of head `head` of a (heads, n, n) attention tensor. */
function attentionRow(attention: Tensor3, head: number, row: number): Float32Array {
  const start = (head * attention.rows + row) * attention.cols;
  return attention.data.subarray(start, start + attention.cols);
}

function largest(row: Float32Array): number {
  let best = 0;
  for (let c = 1; c < row.length; c++) if (row[c]! > row[best]!) best = c;
  return best;
}

/** The weight a row puts on a set of positions. */
const weightOn = (row: Float32Array, positions: readonly number[]) => positions.reduce((sum, p) => sum + row[p]!, 0);

/** "layer 1's head 2", or "layer 1's head" where the layer has one; the last layer is named as such. */
function headLabel(layer: number, head: number, reading: ProbeReading): string {
  const name = layer === reading.layers.length - 1 ? 'the last layer' : `layer ${layer + 1}`;
  return reading.layers[layer]!.heads > 1 ? `${name}’s head ${head + 1}` : `${name}’s head`;
}

/** The head of `layers` (layer indices) whose row `row` puts the most weight on `positions`. */
function strongestReader(reading: ProbeReading, layers: readonly number[], row: number, positions: readonly number[]) {
  let best = { layer: 0, head: 0, weight: -1 };
  for (const layer of layers)
    for (let head = 0; head < reading.layers[layer]!.heads; head++) {
      const weight = weightOn(attentionRow(reading.layers[layer]!, head, row), positions);
      if (weight > best.weight) best = { layer, head, weight };
    }
  return best;
}

/**
 * Whether the probe's answer and the last layer's attention from the query word agree, in the
 * reading's numbers; when they do not, the route the answer can take instead: an earlier layer that
 * read the answer from the query word (the residual connection keeps what it read), or the attended
 * word's own vector, which read the answer in an earlier layer. Empty before a reading has an answer.
 */
export function answerFinding(reading: ProbeReading): string {
  const answer = reading.top[0];
  const last = reading.layers.at(-1);
  if (!answer || !last) return '';
  const { words, query } = reading;
  const from = quoted(words[query] ?? '');
  const said = `${quoted(answer.word)} (${percent(answer.probability)})`;
  const at = words.flatMap((word, c) => (word === answer.word && !reading.unknown[c] ? [c] : []));
  if (!at.length) return `The model answers ${said}, a word that is not in this sentence, so no attention weight can point at it.`;
  const lastLayer = reading.layers.length - 1;
  // Per head, the word its row weighs most, a word's occurrences counted together ("f" twice in a
  // repeated pattern is one answer), and that word's heaviest position.
  const heads = Array.from({ length: last.heads }, (_, head) => {
    const row = attentionRow(last, head, query);
    const totals = new Map<string, number>();
    words.forEach((w, c) => totals.set(w, (totals.get(w) ?? 0) + row[c]!));
    const [word, weight] = [...totals].reduce((a, b) => (b[1] > a[1] ? b : a));
    const top = largest(row.map((v, c) => (words[c] === word ? v : -1)));
    return { head, word, weight, top, onAnswer: totals.get(answer.word) ?? 0 };
  });
  const agreeing = heads.filter((h) => h.word === answer.word);
  if (agreeing.length)
    return (
      `Answer and attention agree: the model answers ${said}, and ` +
      joinList(
        agreeing.map((h) => `${headLabel(lastLayer, h.head, reading)} puts ${percent(h.weight)} of its weight from ${from} on it`),
        'and',
      ) +
      '.'
    );
  const looks = heads.map(
    (h) =>
      `${headLabel(lastLayer, h.head, reading)} puts ${percent(h.weight)} of its weight from ${from} on ${quoted(h.word)}` +
      ` (${percent(h.onAnswer)} on ${quoted(answer.word)})`,
  );
  const disagree = `Answer and attention disagree: the model answers ${said}, yet ${joinList(looks, 'and')}.`;
  if (lastLayer === 0)
    return `${disagree} With one layer, the answer comes from what the values of the attended words carry and from the vector at ${from} itself, which the residual connection adds to the head’s output.`;
  const earlier = Array.from({ length: lastLayer }, (_, l) => l);
  const direct = strongestReader(reading, earlier, query, at);
  if (direct.weight > ROLE_THRESHOLD)
    return (
      `${disagree} Another route carries it: ${headLabel(direct.layer, direct.head, reading)} puts ${percent(direct.weight)} of its weight from ${from} on ${quoted(answer.word)}, ` +
      `and the residual connection adds each layer’s output to the vector at ${from}, so what layer ${direct.layer + 1} read is still there when the model answers.`
    );
  // The word the last layer reads most may itself have read the answer in an earlier layer.
  const main = heads.reduce((a, b) => (b.weight > a.weight ? b : a));
  const relay = strongestReader(reading, earlier, main.top, at);
  if (relay.weight > ROLE_THRESHOLD)
    return (
      `${disagree} Another route carries it: in ${headLabel(relay.layer, relay.head, reading)}, ${quoted(words[main.top] ?? '')} itself put ${percent(relay.weight)} of its weight on ${quoted(answer.word)}, ` +
      `so the vector the last layer reads there already carries it.`
    );
  return (
    `${disagree} No earlier head reads ${quoted(answer.word)} from ${from} or from ${quoted(words[main.top] ?? '')} either (at most ${percent(Math.max(direct.weight, relay.weight))}): ` +
    'a weight says where a head reads, not what the vector there already carries, and here the answer is carried in the vectors.'
  );
}

/** "your own run (2 layers × 2 heads, d_model 32)", and its twin when a preset compares scaling. */
export function ownRunSummary(settings: TrainSettings): string {
  const twin = settings.compare ? `, beside its twin with scaling ${settings.scale ? 'off' : 'on'}` : '';
  return `your own run (${stackShape(settings)})${twin}`;
}
