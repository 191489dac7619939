// The `debug` attribute: with it, an element's `debug` property hands out its engine and its UI path,
// for the browser console and for the browser tests that measure memory, engine recovery and numerics
// through the page's own engine. Without the attribute the property is null, so nothing reaches the
// engine from outside by accident; the attribute is documented with the others (custom-elements.json).
import { computeSnapshot } from '../compute';
import type { AttentionEngine } from '../engine/engine';
import type { Settings } from '../settings';
import type { Snapshot } from '../snapshot';
import type { WalkthroughState } from '../state';
import type { Walkthrough } from '../walkthrough';

/** What `element.debug` gives when the element has the `debug` attribute and has started. */
export interface AttentionDebug {
  /** The engine the element computes with (shared by every element on the page). */
  engine: AttentionEngine;
  /** The UI's compute path, computeSnapshot(engine, settings), without rendering. */
  compute(settings?: Settings): Snapshot;
  /** A settings change, validated, then scheduled, computed and rendered like a control's (history: replace). */
  update(change: Partial<Settings>): void;
  /** Computes any pending change and draws every step now, including those queued for idle time. */
  flush(): void;
  /** Every step shows the latest settings: the idle-time drawing has caught up. */
  drawn(): boolean;
}

export function debugHandle(engine: AttentionEngine, state: WalkthroughState, walkthrough: Walkthrough): AttentionDebug {
  return {
    engine,
    compute: (settings = state.settings) => computeSnapshot(engine, settings),
    update: (change) => state.update(change, 'replace'),
    flush: () => walkthrough.flush(),
    drawn: () => walkthrough.drawn,
  };
}
