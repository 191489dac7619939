// Words about the small who-is-it model (weights=trained), for step 8's heads. Every number comes
// from the snapshot's TrainedSnapshot: measured by the engine on the shipped weights; none is typed here.
import type { HeadShare } from '../../engine/training';
import type { HeadRef, TrainedSnapshot } from './trained';

/** "layer 2, head 1" for a 0-based head. */
export function headName(ref: HeadRef): string {
  return `layer ${ref.layer + 1}, head ${ref.head + 1}`;
}

export function shareOf(trained: TrainedSnapshot, ref: HeadRef): HeadShare {
  return trained.shares.find((s) => s.layer === ref.layer && s.head === ref.head)!;
}

/**
 * A layer takes a shortcut when, averaged over its heads, "it" reads both nouns about equally: it
 * gathers the two candidates instead of choosing (a later layer chooses, using the adjective).
 */
export function shortcutLayers(trained: TrainedSnapshot): { layer: number; referent: number; otherNoun: number }[] {
  const found: { layer: number; referent: number; otherNoun: number }[] = [];
  for (let layer = 0; layer < trained.model.layers; layer++) {
    const heads = trained.shares.filter((s) => s.layer === layer);
    const referent = heads.reduce((sum, s) => sum + s.referent, 0) / heads.length;
    const otherNoun = heads.reduce((sum, s) => sum + s.otherNoun, 0) / heads.length;
    // Both nouns get a real share, and neither gets twice the other.
    if (Math.min(referent, otherNoun) >= 0.1 && Math.max(referent, otherNoun) < 2 * Math.min(referent, otherNoun))
      found.push({ layer, referent, otherNoun });
  }
  return found;
}
