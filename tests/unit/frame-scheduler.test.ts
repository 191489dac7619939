// The first computation over a prerendered page runs in stages, one per task (FrameScheduler.flushInTasks):
// it hands out exactly the snapshot computeSnapshot makes, in a task after its last stage only; a request while it is
// under way is computed as usual and the staged one is dropped; an engine refusal reaches onError. Something
// that arrives later (arrived()) repeats the shown snapshot with it, for the settings asked.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { computeSnapshot, FrameScheduler, snapshotStages } from '../../web/src/compute';
import { DEFAULT_SETTINGS, validateSettings, type Settings } from '../../web/src/settings';
import type { Repeat, Snapshot } from '../../web/src/snapshot';
import type { AttentionEngine } from '../../web/src/engine/engine';
import { fixtureEngine, plainSnapshot } from './fixtures';

/** Tasks posted with scheduler.postTask, run one at a time. */
let taskQueue: (() => void)[] = [];
const runTask = () => taskQueue.shift()?.();

beforeEach(() => {
  taskQueue = [];
  vi.stubGlobal('scheduler', { postTask: (callback: () => void) => Promise.resolve(taskQueue.push(callback)) });
  vi.stubGlobal('requestAnimationFrame', () => 0);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

const settingsFor = (change: Partial<Settings>) => validateSettings(change, DEFAULT_SETTINGS).settings;

/** A scheduler that records each snapshot it hands out and throws what the engine refuses. */
function recordingScheduler(engine: AttentionEngine) {
  const shown: Snapshot[] = [];
  const scheduler = new FrameScheduler(
    engine,
    (s) => shown.push(s),
    (error) => {
      throw error;
    },
  );
  return { scheduler, shown };
}

describe('FrameScheduler.flushInTasks', () => {
  for (const [label, change] of [
    ['the article’s example (with the sentence beside it)', {}],
    ['random weights', { weights: 'random', heads: 2 }],
  ] as const) {
    test(`${label}: one stage per task, and the snapshot computeSnapshot makes`, async () => {
      const engine = await fixtureEngine();
      const settings = settingsFor(change);
      const stageCount = [...snapshotStages(engine, settings)].length + 1;
      const { scheduler, shown } = recordingScheduler(engine);
      scheduler.request(settings);
      scheduler.flushInTasks();
      await Promise.resolve(); // the request's microtask finds nothing pending
      expect(shown).toHaveLength(0);
      // One task per stage, then one that hands the snapshot out (the drawing it starts is a task's worth).
      for (let i = 1; i <= stageCount; i++) {
        runTask();
        expect(shown, `after task ${i} of ${stageCount + 1}`).toHaveLength(0);
      }
      runTask();
      expect(shown).toHaveLength(1);
      expect(taskQueue).toHaveLength(0);
      expect(stageCount).toBeGreaterThanOrEqual(5);
      expect(plainSnapshot(shown[0])).toEqual(plainSnapshot(computeSnapshot(engine, settings)));
    });
  }

  test('a request while the stages run is computed at once, and the staged computation is dropped', async () => {
    const engine = await fixtureEngine();
    const { scheduler, shown } = recordingScheduler(engine);
    scheduler.request(settingsFor({}));
    scheduler.flushInTasks();
    runTask();
    runTask();
    const later = settingsFor({ weights: 'random', seed: 7 });
    scheduler.request(later);
    await Promise.resolve();
    expect(shown.map((s) => s.settings)).toEqual([later]);
    while (taskQueue.length > 0) runTask();
    expect(shown.map((s) => s.settings)).toEqual([later]);
  });

  test('settings the engine refuses reach onError, with the settings', async () => {
    const engine = await fixtureEngine();
    const errors: [unknown, Settings][] = [];
    const scheduler = new FrameScheduler(
      engine,
      () => {},
      (error, settings) => errors.push([error, settings]),
    );
    // Over the engine's budget of three (h, n, n) tables: refused with a message, not computed.
    const settings = {
      ...settingsFor({ weights: 'random' }),
      sentence: Array.from({ length: 256 }, (_, i) => `w${i}`).join(' '),
      dModel: 512,
      heads: 64,
    };
    scheduler.request(settings);
    scheduler.flushInTasks();
    while (taskQueue.length > 0) runTask();
    expect(errors).toHaveLength(1);
    expect(errors[0][1]).toBe(settings);
    expect(String(errors[0][0])).toMatch(/\w/);
  });
});

describe('FrameScheduler.arrived', () => {
  test('settings asked for again while a part was on the way: the repeat carries them; other settings are computed instead', async () => {
    const engine = await fixtureEngine();
    const shown: [Snapshot, Repeat | null][] = [];
    const scheduler = new FrameScheduler(
      engine,
      (snapshot, repeats) => shown.push([snapshot, repeats]),
      (error) => {
        throw error;
      },
    );
    const settings = settingsFor({});
    scheduler.request(settings);
    scheduler.flush();
    // Other values than the shown snapshot's: not a repeat (the caller computes them).
    expect(scheduler.arrived('weights', { ...settings, seed: settings.seed + 1 })).toBe(false);
    expect(shown).toHaveLength(1);
    const asked = { ...settings };
    expect(scheduler.arrived('weights', asked)).toBe(true);
    expect(shown).toHaveLength(2);
    const [repeat, repeats] = shown[1]!;
    expect(repeat.settings).toBe(asked);
    expect(repeats).toEqual({ of: shown[0]![0], part: 'weights' });
    // The fixture engine had the weights already: nothing else is new.
    expect(repeat.sentence).toBe(shown[0]![0].sentence);
    // Settings on their way: they read the part when computed.
    scheduler.request(settingsFor({ weights: 'random' }));
    expect(scheduler.arrived('later')).toBe(false);
    expect(shown).toHaveLength(2);
  });
});
