// The shipped trained model: where its weights file is, and the record `npm run train:weights` wrote
// beside it (task, size, steps, held-out accuracy when it was trained). The record is the one source
// of the model's shape before the engine has read the file; the engine's describe() and evaluate()
// confirm it on the page (tests/unit/trained.test.ts checks that they agree).
import { fetchWeightsOnce } from './fetch-once';
import record from './who-is-it.json';

export interface ShippedModelRecord {
  task: string;
  layers: number;
  heads: number;
  dModel: number;
  parameters: number;
  optimizer: string;
  learningRate: number;
  batch: number;
  seed: number;
  steps: number;
  heldoutExamples: number;
  heldoutAccuracy: number;
  heldoutLoss: number;
  firstFullAccuracyStep: number;
  evaluatedEvery: number;
  bytes: number;
}

export const SHIPPED_MODEL: Readonly<ShippedModelRecord> = Object.freeze(record as ShippedModelRecord);

/** The weights file as this build emitted it (next to the bundle, like the engine's .wasm). */
export function shippedWeightsUrl(): string {
  return new URL('./who-is-it.bin', import.meta.url).href;
}

/** Downloads the weights once per page; a failed download may be retried. */
export function loadShippedWeights(): Promise<Uint8Array> {
  return fetchWeightsOnce(shippedWeightsUrl(), 'the trained weights');
}
