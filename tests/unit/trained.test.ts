// @vitest-environment happy-dom
// The walkthrough with the trained model (weights=trained): the setting through URL, attributes and
// validation; the snapshot (the shipped model read by the engine: its shape agrees with the training
// record, the pipeline reproduces the resolving layer's attention); step 8 rendered from real trained
// snapshots, with its numbers read back against the snapshot (step 1 shows the reader model:
// tests/unit/reader-step.test.ts).
import { describe, expect, test } from 'vitest';
import { settingsFromAttributes, settingsToAttributes } from '../../web/src/elements/attributes';
import { fmt } from '../../web/src/ui/format';
import { SHIPPED_MODEL } from '../../web/src/model/shipped';
import { DEFAULT_SETTINGS, settingsFromParams, settingsToQuery, shapeOf, validateSettings, type Settings } from '../../web/src/settings';
import { whoIsIt, type Snapshot } from '../../web/src/snapshot';
import { problemStep } from '../../web/src/steps/01-problem/step';
import { multiHeadStep } from '../../web/src/steps/08-multi-head/step';
import {
  heldoutReading,
  loadTrainedWeights,
  provideTrainedWeights,
  resolvingHead,
  trainedSentence,
} from '../../web/src/features/trained-model/trained';
import { Trainer } from '../../web/src/engine/training';
import { EngineError } from '../../web/src/engine/engine';
import { ARTICLE_TOKEN_LABELS, fixtureEngine, SHIPPED_WEIGHTS, trainedSnapshotFor } from './fixtures';
import { loadSimdEngine } from './load-engine';

const fromQuery = (query: string) => settingsFromParams(new URLSearchParams(query));
const ARTICLE = 'The animal crossed the road because it was tired.';
const WIDE = 'The animal crossed the road because it was wide.';

function itRow(snapshot: Snapshot, layer: number, head: number): number[] {
  const t = whoIsIt(snapshot.trained)!;
  const n = t.words.length;
  return Array.from(t.attention[layer].data.subarray((head * n + t.query) * n, (head * n + t.query + 1) * n));
}
const argmax = (row: number[]) => row.indexOf(Math.max(...row));

describe('the weights setting', () => {
  test('the article’s example by default, left out of the URL; trained and random round-trip', () => {
    expect(DEFAULT_SETTINGS.weights).toBe('example');
    expect(settingsToQuery(DEFAULT_SETTINGS)).toBe('');
    expect(settingsToQuery(fromQuery('weights=trained').settings)).toBe('weights=trained');
    const random = fromQuery('weights=random');
    expect(random).toEqual({ settings: { ...DEFAULT_SETTINGS, weights: 'random' }, notices: [] });
    expect(settingsToQuery(random.settings)).toBe('weights=random');
    expect(fromQuery('weights=TRAINED').settings.weights).toBe('trained');
  });

  test.each(['bogus', '1', '', '<script>'])('weights=%s: the default, and one notice saying so', (value) => {
    const { settings, notices } = fromQuery(`weights=${encodeURIComponent(value)}`);
    expect(settings.weights).toBe('example');
    expect(notices).toEqual([`The weights must be example, trained or random; “${value}” was ignored, so the article’s example is used.`]);
  });

  test('a bad value in an update keeps the current weights', () => {
    const { settings, notices } = validateSettings({ weights: 'nope' as Settings['weights'] }, { ...DEFAULT_SETTINGS, weights: 'random' });
    expect(settings.weights).toBe('random');
    expect(notices[0]).toMatch(/so the random weights are used/);
  });

  test('the element attribute `weights` means what the URL parameter means', () => {
    const element = document.createElement('div');
    element.setAttribute('weights', 'random');
    expect(settingsFromAttributes(element).settings.weights).toBe('random');
    expect(settingsToAttributes({ ...DEFAULT_SETTINGS, weights: 'random' })).toEqual([['weights', 'random']]);
    element.setAttribute('weights', 'pretrained');
    expect(settingsFromAttributes(element).notices).toEqual([
      'The weights must be example, trained or random; “pretrained” was ignored, so the article’s example is used.',
    ]);
  });

  test('trained: the shown head is checked against the model’s heads, d_model and h keep the reader’s random-mode values', () => {
    expect(shapeOf({ ...DEFAULT_SETTINGS, weights: 'trained' })).toEqual({
      dModel: SHIPPED_MODEL.dModel,
      heads: SHIPPED_MODEL.heads,
      dK: SHIPPED_MODEL.dModel / SHIPPED_MODEL.heads,
    });
    expect(shapeOf(DEFAULT_SETTINGS)).toEqual({ dModel: 8, heads: 1, dK: 4 });
    const { settings, notices } = fromQuery('weights=trained&heads=8&d_model=16&head=5');
    expect(settings).toMatchObject({ weights: 'trained', dModel: 16, heads: 8, head: SHIPPED_MODEL.heads - 1 });
    expect(notices).toEqual([
      `d_model and heads only apply to random weights; the trained model has d_model ${SHIPPED_MODEL.dModel} and ${SHIPPED_MODEL.heads} heads, so they were not used.`,
      `There are only ${SHIPPED_MODEL.heads} heads in the trained model, so head ${SHIPPED_MODEL.heads} is shown instead of head 5.`,
    ]);
    expect(fromQuery('weights=random&heads=8&d_model=16&head=5')).toMatchObject({ settings: { head: 4 }, notices: [] });
  });
});

describe('the trained snapshot', () => {
  test('is the shipped model: its shape and accuracy agree with the training record', async () => {
    const s = await trainedSnapshotFor();
    const t = whoIsIt(s.trained)!;
    expect(t.model).toMatchObject({
      task: SHIPPED_MODEL.task,
      layers: SHIPPED_MODEL.layers,
      heads: SHIPPED_MODEL.heads,
      dModel: SHIPPED_MODEL.dModel,
      parameters: SHIPPED_MODEL.parameters,
      steps: SHIPPED_MODEL.steps,
    });
    expect(t.evaluation.examples).toBe(SHIPPED_MODEL.heldoutExamples);
    expect(t.evaluation.accuracy).toBeCloseTo(SHIPPED_MODEL.heldoutAccuracy, 6);
    expect(t.evaluation.accuracy).toBeGreaterThanOrEqual(0.99);
    expect(t.resolving).toEqual(resolvingHead(t.shares));
    const best = t.shares.find((x) => x.layer === t.resolving.layer && x.head === t.resolving.head)!;
    for (const other of t.shares) expect(best.referent).toBeGreaterThanOrEqual(other.referent);
    expect(best.referent).toBeGreaterThan(0.5);
    expect(best.otherNoun).toBeLessThan(0.2);
  });

  test('the walkthrough’s pipeline is the resolving layer, at the model’s shape, reproducing its attention', async () => {
    const s = await trainedSnapshotFor();
    const t = whoIsIt(s.trained)!;
    expect([s.pipeline.dModel, s.pipeline.heads, s.pipeline.dK]).toEqual([32, 2, 16]);
    const model = t.attention[t.resolving.layer].data;
    let worst = 0;
    model.forEach((w, i) => {
      worst = Math.max(worst, Math.abs(w - s.pipeline.weights.data[i]));
    });
    expect(worst).toBeLessThan(2e-6);
  });

  test('“it” reads “animal” when tired, “road” when wide, and the prediction follows', async () => {
    const tired = await trainedSnapshotFor({ sentence: ARTICLE });
    const wide = await trainedSnapshotFor({ sentence: WIDE });
    const { layer, head } = whoIsIt(tired.trained)!.resolving;
    expect(whoIsIt(tired.trained)!.words[argmax(itRow(tired, layer, head))]).toBe('animal');
    expect(whoIsIt(wide.trained)!.words[argmax(itRow(wide, layer, head))]).toBe('road');
    expect(whoIsIt(tired.trained)!.top[0]).toMatchObject({ word: 'animal' });
    expect(whoIsIt(wide.trained)!.top[0]).toMatchObject({ word: 'road' });
    expect(whoIsIt(tired.trained)!.top[0].probability).toBeGreaterThan(0.9);
  });

  test('words outside the vocabulary are flagged; a sentence past the model’s positions is cut, and says so', async () => {
    const zebra = await trainedSnapshotFor({ sentence: 'The zebra crossed the road because it was tired.' });
    expect(whoIsIt(zebra.trained)!.unknown).toEqual([false, true, false, false, false, false, false, false, false]);
    const long = await trainedSnapshotFor({ sentence: `${ARTICLE} ${ARTICLE}` });
    const positions = whoIsIt(long.trained)!.model.maxPositions;
    expect(whoIsIt(long.trained)!.cut).toEqual({ words: 18, positions });
    expect(long.tokens).toHaveLength(positions);
    expect(long.pipeline.n).toBe(positions);
  });
});

describe('the held-out reading in pieces', () => {
  // The page reads the shipped model's accuracy and head shares a batch at a time (readHeldout), a task
  // per piece, where evaluate() and headShares() were one long task each on a phone's CPU.
  test('batch by batch, it ends with exactly what evaluate() and headShares() give', async () => {
    const trainer = Trainer.fromWeights(await fixtureEngine(), SHIPPED_WEIGHTS);
    try {
      const evaluation = trainer.evaluate();
      const shares = trainer.headShares();
      const read: number[] = [];
      let part = trainer.readHeldout(1);
      while (!part.done) {
        expect(part.examples).toBe(SHIPPED_MODEL.heldoutExamples);
        read.push(part.read);
        part = trainer.readHeldout(1);
      }
      const batches = Math.ceil(SHIPPED_MODEL.heldoutExamples / 64);
      expect(read).toEqual(Array.from({ length: batches - 1 }, (_, i) => (i + 1) * 64));
      expect(part.evaluation.examples).toBe(evaluation.examples);
      expect(part.evaluation.positions).toBe(evaluation.positions);
      expect(part.evaluation.accuracy).toBe(evaluation.accuracy);
      expect(part.evaluation.loss).toBeCloseTo(evaluation.loss, 6);
      expect(part.shares).toEqual(shares);
      // Finished, the next call starts the pass over; a training step starts it over too.
      expect(trainer.readHeldout(3)).toEqual({ done: false, read: 192, examples: SHIPPED_MODEL.heldoutExamples });
      trainer.step(1);
      expect(trainer.readHeldout(2)).toEqual({ done: false, read: 128, examples: SHIPPED_MODEL.heldoutExamples });
      for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => trainer.readHeldout(bad)).toThrow(EngineError);
    } finally {
      trainer.dispose();
    }
  });

  test('heldoutReading yields between pieces; at no budget, between every two batches', async () => {
    const trainer = Trainer.fromWeights(await fixtureEngine(), SHIPPED_WEIGHTS);
    try {
      const reading = heldoutReading(trainer, 0);
      let yields = 0;
      let piece = reading.next();
      for (; !piece.done; piece = reading.next()) yields += 1;
      expect(yields).toBe(Math.ceil(SHIPPED_MODEL.heldoutExamples / 64) - 1);
      expect(piece.value).toEqual({
        shares: trainer.headShares(),
        evaluation: expect.objectContaining({ accuracy: trainer.evaluate().accuracy }),
      });
    } finally {
      trainer.dispose();
    }
  });

  test('after loadTrainedWeights, a snapshot reads the held-out set no more', async () => {
    const engine = await loadSimdEngine();
    provideTrainedWeights(engine, SHIPPED_WEIGHTS);
    const original = Trainer.prototype.readHeldout;
    let calls = 0;
    Trainer.prototype.readHeldout = function (this: Trainer, batches: number) {
      calls += 1;
      return original.call(this, batches);
    };
    try {
      expect(await loadTrainedWeights(engine)).toEqual({ failure: null });
      expect(calls).toBe(Math.ceil(SHIPPED_MODEL.heldoutExamples / 64));
      const { trained } = trainedSentence(engine, ARTICLE.split(' '));
      expect(calls).toBe(Math.ceil(SHIPPED_MODEL.heldoutExamples / 64));
      expect(trained.resolving).toEqual(resolvingHead(trained.shares));
    } finally {
      Trainer.prototype.readHeldout = original;
    }
  });
});

function mountStep(step: typeof problemStep, predictions = false) {
  const body = document.createElement('div');
  document.body.replaceChildren(body);
  const view = step.mount(body, { update: () => {}, predictions });
  return { body, view };
}

describe('step 8 with trained weights', () => {
  test('one labelled map per layer and head, after a table of their measured shares; the shortcut layer is named', async () => {
    const s = await trainedSnapshotFor();
    const t = whoIsIt(s.trained)!;
    const { body, view } = mountStep(multiHeadStep);
    view.render(s);
    const section = body.querySelector('.trained-heads') as HTMLElement;
    expect(section.hidden).toBe(false);
    const maps = [...section.querySelectorAll('.trained-head')];
    expect(maps).toHaveLength(t.model.layers * t.model.heads);
    t.shares.forEach((share, i) => {
      expect(maps[i].querySelector('caption')!.textContent).toMatch(new RegExp(`^layer ${share.layer + 1}, head ${share.head + 1}`));
      // The shares are said once, in the table above the maps (row i is head i), not again under each map.
      const row = section.querySelectorAll('table.trained-heads-shares tbody tr')[i];
      expect(row.querySelector('th')!.textContent).toBe(`layer ${share.layer + 1}, head ${share.head + 1}`);
      expect([...row.querySelectorAll('td')].map((td) => td.textContent)).toEqual(
        [share.referent, share.otherNoun, share.adjective, share.self].map((v) => fmt(v)),
      );
      expect(maps[i].querySelector('figcaption')).toBeNull();
      // Row labels and column labels are the sentence's tokens; the cells are that head's weights.
      const cells = [...maps[i].querySelectorAll('tbody td')].map((td) => td.textContent);
      const n = t.words.length;
      expect(cells).toEqual(
        Array.from(t.attention[share.layer].data.subarray(share.head * n * n, (share.head + 1) * n * n), (w) => fmt(w)),
      );
    });
    expect([...maps[0].querySelectorAll('thead th')].map((th) => th.textContent).slice(1)).toEqual(ARTICLE_TOKEN_LABELS);
    // Layer 1 reads both nouns alike (measured), so the page calls it a shortcut.
    const layer1 = t.shares.filter((x) => x.layer === 0);
    const mean = (key: 'referent' | 'otherNoun') => layer1.reduce((a, x) => a + x[key], 0) / layer1.length;
    expect(Math.abs(mean('referent') - mean('otherNoun'))).toBeLessThan(0.1);
    expect(section.querySelector('.trained-heads-shortcut')!.textContent).toBe(
      `Layer 1 takes a shortcut, on average ${fmt(mean('referent'))} on the referent and ${fmt(mean('otherNoun'))} on the other noun: it gathers both. Layer 2 chooses, using the adjective.`,
    );
    // h is the model's: the other counts are disabled with a note.
    const buttons = [...body.querySelectorAll('.multi-head-choices button')] as HTMLButtonElement[];
    expect(buttons.filter((b) => !b.disabled).map((b) => b.textContent)).toEqual(['2']);
    expect(body.querySelector('.multi-head-choices-note')!.textContent).toMatch(/trained with h = 2/);
  });

  test('a drawing in pieces stopped between two maps leaves no map out or twice when drawn again', async () => {
    const s = await trainedSnapshotFor();
    const t = whoIsIt(s.trained)!;
    const n = t.words.length;
    const { body, view } = mountStep(multiHeadStep);
    const mapsShown = () => [...body.querySelectorAll('.trained-head')].map((map) => map.querySelectorAll('tbody td').length / (n * n));
    // The step's first piece, the shares, then the first map: the rest of the grid is not made yet.
    const pieces = view.pieces!(s);
    for (let i = 0; i < 3; ++i) expect(pieces.next().done).toBe(false);
    expect(mapsShown()).toEqual([1]);
    // A newer snapshot drops that drawing (step-renderer.ts) and draws the step anew.
    view.render(s);
    expect(mapsShown()).toEqual(Array.from({ length: t.model.layers * t.model.heads }, () => 1));
    t.shares.forEach((share, i) => {
      const cells = [...body.querySelectorAll('.trained-head')[i].querySelectorAll('tbody td')].map((td) => td.textContent);
      expect(cells).toEqual(
        Array.from(t.attention[share.layer].data.subarray(share.head * n * n, (share.head + 1) * n * n), (w) => fmt(w)),
      );
    });
  });

  test('with random weights the trained section is hidden', async () => {
    const { body, view } = mountStep(multiHeadStep);
    view.render(await trainedSnapshotFor({ weights: 'random' }));
    expect((body.querySelector('.trained-heads') as HTMLElement).hidden).toBe(true);
  });
});
