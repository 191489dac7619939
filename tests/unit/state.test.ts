// @vitest-environment happy-dom
// The state module owns the URL: updates are validated and written as a link; back/forward restore.
import { beforeEach, describe, expect, test } from 'vitest';
import { WalkthroughState, type StateChange } from '../../web/src/state';
import { DEFAULT_SETTINGS } from '../../web/src/settings';

beforeEach(() => {
  history.replaceState(null, '', '/');
});

describe('WalkthroughState', () => {
  test('reads its first settings from the URL and reports what it had to fix', () => {
    history.replaceState(null, '', '/?d_model=12&heads=5&seed=7');
    const state = new WalkthroughState(true);
    expect(state.settings).toMatchObject({ dModel: 12, heads: 4, seed: 7 });
    expect(state.takeInitialNotices()).toEqual(['5 heads do not divide d_model = 12, so 4 heads are used (dₖ = 3).']);
    // The URL now describes the state actually shown.
    expect(location.search).toBe('?d_model=12&heads=4&seed=7&weights=random');
  });

  test('update() validates, notifies and writes the URL', () => {
    const state = new WalkthroughState(true);
    const changes: StateChange[] = [];
    state.subscribe((change) => changes.push(change));
    state.update({ causal: true, heads: 4 });
    expect(changes).toHaveLength(1);
    expect(changes[0].settings).toMatchObject({ causal: true, heads: 4 });
    expect(location.search).toBe('?heads=4&causal=1&weights=random');
    state.update({ heads: 3 }); // 3 does not divide 8
    expect(state.settings.heads).toBe(2);
    expect(changes[1].notices[0]).toMatch(/3 heads do not divide d_model = 8/);
  });

  test('linkTo(): a section’s link carries the settings in force, as the URL does, and its fragment', () => {
    const state = new WalkthroughState(true);
    expect(state.linkTo('softmax')).toBe(`${location.origin}/#softmax`);
    state.update({ causal: true, heads: 4 });
    expect(state.linkTo('causal')).toBe(`${location.origin}/?heads=4&causal=1&weights=random#causal`);
    // An element that keeps its settings out of the URL links them all the same.
    const element = new WalkthroughState(false, { ...DEFAULT_SETTINGS, seed: 9, weights: 'random' });
    expect(element.linkTo('scores')).toBe(`${location.origin}/?seed=9&weights=random#scores`);
  });

  test('an update that changes nothing notifies nobody', () => {
    const state = new WalkthroughState(true);
    let calls = 0;
    state.subscribe(() => calls++);
    state.update({ causal: DEFAULT_SETTINGS.causal, sentence: DEFAULT_SETTINGS.sentence });
    expect(calls).toBe(0);
  });

  test('d_model, heads or the seed without `weights` ask for random weights; back on trained, the link leaves them out', () => {
    const state = new WalkthroughState(true);
    expect(state.settings.weights).toBe('example');
    state.update({ seed: 7 });
    expect(state.settings).toMatchObject({ weights: 'random', seed: 7 });
    expect(location.search).toBe('?seed=7&weights=random');
    state.update({ weights: 'trained' });
    // The seed is kept for a later switch back, but a link to the trained model does not carry it.
    expect(state.settings).toMatchObject({ weights: 'trained', seed: 7 });
    expect(location.search).toBe('?weights=trained');
    // A weights choice given with them wins.
    state.update({ weights: 'trained', heads: 4 });
    expect(state.settings).toMatchObject({ weights: 'trained', heads: 4 });
  });

  test('popstate restores the settings from the URL', () => {
    const state = new WalkthroughState(true);
    const seen: number[] = [];
    state.subscribe((change) => seen.push(change.settings.seed));
    history.pushState(null, '', '/?seed=42');
    window.dispatchEvent(new PopStateEvent('popstate'));
    expect(state.settings.seed).toBe(42);
    expect(seen).toEqual([42]);
  });

  test('an embedded state never touches the URL', () => {
    history.replaceState(null, '', '/?seed=5');
    const state = new WalkthroughState(false, { seed: 9 });
    expect(state.settings.seed).toBe(9);
    state.update({ heads: 4 });
    expect(location.search).toBe('?seed=5');
  });
});

describe('the training settings in the link', () => {
  test('train_* parameters are read, checked and written back; only what differs from the task’s defaults', () => {
    history.replaceState(null, '', '/?train_task=induction&train_heads=3&train_lr=nan&train_steps=999999&heads=4');
    const state = new WalkthroughState(true);
    // The task's recipe (lr 0.01, 800 steps) is the base; the walkthrough's heads=4 is its own setting.
    expect(state.training).toMatchObject({ task: 'induction', heads: 2, learningRate: 0.01, steps: 5000 });
    expect(state.settings.heads).toBe(4);
    expect(state.takeTrainingNotices()).toEqual([
      '3 heads do not divide d_model = 32, so 2 heads are used.',
      'The learning rate must be a number; “nan” was ignored, so it stays 0.01.',
      'The number of steps must be from 1 to 5000; 999999 was changed to 5000.',
    ]);
    expect(state.takeTrainingNotices()).toEqual([]);
    expect(new URLSearchParams(location.search).get('train_task')).toBe('induction');
    expect(new URLSearchParams(location.search).has('train_heads')).toBe(false); // 2 is the default
    expect(new URLSearchParams(location.search).get('train_steps')).toBe('5000');
    expect(new URLSearchParams(location.search).has('train_lr')).toBe(false); // the recipe's own
  });

  test('updateTraining(): a new task brings its recipe, a named learning rate wins; Back restores the run’s settings', () => {
    const state = new WalkthroughState(true);
    const seen: { task: string; learningRate: number; steps: number; notices: string[] }[] = [];
    state.subscribeTraining(({ settings, notices }) => seen.push({ ...settings, notices }));
    state.updateTraining({ task: 'induction' });
    expect(seen.at(-1)).toMatchObject({ task: 'induction', learningRate: 0.01, steps: 800, notices: [] });
    expect(location.search).toBe('?train_task=induction');
    state.updateTraining({ task: 'who-is-it', learningRate: '0.02' });
    expect(seen.at(-1)).toMatchObject({ task: 'who-is-it', learningRate: 0.02, steps: 400 });
    expect(location.search).toBe('?train_lr=0.02');
    state.updateTraining({ learningRate: '-1' });
    expect(seen.at(-1)).toMatchObject({ learningRate: 0.00001 });
    expect(seen.at(-1)!.notices[0]).toMatch(/^The learning rate must be from 0.00001 to 1 \(at 0 or below/);
    const count = seen.length;
    state.updateTraining({ learningRate: '0.00001' }); // no change, no notice: nobody hears
    expect(seen).toHaveLength(count);
    history.replaceState(null, '', '/?train_task=induction&train_seed=9');
    window.dispatchEvent(new PopStateEvent('popstate'));
    expect(state.training).toMatchObject({ task: 'induction', seed: 9, learningRate: 0.01 });
    expect(seen.at(-1)).toMatchObject({ task: 'induction' });
  });

  test('an element’s attributes replace the run’s settings wholesale (setTraining), without a URL', () => {
    history.replaceState(null, '', '/?train_task=induction');
    const state = new WalkthroughState(false, {}, { settings: { ...state0(), seed: 5 }, notices: ['n'] });
    expect(state.training.seed).toBe(5);
    expect(state.training.task).toBe('who-is-it'); // not the page's link
    expect(state.takeTrainingNotices()).toEqual(['n']);
    state.updateTraining({ steps: '12' });
    expect(location.search).toBe('?train_task=induction');
  });
});

function state0() {
  return new WalkthroughState(false).training;
}
