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

  test('an update that changes nothing notifies nobody', () => {
    const state = new WalkthroughState(true);
    let calls = 0;
    state.subscribe(() => calls++);
    state.update({ causal: DEFAULT_SETTINGS.causal, sentence: DEFAULT_SETTINGS.sentence });
    expect(calls).toBe(0);
  });

  test('d_model, heads or the seed without `weights` ask for random weights; back on trained, the link leaves them out', () => {
    const state = new WalkthroughState(true);
    expect(state.settings.weights).toBe('trained');
    state.update({ seed: 7 });
    expect(state.settings).toMatchObject({ weights: 'random', seed: 7 });
    expect(location.search).toBe('?seed=7&weights=random');
    state.update({ weights: 'trained' });
    // The seed is kept for a later switch back, but a link to the trained model does not carry it.
    expect(state.settings).toMatchObject({ weights: 'trained', seed: 7 });
    expect(location.search).toBe('');
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
