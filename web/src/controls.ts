// The settings bar. It only reads settings to show them and emits changes through `update`;
// validation and the URL belong to the state module. On a wide screen the bar is one sticky row; on a
// phone it is a slim sticky row with a toggle that opens the settings as a sheet over the page, so it
// is one tap away from any step without taking a fifth of the screen.
import { el, replaceChildren, setText, svg } from './ui/dom';
import { D_MODEL_CHOICES, headChoices, PRESETS, shapeOf, tokenize, WEIGHTS_CHOICES, type Settings, type WeightsChoice } from './settings';
import { CONTROL_NAMES, WALKTHROUGH_SETTINGS } from './settings-schema';
import type { HistoryMode } from './state';

/** The Numbers control's names for the weights, which the steps quote when they point to it. */
export const WEIGHTS_LABELS: Record<WeightsChoice, string> = {
  example: 'Article’s 4 tokens',
  trained: 'Sentence, trained',
  random: 'Sentence, random',
};

export interface Controls {
  /** The sticky bar: the phone toggle and the settings form. */
  element: HTMLElement;
  /** Below the bar, in view wherever the reader is: where the full walkthrough puts its notices. */
  noticeSlot: HTMLElement;
  show(settings: Settings): void;
  /** What the steps below the bar show (which model, its shape), from the snapshot they drew. */
  describe(text: string): void;
}

/** A pause in typing this long commits the sentence (one history entry), as Enter or leaving the field does. */
export const SENTENCE_COMMIT_MS = 700;

/** The bar's height, for anchors to land below it (scroll-margin-top in walkthrough.css). */
export const BAR_HEIGHT_PROPERTY = '--abh-bar-height';

/** "d" with a subscript, as the page writes d_k and d_model: d<sub>k</sub>. */
export function subscripted(base: string, subscript: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  fragment.append(base, el('sub', {}, subscript));
  return fragment;
}

/** Control names, as an embed's `controls` attribute lists them (declared with the `controls` attribute). */
export { CONTROL_NAMES };
export type ControlName = (typeof CONTROL_NAMES)[number];

/**
 * The full walkthrough's bar: every control, the heads (h) and the head shown included, as the elements
 * have them. Disabled where the numbers fix them (the example, the trained model), with the reason.
 */
export const WALKTHROUGH_BAR_CONTROLS = CONTROL_NAMES.join(' ');

let uid = 0;

function labelled(name: ControlName, label: string | Node, control: HTMLElement, hint?: HTMLElement): HTMLElement {
  const id = control.id || `control-${++uid}`;
  control.id = id;
  return el('div', { class: 'control', 'data-control': name }, el('label', { for: id }, label), control, hint ?? null);
}

/** @param visible which controls to show; the rest stay in the DOM, hidden. */
export function createControls(
  update: (change: Partial<Settings>, history?: HistoryMode) => void,
  visible: ReadonlySet<ControlName> = new Set(CONTROL_NAMES),
): Controls {
  const sentenceId = `sentence-${++uid}`;
  // No maxlength: it would cut a long paste silently; tokenize() cuts it and says what it kept.
  const sentence = el('input', {
    id: sentenceId,
    type: 'text',
    name: 'tokens',
    autocomplete: 'off',
    spellcheck: 'false',
    dir: 'auto',
    enterkeyhint: 'done',
    'aria-describedby': `${sentenceId}-hint`,
  });
  const sentenceHint = el('span', { id: `${sentenceId}-hint`, class: 'hint' });
  const preset = el(
    'select',
    { name: 'preset' },
    el('option', { value: '' }, 'Choose…'),
    ...PRESETS.map((p) => el('option', { value: p.id }, p.label)),
  );
  const weights = el('select', { name: 'weights' }, ...WEIGHTS_CHOICES.map((w) => el('option', { value: w }, WEIGHTS_LABELS[w])));
  const dModelId = `d-model-${++uid}`;
  const dModel = el('select', { name: 'd_model', id: dModelId, 'aria-describedby': `${dModelId}-note` });
  // With trained weights the shape is the model's: d_model and h show it, disabled, and say why.
  // Read by screen readers (aria-describedby); on screen the disabled select and its title say it, so
  // the bar stays one row.
  const shapeNote = el('span', { id: `${dModelId}-note`, class: 'visually-hidden', hidden: true });
  const headsId = `heads-${++uid}`;
  const heads = el('select', { name: 'heads', id: headsId, 'aria-describedby': `${headsId}-dk ${dModelId}-note` });
  const dK = el('output', { id: `${headsId}-dk`, class: 'readout', for: headsId });
  const head = el('select', { name: 'head' });
  const causal = el('input', { type: 'checkbox', name: 'causal' });
  const scale = el('input', { type: 'checkbox', name: 'scale' });
  const { min: seedMin, max: seedMax } = WALKTHROUGH_SETTINGS.seed;
  const seed = el('input', { type: 'number', name: 'seed', min: seedMin, max: seedMax, step: 1, inputmode: 'numeric' });
  // A die, not words: the bar keeps room for the sentence. The name is for screen readers, the title for the pointer.
  const reseed = el(
    'button',
    { type: 'button', class: 'reseed', 'aria-label': 'New random weights', title: 'New random weights' },
    svg(
      'svg',
      { viewBox: '0 0 16 16', width: 16, height: 16, 'aria-hidden': 'true', focusable: 'false' },
      svg('rect', { x: 1.5, y: 1.5, width: 13, height: 13, rx: 2.5, fill: 'none', stroke: 'currentColor', 'stroke-width': 1.5 }),
      ...[
        [5, 5],
        [11, 5],
        [8, 8],
        [5, 11],
        [11, 11],
      ].map(([cx, cy]) => svg('circle', { cx, cy, r: 1.25, fill: 'currentColor' })),
    ),
  );

  // Typing updates the figures live without touching the history; a commit (Enter, leaving the field,
  // or a pause in typing) adds one entry, so Back returns to the sentence before the edit.
  // An emptied field is a reader about to type a new sentence: wait for words. A pause does not commit
  // it (that would put the default sentence back under the reader's cursor); Enter or leaving does.
  let pause: ReturnType<typeof setTimeout> | undefined;
  let editing = false;
  const commitSentence = () => {
    clearTimeout(pause);
    if (!editing) return;
    editing = false;
    update({ sentence: sentence.value }, 'push');
  };
  sentence.addEventListener('input', () => {
    editing = true;
    clearTimeout(pause);
    if (sentence.value.trim() === '') return;
    pause = setTimeout(commitSentence, SENTENCE_COMMIT_MS);
    update({ sentence: sentence.value }, 'none');
  });
  sentence.addEventListener('change', commitSentence);
  sentence.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') commitSentence();
  });
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
    const nextHeads = choices.includes(current)
      ? current
      : choices.reduce((a, b) => (Math.abs(b - current) < Math.abs(a - current) ? b : a));
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

  // The seed picks the random weights: hidden while the weights are trained (the die still switches to random).
  const seedControl = labelled('seed', 'Seed', seed);
  const formId = `settings-${++uid}`;
  const form = el(
    'form',
    { class: 'controls', id: formId, 'aria-label': 'Settings', part: 'controls' },
    el(
      'div',
      { class: 'control control-wide', 'data-control': 'tokens' },
      el('label', { for: sentenceId }, 'Sentence'),
      sentence,
      sentenceHint,
    ),
    labelled('preset', 'Preset', preset),
    labelled('weights', 'Numbers', weights),
    labelled('d-model', subscripted('d', 'model'), dModel, shapeNote),
    labelled('heads', 'Heads h', heads, dK),
    labelled('head', 'Head shown', head),
    el('div', { class: 'control control-check', 'data-control': 'causal' }, el('label', {}, causal, 'Causal mask')),
    el(
      'div',
      { class: 'control control-check', 'data-control': 'scale' },
      el('label', {}, scale, el('span', {}, 'Scale by √', subscripted('d', 'k'))),
    ),
    seedControl,
    el('div', { class: 'control control-button', 'data-control': 'seed' }, reseed),
  );
  form.addEventListener('submit', (event) => event.preventDefault());
  form.querySelectorAll<HTMLElement>('[data-control]').forEach((control) => {
    control.hidden = !visible.has(control.dataset.control as ControlName);
  });

  // The phone's way in: a toggle that stays at the top of the screen and opens the form as a sheet.
  // Wide screens hide it (walkthrough.css) and show the form as the bar itself.
  const summary = el('span', { class: 'settings-summary' });
  const toggle = el(
    'button',
    { type: 'button', class: 'settings-toggle', 'aria-expanded': 'false', 'aria-controls': formId },
    el('span', { class: 'settings-toggle-label' }, 'Settings'),
    summary,
  );
  // Which numbers the steps show: one line under the controls, read from the snapshot (walkthrough.ts).
  const shows = el('p', { class: 'settings-shows', hidden: true });
  const noticeSlot = el('div', { class: 'settings-notices' });
  // On a phone the sheet and the notices drop down from the slim bar, over the page (walkthrough.css).
  const drop = el('div', { class: 'settings-drop' }, form, shows, noticeSlot);
  const element = el('div', { class: 'settings-bar', part: 'settings-bar' }, toggle, drop);
  element.hidden = visible.size === 0;
  // A disclosure: focus stays on the toggle and Tab walks on into the sheet (no phone keyboard pops up).
  const isOpen = () => toggle.getAttribute('aria-expanded') === 'true';
  const closeOnOutsidePointer = (event: PointerEvent) => {
    if (!event.composedPath().includes(element)) setOpen(false);
  };
  const setOpen = (open: boolean) => {
    if (open === isOpen()) return;
    toggle.setAttribute('aria-expanded', String(open));
    element.classList.toggle('open', open);
    if (open) document.addEventListener('pointerdown', closeOnOutsidePointer);
    else document.removeEventListener('pointerdown', closeOnOutsidePointer);
  };
  toggle.addEventListener('click', () => setOpen(!isOpen()));
  element.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !isOpen()) return;
    setOpen(false);
    toggle.focus();
  });
  // Tabbing out of the sheet closes it, as tapping outside does.
  element.addEventListener('focusout', (event) => {
    const next = event.relatedTarget as Node | null;
    if (next && !element.contains(next)) setOpen(false);
  });

  // Anchors land below the bar: its real height (one row, two on a narrow desktop, the slim phone row)
  // goes to a custom property that the steps' scroll-margin-top reads.
  if (typeof ResizeObserver === 'function') {
    new ResizeObserver(() => {
      const host = element.parentElement;
      if (host) host.style.setProperty(BAR_HEIGHT_PROPERTY, `${Math.ceil(element.getBoundingClientRect().height)}px`);
    }).observe(element);
  }

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
    noticeSlot,
    describe(text) {
      if (shows.hidden !== (text === '')) shows.hidden = text === '';
      setText(shows, text);
    },
    show(settings) {
      shown = settings;
      // Inside a shadow root, document.activeElement is the host: ask the root that holds the input.
      const focused = (element.getRootNode() as Document | ShadowRoot).activeElement;
      // The field keeps what the reader is typing until it is committed; otherwise it shows the sentence in
      // force (after Back, or the cleaned-up sentence validation made of a paste), focused or not.
      if (!editing && sentence.value !== settings.sentence) sentence.value = settings.sentence;
      const count = settings.sentence.split(/\s+/).filter(Boolean).length;
      setText(sentenceHint, `${count} token${count === 1 ? '' : 's'}, one per word`);
      if (weights.value !== settings.weights) weights.value = settings.weights;
      // The trained model and the article's example fix their own shape; only random weights take d_model and h.
      const trained = settings.weights !== 'random';
      // With trained weights the worked steps (2–10) use the small who-is-it model; step 1's reader model names its own shape.
      const owner = settings.weights === 'example' ? 'The article’s example' : 'The small who-is-it model';
      const shape = shapeOf(settings);
      const dChoices = [...new Set([...D_MODEL_CHOICES, shape.dModel])].sort((a, b) => a - b);
      setOptions(dModel, dChoices, String, shape.dModel);
      setOptions(
        heads,
        trained ? [shape.heads] : headChoices(shape.dModel, tokenize(settings.sentence).tokens.length),
        String,
        shape.heads,
      );
      if (dModel.disabled !== trained) dModel.disabled = trained;
      if (heads.disabled !== trained) heads.disabled = trained;
      if (shapeNote.hidden === trained) shapeNote.hidden = !trained;
      const seedHidden = trained || !visible.has('seed');
      if (seedControl.hidden !== seedHidden) seedControl.hidden = seedHidden;
      // Short, to keep the bar one row; the title says how to change the shape.
      setText(shapeNote, trained ? `fixed by ${owner.toLowerCase()}: choose random weights to change it` : '');
      dModel.title = trained ? `${owner} fixes d_model and h: choose random weights to change them.` : '';
      heads.title = dModel.title;
      head.title = shape.heads === 1 ? 'One head: nothing to choose. More heads need random weights with h > 1.' : '';
      // d_k = d_model / h, shortened to its value to keep the bar one row; the heads step explains it.
      const dKText = String(shape.dK);
      if (dK.dataset.text !== dKText) {
        dK.dataset.text = dKText;
        replaceChildren(dK, subscripted('d', 'k'), ` = ${dKText}`);
      }
      const source = settings.weights === 'example' ? WEIGHTS_LABELS.example : `${count} token${count === 1 ? '' : 's'}`;
      const summaryText = `${source} · d_model ${shape.dModel} · h ${shape.heads}`;
      if (summary.dataset.text !== summaryText) {
        summary.dataset.text = summaryText;
        replaceChildren(summary, `${source} · `, subscripted('d', 'model'), ` ${shape.dModel} · h = ${shape.heads}`);
      }
      setOptions(
        head,
        Array.from({ length: shape.heads }, (_, i) => i),
        (i) => `head ${i + 1}`,
        settings.head,
      );
      if (head.disabled !== (shape.heads === 1)) head.disabled = shape.heads === 1;
      causal.checked = settings.causal;
      scale.checked = settings.scale;
      if (focused !== seed && seed.value !== String(settings.seed)) seed.value = String(settings.seed);
    },
  };
}
