// A training run in the reader's tab: the messages between the page and its training worker
// (train-worker.ts), and the run itself (TrainingRun), which the worker drives and the unit tests
// drive the same way with a Node engine. The run trains in chunks of about CHUNK_MS, posts progress
// after each, reads the probe sentence's attention after each (the map sharpens as it learns) and
// scores the held-out set every EVALUATE_EVERY steps and at the end. Between chunks it gives the
// worker's event loop a turn, so Pause, Step and a new probe arrive while it trains.
import type { AttentionScores, Evaluation, SentenceAnalysis, StepReport, Trainer, TrainingConfig } from '../engine/training';
import type { Tensor3 } from '../engine/types';

/** Work per chunk: short enough that Pause acts at once, long enough that messages cost nothing. */
export const CHUNK_MS = 40;
/** Held-out accuracy is measured this often (in steps), and when the run ends. */
export const EVALUATE_EVERY = 25;
/** The accuracy a run is said to have reached its target at. */
export const TARGET_ACCURACY = 0.99;

export interface TrainStartRequest {
  type: 'start';
  config: TrainingConfig;
  steps: number;
  probe: string[];
  /** The page's engine URL: an author's bundler may have renamed the .wasm. */
  wasmUrl: string;
  /** Measure what the heads do (TrainScore.attention) and |∇W_q| (TrainProgress.queryGradient): the experiments. */
  measure?: boolean;
}

/** Steps trained one at a time while measuring, so |∇W_q| is read at every one of them (its collapse is fast). */
export const MEASURE_EVERY_STEP_UNTIL = 50;

export type TrainControlRequest =
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'step' }
  | { type: 'probe'; words: string[] }
  /** Send the weights as they are now (a 'weights' message), for the walkthrough. */
  | { type: 'export' };
export type TrainRequest = TrainStartRequest | TrainControlRequest;

/** The probe sentence as the model now reads it. */
export interface ProbeReading {
  words: string[];
  unknown: boolean[];
  /** The position the prediction is made at ("it", or the last word). */
  query: number;
  top: { word: string; probability: number }[];
  /** The last layer's attention (heads, n, n). */
  attention: Tensor3;
}

export interface TrainProgress {
  step: number;
  /** Training loss, the mean over the last chunk's steps; null before the first step. */
  loss: number | null;
  gradientNorm: number | null;
  /** Time spent training (paused time excluded), and the rate over it. */
  elapsedMs: number;
  stepsPerSecond: number;
  running: boolean;
  probe: ProbeReading;
  /** When measuring: |∂loss/∂W_q| per layer at the chunk's last step, before clipping. */
  queryGradient?: number[];
}

export interface TrainScore {
  step: number;
  accuracy: number;
  loss: number;
  /** When measuring: per head previous-token, induction, self, first and entropy, over the held-out set. */
  attention?: AttentionScores;
}

export type TrainWorkerMessage =
  /** The model is made: its size and the batch the core trains it with. */
  | { type: 'ready'; parameterCount: number; batch: number }
  | ({ type: 'progress' } & TrainProgress)
  | ({ type: 'score' } & TrainScore)
  /** The run stopped between chunks after a Pause. */
  | { type: 'paused'; step: number }
  | { type: 'finished'; step: number; elapsedMs: number; accuracy: number; targetStep: number | null; targetMs: number | null }
  | { type: 'diverged'; step: number; message: string }
  | ({ type: 'weights' } & ExportedWeights)
  /** The worker died and the service started a new one: the run begins again at step 0. */
  | { type: 'restarted'; message: string }
  | { type: 'error'; message: string };

/** The run's model as a weights file (weights_file.h), with what was last measured of it. */
export interface ExportedWeights {
  bytes: Uint8Array;
  step: number;
  /** The held-out score at `step`. */
  evaluation: Evaluation;
  /** The first step that scored at least TARGET_ACCURACY, or null. */
  targetStep: number | null;
}

/** What the run needs of a Trainer: tests may pass the real one. */
export type RunTrainer = Pick<Trainer, 'step' | 'evaluate' | 'analyze' | 'dispose' | 'exportWeights'> &
  Partial<Pick<Trainer, 'attentionScores' | 'queryGradientNorms'>>;

export function probeReading(analysis: SentenceAnalysis): ProbeReading {
  const last = analysis.layers.at(-1)!.attention;
  return {
    words: analysis.words,
    unknown: Array.from(analysis.unknown, (u) => u === 1),
    query: analysis.query,
    top: analysis.top.map((t) => ({ word: t.word, probability: t.probability })),
    attention: { heads: last.heads, rows: last.rows, cols: last.cols, data: last.data.slice() },
  };
}

/** Steps for the next chunk: what fits in CHUNK_MS at the rate measured so far, within what is left. */
export function chunkSteps(msPerStep: number, left: number): number {
  const fit = msPerStep > 0 && Number.isFinite(msPerStep) ? Math.floor(CHUNK_MS / msPerStep) : 1;
  return Math.max(1, Math.min(left, fit, 200));
}

export class TrainingRun {
  private done = 0;
  private elapsed = 0;
  private running = false;
  private stopped = false;
  /** After a diverged loss or an engine error the weights are not worth reading. */
  private broken = false;
  private probeWords: string[];
  private targetStep: number | null = null;
  private targetMs: number | null = null;
  private lastScore: (Evaluation & { step: number }) | null = null;

  constructor(
    private readonly trainer: RunTrainer,
    private readonly steps: number,
    probe: string[],
    private readonly post: (message: TrainWorkerMessage) => void,
    private readonly now: () => number = () => performance.now(),
    /** Gives the event loop a turn between chunks. */
    private readonly pause: () => Promise<void> = () => new Promise((resolve) => setTimeout(resolve, 0)),
    private readonly measure = false,
  ) {
    this.probeWords = probe;
  }

  get step(): number {
    return this.done;
  }

  /** The weights now, or null when the run broke (a diverged loss, an engine error): they are not worth using. */
  exportWeights(): ExportedWeights | null {
    if (this.broken) return null;
    const evaluation = this.lastScore?.step === this.done ? this.lastScore : { ...this.trainer.evaluate(), step: this.done };
    return {
      bytes: this.trainer.exportWeights(),
      step: this.done,
      evaluation: { accuracy: evaluation.accuracy, loss: evaluation.loss, examples: evaluation.examples, positions: evaluation.positions },
      targetStep: this.targetStep,
    };
  }

  /** Trains until the run's steps are done, Pause, or a diverged loss. */
  async resume(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    while (this.running && !this.stopped && this.done < this.steps) {
      // A chunk ends at the next multiple of EVALUATE_EVERY at the latest, so every score lands on one.
      const toNextScore = EVALUATE_EVERY - (this.done % EVALUATE_EVERY);
      const fit = chunkSteps(this.done > 0 ? this.elapsed / this.done : 0, Math.min(toNextScore, this.steps - this.done));
      this.chunk(this.measure && this.done < MEASURE_EVERY_STEP_UNTIL ? 1 : fit);
      await this.pause();
    }
    const paused = !this.running;
    this.running = false;
    if (this.stopped) return;
    if (this.done >= this.steps) this.finish();
    else if (paused) this.post({ type: 'paused', step: this.done });
  }

  pauseRun(): void {
    if (!this.running) return;
    this.running = false;
  }

  /** One step while paused. */
  stepOnce(): void {
    if (this.running || this.stopped || this.done >= this.steps) return;
    this.chunk(1);
    if (this.done >= this.steps) this.finish();
  }

  setProbe(words: string[]): void {
    this.probeWords = words;
    // A finished run still answers for a new probe; a running one does at its next chunk.
    if (!this.running && !this.broken) this.report(null);
  }

  /** The first report, before any step: the untrained model's attention on the probe. */
  start(): void {
    if (this.measure) this.score(); // the untrained model: how sharp its attention starts
    this.report(null);
  }

  private chunk(count: number): void {
    const begin = this.now();
    let report: StepReport;
    try {
      report = this.trainer.step(count);
    } catch (error) {
      this.stop();
      this.broken = true;
      this.post({ type: 'error', message: (error as Error).message });
      return;
    }
    this.elapsed += this.now() - begin;
    this.done = report.step;
    if (!Number.isFinite(report.meanLoss) || !Number.isFinite(report.gradientNorm)) {
      this.stop();
      this.broken = true;
      this.post({
        type: 'diverged',
        step: this.done,
        message: `The loss became ${Number.isNaN(report.meanLoss) ? 'NaN' : 'infinite'} at step ${this.done}: the learning rate is too large for this model. Reset, lower it, and start again.`,
      });
      return;
    }
    if (this.done % EVALUATE_EVERY === 0) this.score();
    this.report(report);
  }

  private score(): void {
    const evaluation = this.trainer.evaluate();
    this.lastScore = { ...evaluation, step: this.done };
    if (this.targetStep === null && evaluation.accuracy >= TARGET_ACCURACY) {
      this.targetStep = this.done;
      this.targetMs = this.elapsed;
    }
    const attention = this.measure ? this.trainer.attentionScores?.() : undefined;
    this.post({
      type: 'score',
      step: this.done,
      accuracy: evaluation.accuracy,
      loss: evaluation.loss,
      ...(attention ? { attention } : {}),
    });
  }

  private report(report: StepReport | null): void {
    let probe: ProbeReading;
    try {
      probe = probeReading(this.trainer.analyze(this.probeWords.length ? this.probeWords : ['it'], 3));
    } catch (error) {
      this.post({ type: 'error', message: (error as Error).message });
      return;
    }
    this.post({
      type: 'progress',
      step: this.done,
      loss: report ? report.meanLoss : null,
      gradientNorm: report ? report.gradientNorm : null,
      elapsedMs: this.elapsed,
      stepsPerSecond: this.elapsed > 0 ? (1000 * this.done) / this.elapsed : 0,
      running: this.running,
      probe,
      ...(this.measure && report ? { queryGradient: this.trainer.queryGradientNorms?.() ?? [] } : {}),
    });
  }

  private finish(): void {
    if (this.lastScore?.step !== this.done) this.score();
    this.post({
      type: 'finished',
      step: this.done,
      elapsedMs: this.elapsed,
      accuracy: this.lastScore!.accuracy,
      targetStep: this.targetStep,
      targetMs: this.targetMs,
    });
    this.stop();
  }

  stop(): void {
    this.running = false;
    this.stopped = true;
  }
}
