// Real snapshots for renderer tests: computed by the real wasm engine for fixed settings, so a
// renderer test checks what the page would show for exactly those numbers.
import { computeSnapshot } from '../../web/src/compute';
import { DEFAULT_SETTINGS, validateSettings, type Settings } from '../../web/src/settings';
import type { Snapshot } from '../../web/src/snapshot';
import type { AttentionEngine } from '../../web/src/engine/engine';
import { loadSimdEngine } from './load-engine';

let engine: Promise<AttentionEngine> | null = null;

export async function snapshotFor(change: Partial<Settings> = {}): Promise<Snapshot> {
  engine ??= loadSimdEngine();
  const { settings } = validateSettings(change, DEFAULT_SETTINGS);
  return computeSnapshot(await engine, settings);
}
