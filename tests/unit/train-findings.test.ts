// The experiments' sentences on the page ("Heads specialise", "Why scale") are made from the run's
// own measurements (figures/train-findings.ts). Here the presets run through the same TrainingRun the
// worker drives, with the SIMD engine at their fixed seed, and each sentence is checked against the
// numbers recomputed from the messages: what the page says is what the engine measured.
import { beforeAll, describe, expect, it } from 'vitest';
import type { AttentionEngine } from '../../web/src/engine/engine';
import { Trainer } from '../../web/src/engine/training';
import { describeHeads, headFindings, headRole, roleStep, scaleFindings, type RunRecord } from '../../web/src/figures/train-findings';
import { DEFAULT_PROBES, EXPERIMENTS, experimentOf, trainingConfig, type TrainSettings } from '../../web/src/train-settings';
import { MEASURE_EVERY_STEP_UNTIL, TrainingRun, type TrainWorkerMessage } from '../../web/src/workers/train-plan';
import { loadSimdEngine } from './load-engine';

let engine: AttentionEngine;
beforeAll(async () => {
  engine = await loadSimdEngine();
});

/** Trains the settings to the end with measuring on, as the page does, and keeps what the step keeps. */
async function measuredRun(settings: TrainSettings): Promise<RunRecord> {
  const trainer = Trainer.create(engine, trainingConfig(settings));
  const messages: TrainWorkerMessage[] = [];
  let clock = 0;
  const run = new TrainingRun(
    trainer,
    settings.steps,
    DEFAULT_PROBES[settings.task].split(' '),
    (m) => messages.push(m),
    () => (clock += 1),
    () => Promise.resolve(),
    true,
  );
  run.start();
  await run.resume();
  trainer.dispose();
  const record: RunRecord = { scores: [], queryGradients: [] };
  for (const m of messages) {
    if (m.type === 'score') record.scores.push(m);
    if (m.type === 'progress' && m.queryGradient) record.queryGradients.push([m.step, m.queryGradient]);
  }
  expect(messages.at(-1)!.type).toBe('finished');
  return record;
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
    const run = await measuredRun(EXPERIMENTS.heads);
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
    const scaled = await measuredRun(EXPERIMENTS.scale);
    const unscaled = await measuredRun({ ...EXPERIMENTS.scale, scale: false });
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
