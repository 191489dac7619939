// A training run in the reader's tab: the messages between the page and its training worker
// (train-worker.ts), and the run itself (TrainingRun), which the worker drives and the unit tests
// drive the same way with a Node engine and a clock of their own. The run trains in chunks, posts
// progress after each, reads the probe sentence's attention after each (the map sharpens as it
// learns) and scores the held-out set every EVALUATE_EVERY steps and at the end. Its pace (PACES) is
// how it is shown, not how fast the maths runs: a paced run trains a few steps at full speed, posts
// them, and waits, so a reader can watch the loss fall and the heads change. Between chunks it gives
// the worker's event loop a turn, so Pause, Step, a new pace and a new probe arrive while it trains.
import type { AttentionScores, Evaluation, SentenceAnalysis, StepReport, Trainer, TrainingConfig } from '../../engine/training';
import type { Tensor3 } from '../../engine/types';

/** Work per chunk at full speed: short enough that Pause acts at once, long enough that messages cost nothing. */
export const CHUNK_MS = 40;
/** The most steps one chunk trains (the core's limit per call is larger). */
const MAX_CHUNK_STEPS = 200;

/**
 * How a run is shown: a paced run trains its steps in at most UPDATES_PER_RUN updates (stepsPerUpdate)
 * and starts one every `intervalMs`, so at "normal" a run of 80 steps or more unfolds over about 20 s
 * whatever its length; "fastest" trains chunks of about CHUNK_MS back to back.
 */
export const PACES = Object.freeze({
  slow: { label: 'Slow', intervalMs: 500 },
  normal: { label: 'Normal', intervalMs: 250 },
  fast: { label: 'Fast', intervalMs: 60 },
  fastest: { label: 'As fast as possible', intervalMs: 0 },
} as const satisfies Record<string, { label: string; intervalMs: number }>);
export type Pace = keyof typeof PACES;
export const PACE_NAMES = Object.keys(PACES) as Pace[];
export const DEFAULT_PACE: Pace = 'normal';
/** A paced run's number of updates (fewer when it has fewer steps): enough to watch a curve being drawn. */
export const UPDATES_PER_RUN = 80;

export function isPace(value: unknown): value is Pace {
  return typeof value === 'string' && Object.hasOwn(PACES, value);
}

/** The steps a paced run of `steps` trains per update. */
export function stepsPerUpdate(steps: number): number {
  return Math.max(1, Math.ceil(steps / UPDATES_PER_RUN));
}

/** How long a run of `steps` takes to show at `pace` when the maths keeps up (0 at full speed). */
export function pacedMs(steps: number, pace: Pace): number {
  return Math.ceil(steps / stepsPerUpdate(steps)) * PACES[pace].intervalMs;
}

/** What a run reads the time from and waits on: the worker's timers, or a clock a test advances. */
export interface RunClock {
  /** Milliseconds, for the time the maths takes. */
  now(): number;
  /** Resolves after `ms` milliseconds (0: after giving the event loop a turn). */
  sleep(ms: number): Promise<void>;
}

export const timerClock: RunClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
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
  pace: Pace;
}

/** Steps trained one at a time while measuring, so |∇W_q| is read at every one of them (its collapse is fast). */
export const MEASURE_EVERY_STEP_UNTIL = 50;

export type TrainControlRequest =
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'step' }
  | { type: 'probe'; words: string[] }
  /** Show the rest of the run at another pace, from its next update. */
  | { type: 'pace'; pace: Pace }
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
  /** Each layer's attention (heads, n, n), the first layer first: the page draws the last one's row at `query`. */
  layers: Tensor3[];
}

export interface TrainProgress {
  step: number;
  /** Training loss, the mean over the last chunk's steps; null before the first step. */
  loss: number | null;
  gradientNorm: number | null;
  /** Time spent computing steps (waits and paused time excluded), and the rate over it. */
  elapsedMs: number;
  stepsPerSecond: number;
  /** How long the rest of the run takes to show at the current pace, from the rate so far; null before a step. */
  leftMs: number | null;
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
  return {
    words: analysis.words,
    unknown: Array.from(analysis.unknown, (u) => u === 1),
    query: analysis.query,
    top: analysis.top.map((t) => ({ word: t.word, probability: t.probability })),
    layers: analysis.layers.map(({ attention: a }) => ({ heads: a.heads, rows: a.rows, cols: a.cols, data: a.data.slice() })),
  };
}

/** Steps for the next chunk at full speed: what fits in CHUNK_MS at the rate measured so far, within what is left. */
export function chunkSteps(msPerStep: number, left: number): number {
  const fit = msPerStep > 0 && Number.isFinite(msPerStep) ? Math.floor(CHUNK_MS / msPerStep) : 1;
  return Math.max(1, Math.min(left, fit, MAX_CHUNK_STEPS));
}

/** What a run is asked to do, and where its messages and its time come from. */
export interface RunOptions {
  steps: number;
  probe: string[];
  post: (message: TrainWorkerMessage) => void;
  /** Measure the heads and |∇W_q| (TrainStartRequest.measure). */
  measure?: boolean;
  pace?: Pace;
  clock?: RunClock;
}

export class TrainingRun {
  private done = 0;
  private elapsed = 0;
  private running = false;
  /** Which resume() trains: a Pause and a Resume while one waits start another, and the waiting one ends. */
  private turn = 0;
  private stopped = false;
  /** After a diverged loss or an engine error the weights are not worth reading. */
  private broken = false;
  private probeWords: string[];
  private targetStep: number | null = null;
  private targetMs: number | null = null;
  private lastScore: (Evaluation & { step: number }) | null = null;
  private readonly steps: number;
  private readonly post: (message: TrainWorkerMessage) => void;
  private readonly measure: boolean;
  private readonly clock: RunClock;
  private pace: Pace;

  constructor(
    private readonly trainer: RunTrainer,
    options: RunOptions,
  ) {
    this.steps = options.steps;
    this.probeWords = options.probe;
    this.post = options.post;
    this.measure = options.measure === true;
    this.pace = options.pace ?? DEFAULT_PACE;
    this.clock = options.clock ?? timerClock;
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

  /** Trains until the run's steps are done, Pause, or a diverged loss: one update, then a wait, and again. */
  async resume(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    const turn = ++this.turn;
    while (this.running && turn === this.turn && !this.stopped && this.done < this.steps) {
      const began = this.clock.now();
      const { intervalMs } = PACES[this.pace];
      if (intervalMs === 0) this.chunk(this.chunkLength(chunkSteps(this.msPerStep(), this.steps - this.done)));
      else {
        const target = Math.min(this.steps, this.done + stepsPerUpdate(this.steps));
        while (!this.stopped && this.done < target) this.chunk(this.chunkLength(target - this.done));
      }
      await this.clock.sleep(Math.max(0, intervalMs - (this.clock.now() - began)));
    }
    if (turn !== this.turn) return;
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

  setPace(pace: Pace): void {
    this.pace = pace;
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

  private msPerStep(): number {
    return this.done > 0 ? this.elapsed / this.done : 0;
  }

  /**
   * The steps of the next chunk, at most `limit`: one at a time while measuring the first steps (|∇W_q|
   * is read at each), and never past the next multiple of EVALUATE_EVERY, so every score lands on one.
   */
  private chunkLength(limit: number): number {
    if (this.measure && this.done < MEASURE_EVERY_STEP_UNTIL) return 1;
    return Math.max(1, Math.min(limit, EVALUATE_EVERY - (this.done % EVALUATE_EVERY), MAX_CHUNK_STEPS));
  }

  /** The rest of the run at the current pace: each update takes its interval, or longer when the maths does. */
  private leftMs(): number | null {
    if (this.done === 0) return null;
    const left = this.steps - this.done;
    const { intervalMs } = PACES[this.pace];
    if (intervalMs === 0) return left * this.msPerStep();
    const perUpdate = stepsPerUpdate(this.steps);
    return Math.ceil(left / perUpdate) * Math.max(intervalMs, perUpdate * this.msPerStep());
  }

  private chunk(count: number): void {
    const begin = this.clock.now();
    let report: StepReport;
    try {
      report = this.trainer.step(count);
    } catch (error) {
      this.stop();
      this.broken = true;
      this.post({ type: 'error', message: (error as Error).message });
      return;
    }
    this.elapsed += this.clock.now() - begin;
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
      leftMs: this.leftMs(),
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
