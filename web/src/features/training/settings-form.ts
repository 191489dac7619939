// The training run's settings form in "Train it yourself": one control per setting, showing the
// settings it is given and asking for a change through `ask` (the state module validates it, and the
// step shows the result through show()). The form never keeps settings of its own.
import { TRAINING_LIMITS } from '../../engine/limits';
import type { RawTrainingChange } from '../../state';
import { controlForm, el, showField } from '../../ui/dom';
import { OPTIMIZERS, TRAIN_D_MODELS, TRAIN_TASKS, type TrainSettings } from './train-settings';

const TASK_LABELS: Record<TrainSettings['task'], string> = { 'who-is-it': 'Who is “it”?', induction: 'Repeat the pattern (induction)' };
export const OPTIMIZER_LABELS: Record<TrainSettings['optimizer'], string> = { adamw: 'AdamW', sgd: 'SGD with momentum' };

/** A labelled control of the step, with an id of its own (several steps may share a page). */
export function trainField(name: string, label: string, control: HTMLElement): HTMLElement {
  control.id = `train-${name}-${Math.random().toString(36).slice(2, 8)}`;
  control.setAttribute('name', name);
  return el('div', { class: 'train-field' }, el('label', { for: control.id }, label), control);
}

function select(values: readonly (string | number)[], label: (v: string) => string): HTMLSelectElement {
  return el('select', { class: 'field' }, ...values.map((v) => el('option', { value: String(v) }, label(String(v)))));
}

/** Adds `value` to a select's choices when a link or an attribute gave one it does not list. */
function showChoice(control: HTMLSelectElement, value: number): void {
  if (![...control.options].some((o) => o.value === String(value))) control.append(el('option', { value: String(value) }, String(value)));
  showField(control, value);
}

export class TrainSettingsForm {
  private readonly task = select(TRAIN_TASKS, (v) => TASK_LABELS[v as TrainSettings['task']]);
  private readonly layers = select(
    Array.from({ length: TRAINING_LIMITS.maxLayers }, (_, i) => i + 1),
    (v) => v,
  );
  private readonly heads = select(
    [1, 2, 4, 8].filter((h) => h <= TRAINING_LIMITS.maxHeads),
    (v) => v,
  );
  private readonly dModel = select(TRAIN_D_MODELS, (v) => v);
  private readonly optimizer = select(OPTIMIZERS, (v) => OPTIMIZER_LABELS[v as TrainSettings['optimizer']]);
  private readonly learningRate = el('input', {
    type: 'text',
    class: 'field',
    inputmode: 'decimal',
    autocomplete: 'off',
    spellcheck: 'false',
    size: 8,
  });
  private readonly scale = el('input', { type: 'checkbox', name: 'train-scale' });
  private readonly seed = el('input', { type: 'text', class: 'field', inputmode: 'numeric', autocomplete: 'off', size: 10 });
  private readonly steps = el('input', { type: 'text', class: 'field', inputmode: 'numeric', autocomplete: 'off', size: 6 });
  private readonly compare = el('input', { type: 'checkbox', name: 'train-compare' });
  readonly element = controlForm(
    { class: 'train-settings', 'aria-label': 'Training settings' },
    trainField('train-task', 'Task', this.task),
    trainField('train-layers', 'Layers', this.layers),
    trainField('train-heads', 'Heads', this.heads),
    trainField('train-d-model', 'd_model', this.dModel),
    trainField('train-optimizer', 'Optimiser', this.optimizer),
    trainField('train-learning-rate', 'Learning rate', this.learningRate),
    el('div', { class: 'train-field train-check' }, el('label', {}, this.scale, 'Scale by √dₖ')),
    trainField('train-seed', 'Seed', this.seed),
    trainField('train-steps', 'Steps', this.steps),
    el('div', { class: 'train-field train-check' }, el('label', {}, this.compare, 'Also train a twin with scaling switched')),
  );

  constructor(ask: (change: RawTrainingChange) => void) {
    const controls: [keyof TrainSettings, HTMLSelectElement | HTMLInputElement][] = [
      ['task', this.task],
      ['layers', this.layers],
      ['heads', this.heads],
      ['dModel', this.dModel],
      ['optimizer', this.optimizer],
      ['learningRate', this.learningRate],
      ['seed', this.seed],
      ['steps', this.steps],
    ];
    for (const [key, control] of controls) control.addEventListener('change', () => ask({ [key]: control.value }));
    this.scale.addEventListener('change', () => ask({ scale: this.scale.checked }));
    this.compare.addEventListener('change', () => ask({ compare: this.compare.checked }));
  }

  show(settings: TrainSettings): void {
    showField(this.task, settings.task);
    showField(this.layers, settings.layers);
    showChoice(this.heads, settings.heads);
    showChoice(this.dModel, settings.dModel);
    showField(this.optimizer, settings.optimizer);
    showField(this.learningRate, settings.learningRate);
    this.scale.checked = settings.scale;
    showField(this.seed, settings.seed);
    showField(this.steps, settings.steps);
    this.compare.checked = settings.compare;
  }
}
