// The "Train it yourself" step's settings: what the reader may change about a training run, checked
// at one boundary like the walkthrough's settings (settings.ts). Loosely typed values in (a form
// field, an attribute), settings the training core accepts out, and a sentence for each change made.
// The bounds are the core's own (cpp/train/model.h and trainer.h, read by engine/limits.ts).
import { ENGINE_LIMITS, TRAINING_LIMITS } from './engine/limits';
import type { TrainingConfig, TrainingTask } from './engine/training';
import { clampWhole as whole, parseFlag as flag, shorten, type RawValue as Raw } from './settings';

export const TRAIN_TASKS = ['who-is-it', 'induction'] as const satisfies readonly TrainingTask[];
export const OPTIMIZERS = ['adamw', 'sgd'] as const;
export type Optimizer = (typeof OPTIMIZERS)[number];

export interface TrainSettings {
  task: TrainingTask;
  layers: number;
  heads: number;
  dModel: number;
  optimizer: Optimizer;
  learningRate: number;
  scale: boolean;
  seed: number;
  /** How many steps the run trains for. */
  steps: number;
  /** Also train a twin with scaling the other way: same seed, same data ("Why scale"). */
  compare: boolean;
}

/** The shipped model's recipe (web/src/model/who-is-it.args): the reader's first run retrains it. */
export const DEFAULT_TRAIN_SETTINGS: Readonly<TrainSettings> = Object.freeze({
  task: 'who-is-it',
  layers: 2,
  heads: 2,
  dModel: 32,
  optimizer: 'adamw',
  learningRate: 0.003,
  scale: true,
  seed: 1,
  steps: 400,
  compare: false,
});

/** The d_model choices the form offers (every one the core accepts is valid in an attribute). */
export const TRAIN_D_MODELS = [8, 16, 32, 64, 128].filter((d) => d >= TRAINING_LIMITS.minDModel && d <= TRAINING_LIMITS.maxDModel);

/** The most steps one run may ask for: the core's whole-run limit, kept short enough to watch. */
export const MAX_TRAIN_STEPS = Math.min(TRAINING_LIMITS.maxTotalSteps, 5000);

export interface ValidatedTrainSettings {
  settings: TrainSettings;
  notices: string[];
}

function choice<T extends string>(raw: Raw, name: string, choices: readonly T[], fallback: T, notices: string[]): T {
  if (raw === undefined || raw === null) return fallback;
  const value = String(raw).trim().toLowerCase();
  if ((choices as readonly string[]).includes(value)) return value as T;
  notices.push(`${name} must be ${choices.join(' or ')}; “${shorten(String(raw))}” was ignored, so it stays ${fallback}.`);
  return fallback;
}

/** The smallest learning rate accepted (the largest is the core's kMaxLearningRate). */
export const MIN_LEARNING_RATE = 1e-5;

function learningRate(raw: Raw, fallback: number, notices: string[]): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const value = typeof raw === 'number' ? raw : Number(String(raw).trim());
  if (!Number.isFinite(value)) {
    notices.push(`The learning rate must be a number; “${shorten(String(raw))}” was ignored, so it stays ${fallback}.`);
    return fallback;
  }
  const max = TRAINING_LIMITS.maxLearningRate;
  if (value < MIN_LEARNING_RATE || value > max) {
    const clamped = Math.min(max, Math.max(MIN_LEARNING_RATE, value));
    notices.push(
      `The learning rate must be from ${MIN_LEARNING_RATE} to ${max}` +
        `${value <= 0 ? ' (at 0 or below nothing is learned, or the loss climbs)' : ''}; ${value} was changed to ${clamped}.`,
    );
    return clamped;
  }
  return value;
}

export function validateTrainSettings(
  raw: Partial<Record<keyof TrainSettings, Raw>>,
  base: TrainSettings = DEFAULT_TRAIN_SETTINGS,
): ValidatedTrainSettings {
  const notices: string[] = [];
  const task = choice(raw.task, 'The task', TRAIN_TASKS, base.task, notices);
  const layers = whole(raw.layers, 'The number of layers', 1, TRAINING_LIMITS.maxLayers, base.layers, notices);
  const dModel = whole(raw.dModel, 'd_model', TRAINING_LIMITS.minDModel, TRAINING_LIMITS.maxDModel, base.dModel, notices);
  let heads = whole(raw.heads, 'The number of heads', 1, TRAINING_LIMITS.maxHeads, base.heads, notices);
  if (dModel % heads !== 0) {
    const fits = Array.from({ length: TRAINING_LIMITS.maxHeads }, (_, i) => i + 1).filter((h) => dModel % h === 0);
    const nearest = fits.reduce((best, h) => (Math.abs(h - heads) < Math.abs(best - heads) ? h : best), 1);
    notices.push(`${heads} heads do not divide d_model = ${dModel}, so ${nearest} ${nearest === 1 ? 'head is' : 'heads are'} used.`);
    heads = nearest;
  }
  const optimizer = choice(raw.optimizer, 'The optimiser', OPTIMIZERS, base.optimizer, notices);
  const rate = learningRate(raw.learningRate, base.learningRate, notices);
  const scale = flag(raw.scale, 'Scaling', base.scale, notices);
  const seed = whole(raw.seed, 'The seed', 0, ENGINE_LIMITS.maxSeed, base.seed, notices);
  const steps = whole(raw.steps, 'The number of steps', 1, MAX_TRAIN_STEPS, base.steps, notices);
  const compare = flag(raw.compare, 'Training a twin', base.compare, notices);
  return { settings: { task, layers, heads, dModel, optimizer, learningRate: rate, scale, seed, steps, compare }, notices };
}

/**
 * The defaults a task starts from: the shipped recipe with the task's own learning rate and length
 * (TASK_RECIPES), so a link or an attribute naming only the task gets a run that suits it.
 */
export function trainDefaultsFor(task: TrainingTask): TrainSettings {
  return { ...DEFAULT_TRAIN_SETTINGS, task, ...TASK_RECIPES[task] };
}

/**
 * A change to the current settings (a form field, an attribute): a new task brings its recipe's learning
 * rate and steps unless the change names them too.
 */
export function changeTrainSettings(current: TrainSettings, change: Partial<Record<keyof TrainSettings, Raw>>): ValidatedTrainSettings {
  const validated = validateTrainSettings({ ...current, ...change }, current);
  const { task } = validated.settings;
  if (task === current.task) return validated;
  const recipe = TASK_RECIPES[task];
  return {
    settings: {
      ...validated.settings,
      learningRate: change.learningRate === undefined ? recipe.learningRate : validated.settings.learningRate,
      steps: change.steps === undefined ? recipe.steps : validated.settings.steps,
    },
    notices: validated.notices,
  };
}

/**
 * The URL parameter of each setting. The train_ prefix keeps them apart from the walkthrough's own
 * d_model, heads, scale and seed, which describe a different model.
 */
export const TRAIN_PARAMS = Object.freeze({
  task: 'train_task',
  layers: 'train_layers',
  heads: 'train_heads',
  dModel: 'train_d_model',
  optimizer: 'train_optimizer',
  learningRate: 'train_lr',
  scale: 'train_scale',
  seed: 'train_seed',
  steps: 'train_steps',
  compare: 'train_compare',
} as const satisfies Record<keyof TrainSettings, string>);

/** The attribute of each setting on <attention-train> (HTML spells multi-word names with dashes). */
export const TRAIN_ATTRIBUTES = Object.freeze({
  task: 'task',
  layers: 'layers',
  heads: 'heads',
  dModel: 'd-model',
  optimizer: 'optimizer',
  learningRate: 'learning-rate',
  scale: 'scale',
  seed: 'seed',
  steps: 'steps',
  compare: 'compare',
} as const satisfies Record<keyof TrainSettings, string>);

/**
 * Settings from named string values (URL parameters or attributes, `read` returns null for an absent one).
 * The task is read first: the others fall back to its defaults.
 */
export function trainSettingsFrom(
  read: (name: string) => string | null,
  names: Readonly<Record<keyof TrainSettings, string>>,
): ValidatedTrainSettings {
  const raw: Partial<Record<keyof TrainSettings, Raw>> = {};
  for (const key of Object.keys(names) as (keyof TrainSettings)[]) {
    const value = read(names[key]);
    if (value !== null) raw[key] = value;
  }
  const task = validateTrainSettings({ task: raw.task }).settings.task;
  return validateTrainSettings(raw, trainDefaultsFor(task));
}

/** The parameters (or attributes) that reproduce these settings: only those that differ from the task's defaults. */
export function trainSettingsTo(settings: TrainSettings, names: Readonly<Record<keyof TrainSettings, string>>): [string, string][] {
  const defaults = trainDefaultsFor(settings.task);
  const out: [string, string][] = [];
  for (const key of Object.keys(names) as (keyof TrainSettings)[]) {
    const value = settings[key];
    if (value === defaults[key] && key !== 'task') continue;
    if (key === 'task' && value === DEFAULT_TRAIN_SETTINGS.task) continue;
    out.push([names[key], typeof value === 'boolean' ? (value ? '1' : '0') : String(value)]);
  }
  return out;
}

/** The training core's configuration for these settings. */
export function trainingConfig(settings: TrainSettings): TrainingConfig {
  return {
    task: settings.task,
    layers: settings.layers,
    heads: settings.heads,
    dModel: settings.dModel,
    optimizer: settings.optimizer,
    learningRate: settings.learningRate,
    scale: settings.scale,
    seed: settings.seed,
  };
}

/**
 * What choosing a task sets besides it: a learning rate and a length that suit it (measured with the
 * engine at seed 1: who-is-it reaches 100% held-out by step 250; induction climbs to about 95% by
 * step 800 at 0.01, and stays lower at 0.003).
 */
export const TASK_RECIPES: Readonly<Record<TrainingTask, Pick<TrainSettings, 'learningRate' | 'steps'>>> = Object.freeze({
  'who-is-it': { learningRate: DEFAULT_TRAIN_SETTINGS.learningRate, steps: DEFAULT_TRAIN_SETTINGS.steps },
  induction: { learningRate: 0.01, steps: 800 },
});

/** The probe sentence a task starts with: the article's question, or a repeated segment. */
export const DEFAULT_PROBES: Readonly<Record<TrainingTask, string>> = Object.freeze({
  'who-is-it': 'the animal crossed the road because it was tired',
  induction: 'c a f b d c a f b d c a',
});

/**
 * The three experiments, each a set of settings (README, "Train it yourself"). Measured with the engine
 * at seed 1 (tests/unit/training.test.ts, train-run.test.ts):
 * - "who-is-it": the shipped recipe; 99% held-out at step 225.
 * - "heads": induction, 2 layers × 2 heads, AdamW 0.01: layer 2's heads attend to the token after an
 *   earlier copy (induction score past 0.5 near step 70) well before a layer-1 head attends to the
 *   previous token (past 0.5 near step 300).
 * - "scale": 1 head at d_model 64 (so d_k = 64), scaled and unscaled side by side: the unscaled twin
 *   starts near one-hot (entropy about 0.35 against 1.9 nats) and is near 40% at step 200, the scaled one 100%.
 */
export const EXPERIMENTS = Object.freeze({
  'who-is-it': { ...DEFAULT_TRAIN_SETTINGS },
  heads: { ...trainDefaultsFor('induction') },
  scale: { ...DEFAULT_TRAIN_SETTINGS, heads: 1, dModel: 64, steps: 200, compare: true },
} satisfies Record<string, TrainSettings>);
export type ExperimentName = keyof typeof EXPERIMENTS;
export const EXPERIMENT_NAMES = Object.keys(EXPERIMENTS) as ExperimentName[];

/** The experiment these settings are, or null once the reader has changed one of its settings. */
export function experimentOf(settings: TrainSettings): ExperimentName | null {
  return (
    EXPERIMENT_NAMES.find((name) =>
      (Object.keys(settings) as (keyof TrainSettings)[]).every((key) => EXPERIMENTS[name][key] === settings[key]),
    ) ?? null
  );
}
