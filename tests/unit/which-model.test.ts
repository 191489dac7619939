// @vitest-environment happy-dom
// One model per view, always named: the settings bar's line and each step's note say which numbers the
// step shows and their shape, read from the snapshot it drew; beside the article's example the steps
// that show the sentence (8 to 11) and step 1 (the reader model) say so where they start, with one
// button to switch.
import { describe, expect, test } from 'vitest';
import { createControls, WALKTHROUGH_BAR_CONTROLS } from '../../web/src/controls';
import { barStatement, modelSummary, stepList } from '../../web/src/steps/shared/which-model';
import { MODEL_LINE_CLASS, numbersLineText } from '../../web/src/steps/shared/figure';
import { EXPERIMENTS } from '../../web/src/features/training/train-settings';
import { sentenceView, type Snapshot } from '../../web/src/snapshot';
import type { Settings } from '../../web/src/settings';
import { STEPS } from '../../web/src/steps/index';
import { isLazyStep } from '../../web/src/elements/lazy-step';
import { readerModelName, readerViewSummary } from '../../web/src/features/reader/figure';
import { exampleSnapshotFor, snapshotFor, trainedSnapshotFor } from './fixtures';

/** What a step's figures show: step 1 its reader model whenever there is one, the others their snapshot or the sentence's. */
function whose(step: (typeof STEPS)[number], snapshot: Snapshot): string {
  const shown = step.numbers === 'sentence' || step.numbers === 'reader' ? sentenceView(snapshot) : snapshot;
  return step.numbers === 'reader' && shown.reader ? readerViewSummary(shown.reader) : modelSummary(shown);
}

// These tests mount every step themselves: the steps whose code is a chunk of its own load first.
await Promise.all(STEPS.map((step) => (isLazyStep(step) ? step.load() : null)));

/** The figures of each step that show a model's numbers, each with one line naming them. */
const FIGURES_WITH_MODEL_NUMBERS = {
  scores: 2,
  'weighted-sum': 2,
  softmax: 1,
  qkv: 2,
  scale: 1,
  causal: 1,
  'multi-head': 2,
  problem: 1,
  cost: 0,
  // Step 10's tiled pass (its Q, K, V and all after them); the memory meter and the timed run show counts.
  flash: 1,
  // Step 11's pattern panels, and the KV cache run on the same sentence; its timed runs say they are random inputs.
  'long-context': 2,
};

/** Figures that show a model's numbers without a matrix of them, so the check of matrices below cannot see them. */
const FIGURE_PARTS_WITH_A_LINE: Record<string, string[]> = { 'long-context': ['.kv-cache'] };

/** Matrices that show no model's numbers, by their caption's first word: step 7's mask, which the reader sets. */
const WITHOUT_MODEL_NUMBERS = ['mask'];

describe('which numbers a view shows', () => {
  test('the bar’s line groups the steps by the model they show, from the snapshot', async () => {
    const example = await exampleSnapshotFor();
    const sentence = example.sentence!;
    expect(stepList([1, 8, 9, 10])).toBe('1, 8–10');
    // This engine has no reader model yet (loading): step 1 names it without a shape until it is read.
    expect(example.reader).toEqual({ status: 'loading', causal: false });
    expect(barStatement(STEPS, example)).toBe(
      `Step 1 shows the reader model; steps 2–7, 13 the article’s example (4 tokens, d_model 8, h = 1); ` +
        `steps 8–11 the trained model on the sentence (${sentence.pipeline.n} tokens, d_model ${sentence.pipeline.dModel}, h = ${sentence.pipeline.heads}); ` +
        'step 12 trains its own.',
    );
    const random = await snapshotFor({ seed: 7 });
    expect(barStatement(STEPS, random)).toBe(
      'Steps 1–11, 13 show random weights (seed 7) on the sentence (9 tokens, d_model 8, h = 2); step 12 trains its own.',
    );
    const trained = await trainedSnapshotFor();
    expect(modelSummary(trained)).toBe(`the trained model on the sentence (9 tokens, d_model 32, h = 2)`);
    expect(barStatement(STEPS, await trainedSnapshotFor({ causal: true }))).toBe(
      'Step 1 shows the causal reader model; steps 2–11, 13 the trained model on the sentence (9 tokens, d_model 32, h = 2); step 12 trains its own.',
    );
  });

  test('beside the example, each sentence step says what it shows and switches every step with one button', async () => {
    const example = await exampleSnapshotFor();
    const sentenceSteps = STEPS.filter((step) => step.numbers === 'sentence' || step.numbers === 'reader');
    expect(sentenceSteps.map((step) => [step.number, step.numbers])).toEqual([
      [1, 'reader'],
      [8, 'sentence'],
      [9, 'sentence'],
      [10, 'sentence'],
      [11, 'sentence'],
    ]);
    for (const step of sentenceSteps) {
      const body = document.createElement('div');
      document.body.replaceChildren(body);
      const changes: Partial<Settings>[] = [];
      step.mount(body, { update: (change) => changes.push(change) }).render(example);
      const note = body.querySelector('.worked-example')!;
      expect(body.firstElementChild, step.id).toBe(note);
      expect(note.textContent, step.id).toContain(`This step shows ${whose(step, example)}, not the article’s example`);
      const button = note.querySelector('button')!;
      expect(button.hidden).toBe(false);
      button.click();
      expect(changes, step.id).toEqual([{ weights: 'trained' }]);
      // Once every step shows the sentence, the note names the model and its button goes back to the example.
      step.mount(body, { update: (change) => changes.push(change) }).render(await trainedSnapshotFor());
      const again = body.querySelectorAll('.worked-example')[1];
      expect(again.querySelector('.worked-example-text')!.textContent).toBe(
        step.numbers === 'reader' ? 'The reader model.' : 'The trained model on the sentence (9 tokens, d_model 32, h = 2).',
      );
      (again.querySelector('button') as HTMLButtonElement).click();
      expect(changes.at(-1), step.id).toEqual({ weights: 'example' });
    }
  });

  test('every figure with a model’s numbers names them in a line that agrees with the bar', async () => {
    // How many figures of each step show a model's numbers (a row of figures side by side is one).
    const figures: Record<string, number> = FIGURES_WITH_MODEL_NUMBERS;
    const snapshots: [string, Snapshot][] = [
      ['example', await exampleSnapshotFor()],
      ['random', await snapshotFor({ seed: 7 })],
      ['trained', await trainedSnapshotFor()],
      ['window mask', await snapshotFor({ seed: 7, mask: 'window:2' })],
    ];
    for (const step of STEPS.filter((s) => s.numbers !== 'own' && s.id in figures)) {
      for (const [mode, snapshot] of snapshots) {
        const body = document.createElement('div');
        document.body.replaceChildren(body);
        step.mount(body, { update: () => {} }).render(snapshot);
        const where = `${step.id}, ${mode}`;
        const lines = [...body.querySelectorAll(`.${MODEL_LINE_CLASS}`)];
        // A custom mask adds step 7's figure of the weights it gives.
        expect(lines.length, where).toBe(figures[step.id] + (mode === 'window mask' && step.id === 'causal' ? 1 : 0));
        for (const line of lines) expect(line.textContent, where).toBe(numbersLineText(whose(step, snapshot)));
        for (const part of FIGURE_PARTS_WITH_A_LINE[step.id] ?? [])
          expect(body.querySelector(`${part} .${MODEL_LINE_CLASS}`), `${where}: ${part}`).not.toBeNull();
        // The bar above names the same model and shape (the reader model by name: step 1's line has its shape).
        const named = step.numbers === 'reader' && snapshot.reader ? readerModelName(snapshot.reader.causal) : whose(step, snapshot);
        expect(barStatement(STEPS, snapshot), where).toContain(named);
        // Every matrix of the step is under a line naming its numbers: one in its figure, or one above
        // it in the body since the last heading (a figure made of several parts of the body).
        for (const table of body.querySelectorAll('table.matrix')) {
          if (WITHOUT_MODEL_NUMBERS.includes(table.querySelector('caption')?.textContent?.split(' ')[0] ?? '')) continue;
          let part: Element = table;
          while (part.parentElement !== body) part = part.parentElement!;
          let named = part.querySelector(`.${MODEL_LINE_CLASS}`) !== null;
          for (let above = part.previousElementSibling; !named && above && above.tagName !== 'H3'; above = above.previousElementSibling)
            named = above.classList.contains(MODEL_LINE_CLASS);
          expect(named, `${where}: ${table.querySelector('caption')?.textContent}`).toBe(true);
        }
      }
    }
  });

  test('step 12’s run names itself: the reader’s own run, of the shape its settings give, and the twin a preset adds', () => {
    const train = STEPS.find((step) => step.numbers === 'own')!;
    const body = document.createElement('div');
    document.body.replaceChildren(body);
    train.mount(body, { update: () => {} });
    const lines = () => [...body.querySelectorAll(`.${MODEL_LINE_CLASS}`)].map((line) => line.textContent);
    // The line sits above the loss and accuracy charts, the first figures of the run.
    expect(body.querySelector(`.${MODEL_LINE_CLASS}`)!.nextElementSibling!.classList.contains('train-charts')).toBe(true);
    const shape = (s: { layers: number; heads: number; dModel: number }) =>
      `${s.layers} layer${s.layers === 1 ? '' : 's'} × ${s.heads} head${s.heads === 1 ? '' : 's'}, d_model ${s.dModel}`;
    expect(lines()).toEqual([numbersLineText(`your own run (${shape(EXPERIMENTS['who-is-it'])})`)]);
    expect(lines()[0]).toBe('Numbers: your own run (2 layers × 2 heads, d_model 32)');
    // A setting changed in the form changes the line.
    const layers = body.querySelector<HTMLSelectElement>('select[name="train-layers"]')!;
    layers.value = '1';
    layers.dispatchEvent(new Event('change'));
    expect(lines()).toEqual([numbersLineText(`your own run (${shape({ ...EXPERIMENTS['who-is-it'], layers: 1 })})`)]);
    expect(lines()[0]).toBe('Numbers: your own run (1 layer × 2 heads, d_model 32)');
    // "Why scale" trains one head of d_model 64 beside a twin whose scores are not divided by √dₖ.
    body.querySelector<HTMLButtonElement>('button[data-experiment="scale"]')!.click();
    expect(EXPERIMENTS.scale.compare && EXPERIMENTS.scale.scale).toBe(true);
    expect(lines()).toEqual([numbersLineText(`your own run (${shape(EXPERIMENTS.scale)}), beside its twin with scaling off`)]);
  });

  test('the main bar has the heads controls; where the numbers fix them they are disabled and say why', () => {
    expect(WALKTHROUGH_BAR_CONTROLS.split(' ')).toEqual(expect.arrayContaining(['heads', 'head']));
    const controls = createControls(() => {}, new Set(WALKTHROUGH_BAR_CONTROLS.split(' ') as never[]));
    document.body.replaceChildren(controls.element);
    const base = {
      sentence: 'the animal was tired',
      dModel: 8,
      heads: 2,
      head: 0,
      causal: false,
      scale: true,
      seed: 1,
      block: 4,
      edits: '',
      mask: 'none',
    };
    controls.show({ ...base, weights: 'trained' } as Settings);
    const heads = controls.element.querySelector<HTMLSelectElement>('select[name="heads"]')!;
    expect(heads.closest<HTMLElement>('[data-control]')!.hidden).toBe(false);
    expect(heads.disabled).toBe(true);
    expect(heads.title).toBe('The small who-is-it model fixes d_model and h: choose random weights to change them.');
    controls.show({ ...base, weights: 'random' } as Settings);
    expect(heads.disabled).toBe(false);
    expect(heads.title).toBe('');
    controls.describe('Steps 1–10 show this.');
    expect(controls.element.querySelector('.settings-shows')!.textContent).toBe('Steps 1–10 show this.');
  });
});
