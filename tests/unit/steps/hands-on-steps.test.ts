// @vitest-environment happy-dom
// The hands-on parts of the steps on real snapshots: editing in step 2 (what reaches the settings,
// when editing is offered), the mask editor of step 7 (presets, painting, an empty row), predictions
// in the full walkthrough (steps 1, 4, 7, 8), and every figure marking what the reader's edits moved.
import { beforeEach, describe, expect, test } from 'vitest';
import { decodePaint, encodePaint } from '../../../web/src/features/hands-on/hands-on-settings';
import { predictions } from '../../../web/src/ui/predict';
import type { Settings } from '../../../web/src/settings';
import { problemStep } from '../../../web/src/steps/01-problem/step';
import { qkvStep } from '../../../web/src/steps/02-qkv/step';
import { scaleStep } from '../../../web/src/steps/04-scale/step';
import { causalStep } from '../../../web/src/steps/07-causal/step';
import { multiHeadStep } from '../../../web/src/steps/08-multi-head/step';
import { STEPS } from '../../../web/src/steps/index';
import { isLazyStep } from '../../../web/src/elements/lazy-step';
import type { StepDefinition } from '../../../web/src/steps/types';
import { snapshotFor } from '../fixtures';

// These tests mount every step themselves: the steps whose code is a chunk of its own load first.
await Promise.all(STEPS.map((step) => (isLazyStep(step) ? step.load() : null)));

const FOUR = 'the cat sat down';

function mount(step: StepDefinition, predict = false) {
  const body = document.createElement('div');
  document.body.replaceChildren(body);
  const changes: Partial<Settings>[] = [];
  const view = step.mount(body, { update: (change) => changes.push(change), predictions: predict });
  return { body, view, changes };
}

const key = (target: Element, k: string, init: KeyboardEventInit = {}) =>
  target.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...init }));
const td = (table: Element, r: number, c: number) => table.querySelector(`td[data-row="${r}"][data-col="${c}"]`) as HTMLElement;

beforeEach(() => {
  localStorage.clear();
  predictions.reload();
});

describe('step 2: editing the numbers', () => {
  test('small example: X and the W tables are editable; an edit becomes the edits setting, Escape undoes it', async () => {
    const snapshot = await snapshotFor({ sentence: FOUR });
    const { body, view, changes } = mount(qkvStep);
    view.render(snapshot);
    const [X, Wq, Q] = [...body.querySelectorAll('table.matrix')];
    expect(X.classList.contains('editable')).toBe(true);
    expect(Wq.classList.contains('editable')).toBe(true);
    expect(Q.classList.contains('editable')).toBe(false);
    const cell = td(X, 2, 1);
    cell.focus();
    key(cell, 'Enter');
    const input = cell.querySelector('input')!;
    key(input, 'ArrowUp');
    const expected = Math.round((snapshot.pipeline.X.data[2 * 8 + 1] + 0.1) * 1000) / 1000;
    expect(changes).toEqual([{ edits: `X.3.2:${expected}` }]);
    key(input, 'Escape');
    expect(changes.at(-1)).toEqual({ edits: '' });
    // W_q row 1, column 4, typed.
    const w = td(Wq, 0, 3);
    w.focus();
    key(w, 'Enter');
    const box = w.querySelector('input')!;
    box.value = '-0.25';
    box.dispatchEvent(new Event('input'));
    key(box, 'Enter');
    expect(changes.at(-1)).toEqual({ edits: 'Wq.1.4:-0.25' });
    expect(body.querySelector('.qkv-edit-status')!.textContent).toBe('No edits yet: every number is the seed’s.');
    expect((body.querySelector('.qkv-reset') as HTMLButtonElement).disabled).toBe(true);
  });

  test('with edits: the list, the counts, Reset, and the changed cells outlined', async () => {
    const snapshot = await snapshotFor({ sentence: FOUR, edits: 'X.3.2:0.5' });
    const { body, view, changes } = mount(qkvStep);
    view.render(snapshot);
    const status = body.querySelector('.qkv-edit-status')!.textContent!;
    expect(status).toMatch(
      /^You changed 1 number\. Of this head’s 16 attention weights, \d+ moved; of the 32 numbers of the layer’s output, \d+ did\.$/,
    );
    expect(body.querySelector('.qkv-edit-list')!.textContent).toMatch(/^X\[3, 2\] \(“sat”\): −?\d\.\d{3} → 0\.500$/);
    const [X, , Q] = [...body.querySelectorAll('table.matrix')];
    expect([...X.querySelectorAll('td.changed')].map((c) => `${(c as HTMLElement).dataset.row},${(c as HTMLElement).dataset.col}`)).toEqual(
      ['2,1'],
    );
    // Q changes only in row 3: one row of X reaches one row of Q.
    const qChanged = [...Q.querySelectorAll('td.changed')].map((c) => (c as HTMLElement).dataset.row);
    expect(new Set(qChanged)).toEqual(new Set(['2']));
    (body.querySelector('.qkv-reset') as HTMLButtonElement).click();
    expect(changes).toEqual([{ edits: '' }]);
  });

  test('back to the seed’s own number removes the edit instead of keeping a copy of it', async () => {
    const snapshot = await snapshotFor({ sentence: FOUR, edits: 'X.1.1:0.5' });
    const { body, view, changes } = mount(qkvStep);
    view.render(snapshot);
    const X = body.querySelector('table.matrix')!;
    const cell = td(X, 0, 0);
    cell.focus();
    key(cell, 'Enter');
    const input = cell.querySelector('input')!;
    input.value = String(snapshot.baseline!.X.data[0]);
    input.dispatchEvent(new Event('input'));
    expect(changes.at(-1)).toEqual({ edits: '' });
  });

  test('too large an example: nothing editable, and a button to the four-token example', async () => {
    const { body, view, changes } = mount(qkvStep);
    view.render(await snapshotFor());
    expect(body.querySelectorAll('table.editable')).toHaveLength(0);
    expect(body.querySelector('.qkv-edit-status')!.textContent).toMatch(
      /^Editing works on small examples.*up to 8 tokens and d_model up to 16\. This one has 9 tokens and d_model 8/,
    );
    const button = body.querySelector('.qkv-small') as HTMLButtonElement;
    expect(button.hidden).toBe(false);
    button.click();
    expect(changes).toEqual([{ weights: 'example' }]);
  });
});

describe('step 7: the mask editor', () => {
  test('presets ask for the mask setting; causal goes through the causal flag', async () => {
    const { body, view, changes } = mount(causalStep);
    view.render(await snapshotFor({ sentence: FOUR }));
    const radio = (kind: string) => body.querySelector(`input.mask-kind[value="${kind}"]`) as HTMLInputElement;
    expect(radio('none').checked).toBe(true);
    for (const kind of ['pad', 'window', 'prefix', 'causal', 'none']) {
      radio(kind).checked = true;
      radio(kind).dispatchEvent(new Event('change'));
    }
    expect(changes).toEqual([
      { mask: 'pad:2' },
      { mask: 'window:3' },
      { mask: 'prefix:2' },
      { causal: true },
      { mask: 'none', causal: false },
    ]);
  });

  test('a preset in force: the radio, its number, the override sentence, the painter and the weights it gives', async () => {
    const snapshot = await snapshotFor({ sentence: FOUR, mask: 'window:2' });
    const { body, view, changes } = mount(causalStep);
    view.render(snapshot);
    expect((body.querySelector('input.mask-kind[value="window"]') as HTMLInputElement).checked).toBe(true);
    const param = body.querySelector('input.mask-param-input') as HTMLInputElement;
    expect(param.value).toBe('2');
    expect(body.querySelector('.mask-state')!.textContent).toBe(
      'In force on every step: a sliding window of 2 (each token sees itself and the 1 token before it).',
    );
    expect((body.querySelector('input.mask-kind[value="causal"]') as HTMLInputElement).checked).toBe(false);
    const painter = body.querySelector('table.mask-painter')!;
    expect(
      [...painter.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td[data-col]')].map((c) => c.textContent).join('')),
    ).toEqual(['1000', '1100', '0110', '0011']);
    expect([...painter.querySelectorAll('td.row-total')].map((c) => c.textContent)).toEqual(['1', '2', '2', '2']);
    param.value = '3';
    param.dispatchEvent(new Event('change'));
    expect(changes).toEqual([{ mask: 'window:3' }]);
    // Painting a cell turns the mask into a painted one, starting from the mask in force.
    const cell = td(painter, 3, 0);
    cell.focus();
    key(cell, ' ');
    const painted = changes.at(-1)!.mask!;
    expect(Array.from(decodePaint(painted.slice(6), 4)!).join('')).toBe('1000110001101011');
  });

  test('a row with no key left: zero weights, 0% and the sentence about nan', async () => {
    const bits = Uint8Array.from([1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
    const snapshot = await snapshotFor({ sentence: FOUR, mask: encodePaint(bits) });
    expect(Array.from(snapshot.pipeline.fullyMaskedRows)).toEqual([0, 0, 1, 0]);
    const { body, view } = mount(causalStep);
    view.render(snapshot);
    expect((body.querySelector('input.mask-kind[value="paint"]') as HTMLInputElement).checked).toBe(true);
    const note = body.querySelector('.mask-empty-note') as HTMLElement;
    expect(note.hidden).toBe(false);
    expect(note.textContent).toMatch(
      /^Row 3 \(“sat”\) has no key left to look at, so its weights are all 0 and its row sums to 0%, not 100%\./,
    );
    expect(note.textContent).toContain('prints nan');
    const weights = body.querySelector('table.mask-weights')!;
    expect([...weights.querySelectorAll('td.row-total')].map((c) => c.textContent)).toEqual(['100%', '100%', '0%', '100%']);
    expect(body.textContent).not.toMatch(/\bNaN\b|undefined|Infinity/);
  });
});

describe('predictions in the walkthrough', () => {
  test('only with context.predictions; step 1 asks which token, answered by the live weights', async () => {
    const snapshot = await snapshotFor({ sentence: FOUR });
    const plain = mount(problemStep);
    plain.view.render(snapshot);
    expect(plain.body.querySelector('.predict')).toBeNull();
    const { body, view } = mount(problemStep, true);
    view.render(snapshot);
    const box = body.querySelector('.predict') as HTMLElement;
    expect(box.hidden).toBe(false);
    expect(box.querySelector('.predict-question')!.textContent).toBe('Random weights: which token happens to win for “down”?');
    expect([...box.querySelectorAll('.predict-choice')].map((b) => b.textContent)).toEqual(['the', 'cat', 'sat', 'down (itself)']);
    expect(body.querySelector('figure.problem-figure')!.classList.contains('predict-cover')).toBe(true);
    const row = snapshot.pipeline.weights.data.subarray(3 * 4, 4 * 4);
    const top = row.indexOf(Math.max(...row));
    (box.querySelector(`[data-choice="${top}"]`) as HTMLElement).click();
    expect(box.querySelector('.predict-verdict')!.textContent).toMatch(/^Right: /);
    expect(body.querySelector('figure.problem-figure')!.classList.contains('predict-cover')).toBe(false);
    expect(body.querySelector('.predict-toggle input')).not.toBeNull();
  });

  test('steps 4, 7 and 8 ask too, and say why with this page’s numbers', async () => {
    const snapshot = await snapshotFor({ sentence: FOUR });
    for (const [step, figure, answer, why] of [
      [scaleStep, '.scale-saturation', 'grows', /At this page’s dₖ = 4 the row \[1, 2, 3\] becomes \[2, 4, 6\]/],
      [causalStep, '.causal-wrong', 'no', /so the row keeps only \d+%/],
      [multiHeadStep, '.matrix-scroll', 'same', /multiply-adds with 1 head, [\d,]+ with 8/],
    ] as const) {
      const { body, view } = mount(step, true);
      view.render(snapshot);
      expect(body.querySelector(figure)!.classList.contains('predict-cover'), step.id).toBe(true);
      (body.querySelector('.predict-skip') as HTMLElement).click();
      const verdict = body.querySelector('.predict-verdict')!.textContent!;
      expect(verdict, step.id).toMatch(/^The answer: /);
      expect(verdict, step.id).toMatch(why);
      expect(body.querySelector(`.predict-choice.predict-answer`)!.getAttribute('data-choice'), step.id).toBe(answer);
    }
  });
});

describe('every figure marks what the edits moved', () => {
  test('with an edit of W_v, the weights stay and the values and outputs move; no NaN anywhere', async () => {
    const snapshot = await snapshotFor({ sentence: FOUR, edits: 'Wv.2.3:1.5' });
    const counts: Record<string, number> = {};
    for (const step of STEPS) {
      if (step.id === 'flash' || step.id === 'faq') continue;
      const { body, view } = mount(step);
      view.render(snapshot);
      counts[step.id] = body.querySelectorAll('td.changed').length;
      expect(body.textContent, step.id).not.toMatch(/\bNaN\b|undefined/);
    }
    expect(counts.softmax).toBe(0);
    expect(counts.scores).toBe(0);
    expect(counts.qkv).toBeGreaterThan(0);
    expect(counts['weighted-sum']).toBeGreaterThan(0);
    expect(counts['multi-head']).toBeGreaterThan(0);
  });
});
