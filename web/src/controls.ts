// The settings bar. It only reads settings to show them and emits changes through `update`;
// validation and the URL belong to the state module.
import { el, setText } from './figures/dom';
import { D_MODEL_CHOICES, headChoices, LIMITS, PRESETS, shapeOf, tokenize, WEIGHTS_CHOICES, type Settings, type WeightsChoice } from './settings';

const WEIGHTS_LABELS: Record<WeightsChoice, string> = { trained: 'Trained model', random: 'Random (seed)' };

export interface Controls {
  element: HTMLElement;
  show(settings: Settings): void;
}

/** Control names, as an embed's `controls` attribute lists them. */
export const CONTROL_NAMES = ['tokens', 'preset', 'weights', 'd-model', 'heads', 'head', 'causal', 'scale', 'seed'] as const;
export type ControlName = (typeof CONTROL_NAMES)[number];

let uid = 0;

function labelled(name: ControlName, label: string, control: HTMLElement, hint?: HTMLElement): HTMLElement {
  const id = control.id || `control-${++uid}`;
  control.id = id;
  return el('div', { class: 'control', 'data-control': name }, el('label', { for: id }, label), control, hint ?? null);
}

/** @param visible which controls to show; the rest stay in the DOM, hidden. */
export function createControls(
  update: (change: Partial<Settings>, history?: 'push' | 'replace') => void,
  visible: ReadonlySet<ControlName> = new Set(CONTROL_NAMES),
): Controls {
  const sentenceId = `sentence-${++uid}`;
  const sentence = el('input', {
    id: sentenceId, type: 'text', name: 'tokens', autocomplete: 'off', spellcheck: 'false', maxlength: LIMITS.maxSentenceChars, dir: 'auto',
    'aria-describedby': `${sentenceId}-hint`,
  });
  const sentenceHint = el('span', { id: `${sentenceId}-hint`, class: 'hint' });
  const preset = el('select', { name: 'preset' },
    el('option', { value: '' }, 'Choose a preset…'),
    ...PRESETS.map((p) => el('option', { value: p.id }, p.label)));
  const weights = el('select', { name: 'weights' }, ...WEIGHTS_CHOICES.map((w) => el('option', { value: w }, WEIGHTS_LABELS[w])));
  const dModelId = `d-model-${++uid}`;
  const dModel = el('select', { name: 'd_model', id: dModelId, 'aria-describedby': `${dModelId}-note` });
  // With trained weights the shape is the model's: d_model and h show it, disabled, and say why.
  const shapeNote = el('span', { id: `${dModelId}-note`, class: 'hint', hidden: true });
  const headsId = `heads-${++uid}`;
  const heads = el('select', { name: 'heads', id: headsId, 'aria-describedby': `${headsId}-dk` });
  const dK = el('output', { id: `${headsId}-dk`, class: 'readout', for: headsId });
  const head = el('select', { name: 'head' });
  const causal = el('input', { type: 'checkbox', name: 'causal' });
  const scale = el('input', { type: 'checkbox', name: 'scale' });
  const seed = el('input', { type: 'number', name: 'seed', min: 0, max: LIMITS.maxSeed, step: 1, inputmode: 'numeric' });
  const reseed = el('button', { type: 'button', class: 'reseed' }, 'New random weights');

  // Typing updates live but replaces the history entry; leaving the field commits one entry.
  // An emptied field is a reader about to type a new sentence: wait for words (or for the commit).
  sentence.addEventListener('input', () => {
    if (sentence.value.trim() !== '') update({ sentence: sentence.value }, 'replace');
  });
  sentence.addEventListener('change', () => update({ sentence: sentence.value }, 'push'));
  preset.addEventListener('change', () => {
    const chosen = PRESETS.find((p) => p.id === preset.value);
    if (chosen) update({ ...chosen.settings, head: 0 });
    preset.value = '';
  });
  dModel.addEventListener('change', () => {
    const value = Number(dModel.value);
    // Keep the head count if it still divides the new d_model, else the nearest that does.
    const choices = headChoices(value, shown ? tokenize(shown.sentence).tokens.length : 1);
    const current = Number(heads.value);
    const nextHeads = choices.includes(current) ? current : choices.reduce((a, b) => (Math.abs(b - current) < Math.abs(a - current) ? b : a));
    update({ dModel: value, heads: nextHeads });
  });
  weights.addEventListener('change', () => update({ weights: weights.value as WeightsChoice }));
  heads.addEventListener('change', () => update({ heads: Number(heads.value) }));
  head.addEventListener('change', () => update({ head: Number(head.value) }));
  causal.addEventListener('change', () => update({ causal: causal.checked }));
  scale.addEventListener('change', () => update({ scale: scale.checked }));
  seed.addEventListener('change', () => {
    // An emptied or unreadable field is NaN: validation keeps the seed and says so; show it again.
    update({ seed: seed.valueAsNumber });
    if (Number.isNaN(seed.valueAsNumber) && shown) seed.value = String(shown.seed);
  });
  reseed.addEventListener('click', () => {
    const random = new Uint32Array(1);
    crypto.getRandomValues(random);
    update({ seed: random[0], weights: 'random' });
  });

  const element = el('form', { class: 'controls', 'aria-label': 'Settings', part: 'controls' },
    el('div', { class: 'control control-wide', 'data-control': 'tokens' },
      el('label', { for: sentenceId }, 'Sentence (one token per word)'),
      sentence, sentenceHint),
    labelled('preset', 'Preset', preset),
    labelled('weights', 'Weights', weights),
    labelled('d-model', 'd_model', dModel, shapeNote),
    labelled('heads', 'Heads h', heads, dK),
    labelled('head', 'Head shown', head),
    el('div', { class: 'control control-check', 'data-control': 'causal' }, el('label', {}, causal, ' Causal mask')),
    el('div', { class: 'control control-check', 'data-control': 'scale' }, el('label', {}, scale, ' Scale by √d_k')),
    labelled('seed', 'Seed', seed),
    el('div', { class: 'control', 'data-control': 'seed' }, reseed),
  );
  element.addEventListener('submit', (event) => event.preventDefault());
  element.querySelectorAll<HTMLElement>('[data-control]').forEach((control) => {
    control.hidden = !visible.has(control.dataset.control as ControlName);
  });
  element.hidden = visible.size === 0;

  function setOptions(select: HTMLSelectElement, values: number[], format: (v: number) => string, current: number): void {
    const wanted = values.map(String).join(',');
    if (select.dataset.values !== wanted) {
      select.dataset.values = wanted;
      select.replaceChildren(...values.map((v) => el('option', { value: v }, format(v))));
    }
    // Assigning a select's value forces a style update in Chromium even when nothing changes.
    if (select.value !== String(current)) select.value = String(current);
  }

  let shown: Settings | null = null;

  return {
    element,
    show(settings) {
      shown = settings;
      // Inside a shadow root, document.activeElement is the host: ask the root that holds the input.
      const focused = (element.getRootNode() as Document | ShadowRoot).activeElement;
      if (focused !== sentence && sentence.value !== settings.sentence) sentence.value = settings.sentence;
      const count = settings.sentence.split(/\s+/).filter(Boolean).length;
      setText(sentenceHint, `${count} token${count === 1 ? '' : 's'}`);
      if (weights.value !== settings.weights) weights.value = settings.weights;
      const trained = settings.weights === 'trained';
      const shape = shapeOf(settings);
      const dChoices = [...new Set([...D_MODEL_CHOICES, shape.dModel])].sort((a, b) => a - b);
      setOptions(dModel, dChoices, String, shape.dModel);
      setOptions(heads, trained ? [shape.heads] : headChoices(shape.dModel, tokenize(settings.sentence).tokens.length), String, shape.heads);
      if (dModel.disabled !== trained) dModel.disabled = trained;
      if (heads.disabled !== trained) heads.disabled = trained;
      if (shapeNote.hidden === trained) shapeNote.hidden = !trained;
      setText(shapeNote, trained ? 'the trained model’s (random weights to change)' : '');
      setText(dK, `d_k = ${shape.dModel} / ${shape.heads} = ${shape.dModel / shape.heads}`);
      setOptions(head, Array.from({ length: shape.heads }, (_, i) => i), (i) => `head ${i + 1}`, settings.head);
      if (head.disabled !== (shape.heads === 1)) head.disabled = shape.heads === 1;
      causal.checked = settings.causal;
      scale.checked = settings.scale;
      if (focused !== seed && seed.value !== String(settings.seed)) seed.value = String(settings.seed);
    },
  };
}
