// The "Train it yourself" step's settings: what the reader may change about a training run, checked
// at one boundary like the walkthrough's settings (settings.ts). Loosely typed values in (a form
// field, an attribute), settings the training core accepts out, and a sentence for each change made.
// The bounds are the core's own (cpp/train/model.h and trainer.h, read by engine/limits.ts).
import { TRAINING_LIMITS } from '../../engine/limits';
import type { TrainingConfig, TrainingTask } from '../../engine/training';
import { checkSetting, type RawValue as Raw } from '../../setting-checks';
import { attributesOf, defaultsOf, paramsOf, TRAIN_SETTINGS, type SettingsOf } from '../../settings-schema';

export { MAX_TRAIN_STEPS, MIN_LEARNING_RATE, OPTIMIZERS, TRAIN_TASKS } from '../../settings-schema';

/** A training run's settings, one per entry of TRAIN_SETTINGS (settings-schema.ts, which documents each). */
export type TrainSettings = SettingsOf<typeof TRAIN_SETTINGS>;
export type Optimizer = TrainSettings['optimizer'];

/** The shipped model's recipe (web/src/model/who-is-it.args): the reader's first run retrains it. */
export const DEFAULT_TRAIN_SETTINGS: Readonly<TrainSettings> = defaultsOf(TRAIN_SETTINGS);

const TRAIN_KEYS = Object.keys(TRAIN_SETTINGS) as (keyof TrainSettings)[];

/** The d_model choices the form offers (every one the core accepts is valid in an attribute). */
export const TRAIN_D_MODELS = [8, 16, 32, 64, 128].filter((d) => d >= TRAINING_LIMITS.minDModel && d <= TRAINING_LIMITS.maxDModel);

export interface ValidatedTrainSettings {
  settings: TrainSettings;
  notices: string[];
}

/** The head count nearest `heads` that divides d_model (the core splits d_model evenly between heads). */
function headsDividing(dModel: number, heads: number, notices: string[]): number {
  if (dModel % heads === 0) return heads;
  const fits = Array.from({ length: TRAINING_LIMITS.maxHeads }, (_, i) => i + 1).filter((h) => dModel % h === 0);
  const nearest = fits.reduce((best, h) => (Math.abs(h - heads) < Math.abs(best - heads) ? h : best), 1);
  notices.push(`${heads} heads do not divide d_model = ${dModel}, so ${nearest} ${nearest === 1 ? 'head is' : 'heads are'} used.`);
  return nearest;
}

export function validateTrainSettings(
  raw: Partial<Record<keyof TrainSettings, Raw>>,
  base: TrainSettings = DEFAULT_TRAIN_SETTINGS,
): ValidatedTrainSettings {
  const notices: string[] = [];
  const checked = {} as TrainSettings;
  for (const key of TRAIN_KEYS) {
    Object.assign(checked, { [key]: checkSetting(TRAIN_SETTINGS[key], raw[key], base[key] as never, notices) });
    // The schema lists d_model first, so the heads can be fitted to it here, their notice beside theirs.
    if (key === 'heads') checked.heads = headsDividing(checked.dModel, checked.heads, notices);
  }
  return { settings: checked, notices };
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
export const TRAIN_PARAMS = paramsOf(TRAIN_SETTINGS);

/** The attribute of each setting on <attention-train> (HTML spells multi-word names with dashes). */
export const TRAIN_ATTRIBUTES = attributesOf(TRAIN_SETTINGS);

/**
 * Settings from named string values (URL parameters or attributes, `read` returns null for an absent one).
 * The task is read first: the others fall back to its defaults.
 */
export function trainSettingsFrom(
  read: (name: string) => string | null,
  names: Readonly<Record<keyof TrainSettings, string>>,
): ValidatedTrainSettings {
  const raw: Partial<Record<keyof TrainSettings, Raw>> = {};
  for (const key of TRAIN_KEYS) {
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
  for (const key of TRAIN_KEYS) {
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
