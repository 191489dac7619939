// What the experiments of "Train it yourself" found, in sentences made from the numbers the run
// measured (held-out scores, per-head attention scores, |∇W_q|): nothing here is written in advance,
// so the page says what this run did, also where it disagrees with the article. Pure functions of the
// run's messages, so the unit tests feed them a real run at a fixed seed and check the sentences.
import type { HeadScores } from '../engine/training';
import type { TrainScore } from '../workers/train-plan';
import { fmt, percent } from './format';

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
