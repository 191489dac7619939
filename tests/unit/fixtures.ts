// Real snapshots for renderer tests: computed by the real wasm engine for fixed settings, so a
// renderer test checks what the page would show for exactly those numbers.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { computeSnapshot } from '../../web/src/compute';
import { DEFAULT_SETTINGS, validateSettings, type Settings } from '../../web/src/settings';
import type { Snapshot } from '../../web/src/snapshot';
import type { AttentionEngine } from '../../web/src/engine/engine';
import { provideTrainedWeights } from '../../web/src/features/trained-model/trained';
import { loadSimdEngine } from './load-engine';

/** The shipped weights, read from disk as the page downloads them. */
export const SHIPPED_WEIGHTS = new Uint8Array(
  readFileSync(resolve(import.meta.dirname, '..', '..', 'web', 'src', 'model', 'who-is-it.bin')),
);

let engine: Promise<AttentionEngine> | null = null;

/** The engine the fixtures compute with, holding the shipped weights. */
export function fixtureEngine(): Promise<AttentionEngine> {
  engine ??= loadSimdEngine().then((made) => {
    provideTrainedWeights(made, SHIPPED_WEIGHTS);
    return made;
  });
  return engine;
}

/**
 * A snapshot with random weights (d_model 8, 2 heads: the shape the renderer tests were written for)
 * unless `change` says otherwise: they check the seeded numbers, so they ask for them rather than the
 * default (the article's example, exampleSnapshotFor).
 */
export async function snapshotFor(change: Partial<Settings> = {}): Promise<Snapshot> {
  const { settings } = validateSettings({ weights: 'random', heads: 2, ...change }, DEFAULT_SETTINGS);
  return computeSnapshot(await fixtureEngine(), settings);
}

/** A snapshot at the default settings: the article's four-token example, the sentence with the trained model beside it. */
export function exampleSnapshotFor(change: Partial<Settings> = {}): Promise<Snapshot> {
  return snapshotFor({ weights: 'example', heads: DEFAULT_SETTINGS.heads, ...change });
}

/** A snapshot with the shipped trained model (unless `change` asks for random weights). */
export function trainedSnapshotFor(change: Partial<Settings> = {}): Promise<Snapshot> {
  return snapshotFor({ weights: 'trained', ...change });
}

/** How the tables label the article's sentence: one label per token, a repeated word with its position. */
export const ARTICLE_TOKEN_LABELS = ['The (1)', 'animal', 'crossed', 'the (4)', 'road', 'because', 'it', 'was', 'tired.'];

/** Everything a snapshot holds, typed arrays as plain arrays: two snapshots compared by value. */
export const plainSnapshot = (snapshot: Snapshot): unknown =>
  JSON.parse(JSON.stringify(snapshot, (_, v: unknown) => (ArrayBuffer.isView(v) ? [...(v as Float32Array)] : v)));
