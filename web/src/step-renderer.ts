// Draws the steps the reader can see in the frame after a change, and the rest in idle time, one
// step per idle slice. A settings change then costs the visible sections' work (a few ms), not all
// ten sections' (hundreds of ms of style and layout on a slow machine), and the page never has a
// stale section on screen: a section scrolled into view is drawn before it is painted.
import type { Snapshot } from './snapshot';
import type { StepView } from './steps/types';

interface Entry {
  section: HTMLElement;
  view: StepView;
  /** The snapshot this section shows; it is stale when it is not the latest. */
  drawn: Snapshot | null;
  near: boolean;
}

/** How far outside the viewport a section still counts as visible. */
const NEAR = '600px 0px';

const idle: (callback: () => void) => void =
  typeof requestIdleCallback === 'function' ? (callback) => requestIdleCallback(callback, { timeout: 500 }) : (callback) => setTimeout(callback, 0);

export class StepRenderer {
  private readonly entries: Entry[];
  private latest: Snapshot | null = null;
  private idleQueued = false;
  private readonly observer: IntersectionObserver | null;

  constructor(sections: { section: HTMLElement; view: StepView }[]) {
    this.entries = sections.map(({ section, view }) => ({ section, view, drawn: null, near: false }));
    this.observer = typeof IntersectionObserver === 'function'
      ? new IntersectionObserver((records) => this.onIntersect(records), { rootMargin: NEAR })
      : null;
    for (const entry of this.entries) this.observer?.observe(entry.section);
  }

  /** Draws every section now (first paint: the page arrives complete). */
  renderAll(snapshot: Snapshot): void {
    this.latest = snapshot;
    for (const entry of this.entries) this.draw(entry);
  }

  /** Draws the visible sections now and queues the others for idle time. */
  render(snapshot: Snapshot): void {
    this.latest = snapshot;
    if (!this.observer) {
      this.renderAll(snapshot);
      return;
    }
    for (const entry of this.entries) if (entry.near) this.draw(entry);
    this.queueIdle();
  }

  /** Draws whatever is still stale (tests, exports, before reading every table). */
  flush(): void {
    for (const entry of this.entries) this.draw(entry);
  }

  disconnect(): void {
    this.observer?.disconnect();
  }

  private draw(entry: Entry): void {
    if (!this.latest || entry.drawn === this.latest) return;
    entry.drawn = this.latest;
    entry.view.render(this.latest);
  }

  private onIntersect(records: IntersectionObserverEntry[]): void {
    for (const record of records) {
      const entry = this.entries.find((e) => e.section === record.target);
      if (!entry) continue;
      entry.near = record.isIntersecting;
      if (entry.near) this.draw(entry);
    }
  }

  private queueIdle(): void {
    if (this.idleQueued) return;
    this.idleQueued = true;
    idle(() => {
      this.idleQueued = false;
      const stale = this.entries.find((entry) => this.latest && entry.drawn !== this.latest);
      if (!stale) return;
      this.draw(stale);
      this.queueIdle();
    });
  }
}
