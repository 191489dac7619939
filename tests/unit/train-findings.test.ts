// The experiments' sentences on the page ("Heads specialise", "Why scale") are made from the run's
// own measurements (features/training/train-findings.ts). Here the presets run through the same TrainingRun the
// worker drives, with the SIMD engine at their fixed seed, and each sentence is checked against the
// numbers recomputed from the messages: what the page says is what the engine measured. So are the
// sentences under the probe (whether the answer and the attention agree, and by which route the
// answer comes when they do not) and the end of a run (never suggesting a setting already in force).
import { beforeAll, describe, expect, it } from 'vitest';
import type { AttentionEngine } from '../../web/src/engine/engine';
import { Trainer } from '../../web/src/engine/training';
import {
  answerFinding,
  describeHeads,
  headFindings,
  headRole,
  roleStep,
  scaleFindings,
  targetFinding,
  type RunRecord,
} from '../../web/src/features/training/train-findings';
import {
  DEFAULT_PROBES,
  EXPERIMENTS,
  experimentOf,
  trainingConfig,
  type TrainSettings,
} from '../../web/src/features/training/train-settings';
import {
  MEASURE_EVERY_STEP_UNTIL,
  TrainingRun,
  type ProbeReading,
  type TrainWorkerMessage,
} from '../../web/src/features/training/train-plan';
import { loadSimdEngine } from './load-engine';

let engine: AttentionEngine;
beforeAll(async () => {
  engine = await loadSimdEngine();
});

type Finished = Extract<TrainWorkerMessage, { type: 'finished' }>;
type MeasuredRun = RunRecord & { finished: Finished; readings: ProbeReading[] };

/** Each run once per file: several tests read the same preset's run (training it costs seconds). */
const runs = new Map<string, Promise<MeasuredRun>>();
function measured(settings: TrainSettings, probes: string[] = []): Promise<MeasuredRun> {
  const key = JSON.stringify([settings, probes]);
  if (!runs.has(key)) runs.set(key, measuredRun(settings, probes));
  return runs.get(key)!;
}
const WIDE = DEFAULT_PROBES['who-is-it'].replace('tired', 'wide');

/**
 * Trains the settings to the end with measuring on, as the page does, and keeps what the step keeps:
 * the record, the end, and the trained model's reading of each probe (the task's own first).
 */
async function measuredRun(settings: TrainSettings, probes: string[]): Promise<MeasuredRun> {
  const trainer = Trainer.create(engine, trainingConfig(settings));
  const messages: TrainWorkerMessage[] = [];
  let clock = 0;
  const run = new TrainingRun(trainer, {
    steps: settings.steps,
    probe: DEFAULT_PROBES[settings.task].split(' '),
    post: (m) => messages.push(m),
    measure: true,
    pace: 'fastest',
    clock: { now: () => (clock += 1), sleep: () => Promise.resolve() },
  });
  run.start();
  await run.resume();
  const finished = messages.at(-1)!;
  expect(finished.type).toBe('finished');
  // The last report, then one per probe: a finished run reads a new probe at once.
  const readings: ProbeReading[] = [];
  for (const probe of [null, ...probes]) {
    if (probe) run.setProbe(probe.split(' '));
    const report = messages.findLast((m) => m.type === 'progress');
    if (report?.type !== 'progress') throw new Error('no probe reading');
    readings.push(report.probe);
  }
  trainer.dispose();
  const record: RunRecord = { scores: [], queryGradients: [] };
  for (const m of messages) {
    if (m.type === 'score') record.scores.push(m);
    if (m.type === 'progress' && m.queryGradient) record.queryGradients.push([m.step, m.queryGradient]);
  }
  return { ...record, finished: finished as Finished, readings };
}

describe('the presets', () => {
  it('are recognised from their settings, and lose the name when one setting changes', () => {
    expect(experimentOf(EXPERIMENTS['who-is-it'])).toBe('who-is-it');
    expect(experimentOf(EXPERIMENTS.heads)).toBe('heads');
    expect(experimentOf(EXPERIMENTS.scale)).toBe('scale');
    expect(experimentOf({ ...EXPERIMENTS.scale, seed: 2 })).toBeNull();
  });
});

describe('Heads specialise, measured', () => {
  it('names each head by its largest score, and dates the roles as the scores show them', async () => {
    const run = await measured(EXPERIMENTS.heads);
    const scored = run.scores.filter((s) => s.attention);
    // Step 0 (the untrained model) and every 25 steps to 800.
    expect(scored.map((s) => s.step)).toEqual(Array.from({ length: 33 }, (_, i) => i * 25));
    const last = scored.at(-1)!.attention!;
    const byHead = (layer: number, head: number) => last.heads.find((h) => h.layer === layer && h.head === head)!;
    // Layer 2's heads look after the earlier copy; a layer-1 head at the previous token (seed 1).
    expect(byHead(1, 0).induction).toBeGreaterThan(0.65);
    expect(byHead(1, 1).induction).toBeGreaterThan(0.65);
    expect(byHead(0, 0).previousToken).toBeGreaterThan(0.7);
    expect(headRole(byHead(1, 0)).role).toBe('induction');
    expect(headRole(byHead(0, 0)).role).toBe('previous-token');
    const lines = describeHeads(last.heads);
    expect(lines[0]).toBe(
      `Layer 1, head 1: a previous-token head: ${Math.round(byHead(0, 0).previousToken * 100)}% of its weight goes to the previous token.`,
    );
    expect(lines[2]).toMatch(
      /^Layer 2, head 1: an induction head: \d+% of its weight goes to the token after an earlier copy of the current one\.$/,
    );

    // The dates, recomputed from the scores: the first scored step past one half.
    const first = (pick: (s: (typeof scored)[number]) => number) => scored.find((s) => pick(s) > 0.5)!.step;
    const induction = Math.min(
      first((s) => s.attention!.heads.find((h) => h.layer === 1 && h.head === 0)!.induction),
      first((s) => s.attention!.heads.find((h) => h.layer === 1 && h.head === 1)!.induction),
    );
    const previous = first((s) => s.attention!.heads.find((h) => h.layer === 0 && h.head === 0)!.previousToken);
    expect(roleStep(scored, 0, 0, 'previous-token')).toBe(previous);
    // Measured: induction near step 75, the previous-token head near step 300: not at the same time.
    expect(induction).toBeLessThanOrEqual(100);
    expect(previous).toBeGreaterThanOrEqual(200);
    const findings = headFindings(run);
    expect(findings).toContain(
      `Here the induction heads formed ${previous - induction} steps before the previous-token head, not at the same time.`,
    );
    expect(findings[0]).toMatch(/^The held-out loss fell most between steps \d+ and \d+ \(\d\.\d\d → \d\.\d\d\)\.$/);
    expect(findings.filter((f) => / became an induction head at step /.test(f))).toHaveLength(2);
  }, 120_000);
});

describe('Why scale, measured', () => {
  it('the unscaled twin starts near one-hot, stalls, and its W_q gradient collapses after a large start', async () => {
    expect(EXPERIMENTS.scale).toMatchObject({ heads: 1, dModel: 64, scale: true, compare: true, steps: 200 });
    const scaled = await measured(EXPERIMENTS.scale, [WIDE]);
    const unscaled = await measured({ ...EXPERIMENTS.scale, scale: false });
    // |∇W_q| is read at every one of the first MEASURE_EVERY_STEP_UNTIL steps.
    expect(scaled.queryGradients.slice(0, MEASURE_EVERY_STEP_UNTIL).map(([s]) => s)).toEqual(
      Array.from({ length: MEASURE_EVERY_STEP_UNTIL }, (_, i) => i + 1),
    );
    const start = (run: RunRecord) => run.scores[0]!.attention!.entropy;
    expect(start(scaled)).toBeGreaterThan(1.7);
    expect(start(unscaled)).toBeLessThan(0.5);
    const end = (run: RunRecord) => run.scores.at(-1)!;
    expect(end(scaled)).toMatchObject({ step: 200 });
    expect(end(scaled).accuracy).toBeGreaterThan(0.98);
    expect(end(unscaled).accuracy).toBeLessThan(0.6);
    const grad = (run: RunRecord, step: number) => run.queryGradients.find(([s]) => s === step)![1].at(-1)!;
    expect(grad(unscaled, 1)).toBeGreaterThan(2 * grad(scaled, 1)); // not small at first

    const findings = scaleFindings(scaled, unscaled);
    expect(findings[0]).toBe(
      `Before any training the scaled model's attention has an entropy of ${start(scaled).toFixed(2)} nats per row, the unscaled one's ${start(unscaled).toFixed(2)}: already close to one-hot.`,
    );
    expect(findings[1]).toMatch(
      new RegExp(
        `^At step 200: ${(end(scaled).accuracy * 100).toFixed(1)}% of held-out sentences right with scaling, ${(end(unscaled).accuracy * 100).toFixed(1)}% without`,
      ),
    );
    expect(findings[2]).toMatch(
      /^The last layer's \|∇W_q\| at step 1 is \S+ without scaling against \S+ with it: [\d.]+× larger, not small\. Over steps 11–50 its median is \S+ against \S+: \d+× smaller once the unscaled softmax has locked in\.$/,
    );
  }, 120_000);
});

/** Row `query` of head `head` in a layer of a reading, as plain numbers. */
const rowOf = (reading: ProbeReading, layer: number, head: number) => {
  const a = reading.layers[layer]!;
  return Array.from(a.data.subarray((head * a.rows + reading.query) * a.cols, (head * a.rows + reading.query + 1) * a.cols));
};
const pct = (v: number) => `${Math.round(v * 100)}%`;

describe('answer and attention, measured', () => {
  it('Why scale: the model answers “animal” while its last layer reads “road”; the page says so and names the route', async () => {
    const { readings, finished, scores } = await measured(EXPERIMENTS.scale, [WIDE]);
    const [reading, swapped] = readings as [ProbeReading, ProbeReading];
    const [animal, road, it] = ['animal', 'road', 'it'].map((w) => reading.words.indexOf(w)) as [number, number, number];
    expect(reading.query).toBe(it);
    // The numbers (seed 1): the answer is the animal, the only last-layer head reads the road, and
    // layer 1's head read the animal from "it".
    expect(reading.top[0]).toMatchObject({ word: 'animal' });
    expect(reading.top[0]!.probability).toBeGreaterThan(0.95);
    const last = rowOf(reading, 1, 0);
    const first = rowOf(reading, 0, 0);
    expect(Math.max(...last)).toBe(last[road]);
    expect(last[road]).toBeGreaterThan(0.9);
    expect(first[animal]).toBeGreaterThan(0.5);
    expect(answerFinding(reading)).toBe(
      `Answer and attention disagree: the model answers “animal” (${pct(reading.top[0]!.probability)}), yet the last layer’s head puts ${pct(last[road]!)} of its weight from “it” on “road” (${pct(last[animal]!)} on “animal”). ` +
        `Another route carries it: layer 1’s head puts ${pct(first[animal]!)} of its weight from “it” on “animal”, and the residual connection adds each layer’s output to the vector at “it”, so what layer 1 read is still there when the model answers.`,
    );
    // With "wide" the answer is the road, where the last layer reads: they agree.
    expect(swapped.top[0]).toMatchObject({ word: 'road' });
    const swappedLast = rowOf(swapped, 1, 0);
    expect(answerFinding(swapped)).toBe(
      `Answer and attention agree: the model answers “road” (${pct(swapped.top[0]!.probability)}), and the last layer’s head puts ${pct(swappedLast[road]!)} of its weight from “it” on it.`,
    );
    // The scaled model reaches the target: the end says when, in this run's numbers.
    expect(finished.targetStep).not.toBeNull();
    expect(targetFinding(EXPERIMENTS.scale, finished, scores)).toMatch(
      new RegExp(`^It first reached 99% held-out accuracy at step ${finished.targetStep}, after \\d+ ms of computing on your machine\\.$`),
    );
  }, 120_000);

  it('Who is “it”?: both last-layer heads read the word the model answers', async () => {
    const { readings } = await measured(EXPERIMENTS['who-is-it']);
    const reading = readings[0]!;
    const animal = reading.words.indexOf('animal');
    expect(reading.top[0]).toMatchObject({ word: 'animal' });
    const heads = [0, 1].map((h) => rowOf(reading, 1, h));
    for (const row of heads) expect(Math.max(...row)).toBe(row[animal]);
    expect(answerFinding(reading)).toBe(
      `Answer and attention agree: the model answers “animal” (${pct(reading.top[0]!.probability)}), and the last layer’s head 1 puts ${pct(heads[0]![animal]!)} of its weight from “it” on it and the last layer’s head 2 puts ${pct(heads[1]![animal]!)} of its weight from “it” on it.`,
    );
  }, 120_000);

  it('Heads specialise: a symbol that occurs twice counts as one answer, its weights added', async () => {
    const reading = (await measured(EXPERIMENTS.heads)).readings[0]!;
    const answer = reading.top[0]!.word;
    const at = reading.words.flatMap((w, c) => (w === answer ? [c] : []));
    // The repeated pattern holds the answer twice; each last-layer head splits its weight between them.
    expect(at.length).toBe(2);
    const onAnswer = [0, 1].map((h) => at.reduce((sum, c) => sum + rowOf(reading, 1, h)[c]!, 0));
    for (const [h, weight] of onAnswer.entries()) {
      expect(Math.max(...at.map((c) => rowOf(reading, 1, h)[c]!))).toBeLessThan(weight);
      expect(weight).toBeGreaterThan(0.5);
    }
    expect(answerFinding(reading)).toBe(
      `Answer and attention agree: the model answers “${answer}” (${pct(reading.top[0]!.probability)}), and the last layer’s head 1 puts ${pct(onAnswer[0]!)} of its weight from “${reading.words[reading.query]}” on it and the last layer’s head 2 puts ${pct(onAnswer[1]!)} of its weight from “${reading.words[reading.query]}” on it.`,
    );
  });
});

describe('the end of a run, measured', () => {
  it('suggests only what is not in force: never scaling when it is on; scaling when it is off', async () => {
    // Heads specialise stays under 99% (tests/unit/train-run.test.ts); it runs scaled, with AdamW.
    const heads = await measured(EXPERIMENTS.heads);
    expect(EXPERIMENTS.heads).toMatchObject({ scale: true, optimizer: 'adamw' });
    expect(heads.finished.targetStep).toBeNull();
    const last = heads.scores.at(-1)!;
    const before = heads.scores.findLast((s) => s.step <= last.step - 100)!;
    // At seed 1 it was still rising over its last 100 steps: at that rate, the steps it would need.
    const change = last.accuracy - before.accuracy;
    expect(change).toBeGreaterThan(0);
    const needed = Math.ceil(((0.99 - last.accuracy) * 100) / change / 25) * 25;
    expect(800 + needed).toBeLessThanOrEqual(5000);
    const percent1 = (v: number) => `${(v * 100).toFixed(1)}%`;
    expect(targetFinding(EXPERIMENTS.heads, heads.finished, heads.scores)).toBe(
      `It never reached 99% held-out accuracy: ${percent1(last.accuracy)} at step 800, up from ${percent1(before.accuracy)} at step 700. ` +
        `Try more steps (at that rate about ${needed} more) or a learning rate other than 0.01.`,
    );
    // The unscaled twin of Why scale stalls: there scaling is the first thing to try.
    const unscaledSettings = { ...EXPERIMENTS.scale, scale: false };
    const unscaled = await measured(unscaledSettings);
    expect(unscaled.finished.targetStep).toBeNull();
    const sentence = targetFinding(unscaledSettings, unscaled.finished, unscaled.scores);
    expect(sentence).toMatch(
      /^It never reached 99% held-out accuracy: [\d.]+% at step 200, (up|down|no change) from [\d.]+% at step 100\. Try /,
    );
    expect(sentence).toMatch(/a learning rate other than 0\.003 or scaling by √dₖ\.$/);
    // Under SGD at the step limit: neither more steps nor scaling is offered, AdamW is.
    const sgd = { ...EXPERIMENTS.heads, optimizer: 'sgd' as const, steps: 5000 };
    expect(targetFinding(sgd, heads.finished, heads.scores)).toMatch(/\. Try a learning rate other than 0\.01 or AdamW\.$/);
  }, 180_000);
});
