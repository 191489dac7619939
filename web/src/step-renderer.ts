// Draws the steps the reader can see in the frame after a change, and the rest in idle time, one
// step per idle slice, once the settings have been still for a moment. A settings change then costs
// the visible sections' work (a few ms), not all ten sections' (hundreds of ms of style and layout on
// a slow machine), and the page never has a stale section on screen: a section scrolled into view is
// drawn before it is painted. The first drawing over a prerendered page is spread over tasks too, one
// section per task, because the copy on screen already shows every number (tests/bench/page-walk.ts:
// drawing the sections near the viewport in one task was a 125 ms task on a phone's CPU). A section
// drawn off screen (in idle time, or when its code arrives) is made live in one task and drawn from the
// next, one piece per task where its view has pieces (steps/shared/pieces.ts); one near the viewport
// is always drawn whole, so the reader never sees figures of two snapshots side by side. A section drawn
// off screen is laid out as it goes, in a task after its mount and after each piece (layOutSkipped). A
// snapshot that repeats the last with one part new (something that arrived: snapshot.ts ArrivedPart) is
// drawn only in the sections that show that part.
import type { ArrivedPart, Repeat, Snapshot } from './snapshot';
import type { StepView } from './steps/types';
import { nextTask } from './next-task';

/**
 * One step's section. Over a prerendered page the live section is made at its first drawing, which
 * puts it in the prerendered copy's place: the copy already shows the default settings, and making all
 * ten sections' DOM up front (~5,000 elements) was the longest task of the page's start on a phone.
 */
export type StepSection = (
  | { section: HTMLElement; view: StepView }
  | {
      section: HTMLElement;
      mount: () => { section: HTMLElement; view: StepView };
      /**
       * A step whose code is fetched apart (elements/lazy-step.ts): called at the step's first drawing,
       * and the section is mounted once it resolves true; false leaves the section as it is, for good.
       */
      load?: () => Promise<boolean>;
    }
) & {
  /**
   * The parts of a snapshot that can arrive late (snapshot.ts) that it shows: a snapshot that repeats
   * another with one such part new is drawn only in the sections that show that part.
   */
  shows?: readonly ArrivedPart[];
};

/** A section's drawing in pieces, under way; `pieces` is made at its first piece (after the mount's task). */
interface Drawing {
  snapshot: Snapshot;
  pieces: Iterator<void, void> | null;
}

/**
 * Lays out a section that content-visibility skips, by reading a box inside it. Chromium's autofill reads
 * every form field a task or so after fields are inserted or written, and a read lays out the skipped
 * section around the field with all that was drawn in it since: over a prerendered page, going live made
 * the new sections' fields and then such a layout of 900 to 2,000 objects, 100–150 ms on a phone's CPU.
 * Read after each piece in a task of its own, a layout is one piece's size, and the section keeps it: the
 * reader's scroll down to it then paints, without a first layout (tests/bench/README.md, the eleventh pass).
 */
function layOutSkipped(section: HTMLElement): void {
  // Only below the viewport: a skipped section laid out this way can change height for a moment, which
  // above the viewport moves what the reader sees (a deep link's landing, tests/browser/deep-link.test.ts).
  if (typeof innerHeight !== 'number' || section.getBoundingClientRect().top < innerHeight) return;
  section.lastElementChild?.getBoundingClientRect();
}

interface Entry {
  /** The section on the page: the live one, or the prerendered copy until it is mounted. */
  section: HTMLElement;
  view: StepView | null;
  mount: (() => { section: HTMLElement; view: StepView }) | null;
  load: (() => Promise<boolean>) | null;
  /** Its code is on the way (load() called, not settled): the idle drawing goes on to the next section. */
  loading: boolean;
  /** Its code could not load: it keeps what it shows and is never stale. */
  failed: boolean;
  /** The snapshot this section shows; it is stale when it is not the latest. */
  drawn: Snapshot | null;
  /** Its drawing in pieces, under way (it counts as drawn only after the last piece). */
  drawing: Drawing | null;
  near: boolean;
  shows: readonly ArrivedPart[];
}

/** How far outside the viewport a section still counts as visible. */
const NEAR_PX = 600;
const NEAR = `${NEAR_PX}px 0px`;

/**
 * Off-screen sections wait until the settings have been still this long. While the reader holds an
 * arrow key or clicks through settings, they would be drawn for values gone a moment later, and a
 * section's drawing (up to 100 ms at 256 tokens) in progress when the next input arrives delays
 * that input's frame.
 */
const QUIET_MS = 250;

function idle(callback: () => void): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(callback, { timeout: 500 });
  else setTimeout(callback, 0);
}

export class StepRenderer {
  private readonly entries: Entry[];
  private latest: Snapshot | null = null;
  private idleQueued = false;
  /** When render() last had a new snapshot (performance.now()). */
  private changedAt = -Infinity;
  private readonly observer: IntersectionObserver | null;
  /** Callers of settled() waiting for the idle drawing to catch up. */
  private settledWaiters: (() => void)[] = [];

  constructor(sections: StepSection[]) {
    this.entries = sections.map((step) => ({
      section: step.section,
      view: 'view' in step ? step.view : null,
      mount: 'mount' in step ? step.mount : null,
      load: ('load' in step && step.load) || null,
      loading: false,
      failed: false,
      drawn: null,
      drawing: null,
      near: false,
      shows: step.shows ?? [],
    }));
    this.observer =
      typeof IntersectionObserver === 'function'
        ? new IntersectionObserver((records) => this.onIntersect(records), { rootMargin: NEAR })
        : null;
    for (const entry of this.entries) this.observer?.observe(entry.section);
  }

  /** Draws every section now (first paint: the page arrives complete). */
  renderAll(snapshot: Snapshot): void {
    this.latest = snapshot;
    for (const entry of this.entries) this.draw(entry);
  }

  /**
   * The first drawing over a prerendered page, which already shows every section: the sections from
   * the top through the last one near the viewport, one per task from the top, each made live and drawn
   * in its task (the copy stays until then), and then the rest in idle time, without waiting for the
   * settings to be still. The sections above the viewport are drawn first: one that changed height
   * would move what the reader is looking at.
   */
  renderFromTop(snapshot: Snapshot): void {
    if (!this.observer) {
      this.renderAll(snapshot);
      return;
    }
    this.latest = snapshot;
    this.changedAt = -Infinity;
    const reach = innerHeight + NEAR_PX;
    const inReach = this.entries.findIndex((entry) => entry.section.getBoundingClientRect().top > reach);
    this.drawInTasks(this.entries.slice(0, inReach < 0 ? this.entries.length : inReach), snapshot);
  }

  /** Draws `entries` one per task while `snapshot` is the latest, then leaves the rest to idle time. */
  private drawInTasks(entries: Entry[], snapshot: Snapshot): void {
    const [first, ...rest] = entries;
    if (!first || this.latest !== snapshot) {
      this.queueIdle();
      return;
    }
    nextTask(() => {
      if (this.latest === snapshot) this.draw(first);
      this.drawInTasks(rest, snapshot);
    });
  }

  /**
   * Draws the visible sections now and queues the others for idle time. With `repeats` (compute.ts
   * FrameScheduler: `snapshot` is `repeats.of` with only `repeats.part` new), only the sections that show
   * that part are stale: the others showing `repeats.of` show `snapshot` as they are.
   */
  render(snapshot: Snapshot, repeats: Repeat | null = null): void {
    if (repeats) this.carryOver(repeats, snapshot);
    this.latest = snapshot;
    this.changedAt = performance.now();
    if (!this.observer) {
      this.renderAll(snapshot);
      return;
    }
    for (const entry of this.entries) if (entry.near) this.draw(entry);
    this.queueIdle();
  }

  /** The sections that do not show the new part and show (or are drawing) the snapshot repeated count as showing `to`. */
  private carryOver({ of, part }: Repeat, to: Snapshot): void {
    for (const entry of this.entries) {
      if (entry.shows.includes(part)) continue;
      if (entry.drawn === of) entry.drawn = to;
      if (entry.drawing?.snapshot === of) entry.drawing.snapshot = to;
    }
  }

  /** Every section shows the latest snapshot (nothing is left for idle time). */
  get drawn(): boolean {
    return !this.firstStale();
  }

  /** Some step's code is on the way (elements/lazy-step.ts): it is drawn when it arrives. */
  get loading(): boolean {
    return this.entries.some((entry) => entry.loading);
  }

  /**
   * Resolves once every section shows the latest snapshot: at once if none is stale, else when the
   * idle drawing (or a scroll, or flush()) has drawn the last stale one. It never draws anything itself.
   */
  settled(): Promise<void> {
    if (this.drawn) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** Draws whatever is still stale (tests, exports, before reading every table). */
  flush(): void {
    for (const entry of this.entries) this.draw(entry);
  }

  disconnect(): void {
    this.observer?.disconnect();
  }

  private draw(entry: Entry): void {
    if (!this.latest || entry.drawn === this.latest || entry.failed) return;
    if (!entry.view && entry.load) {
      this.load(entry, entry.load);
      return;
    }
    // Drawn whole: a drawing in pieces under way is superseded (its next task sees it and stops).
    entry.drawing = null;
    entry.drawn = this.latest;
    if (!entry.view) this.mountLive(entry);
    entry.view!.render(this.latest);
    this.wakeSettled();
  }

  /**
   * Draws a section one piece per task where its view has pieces, else whole: one near the viewport and
   * one whose code is still to load go to draw(). A live section still to make is made in this task and
   * drawn from the next (making and drawing the longest steps was one task of 100–180 ms on a phone's
   * CPU). A newer snapshot stops the drawing at its next task: the section is stale again, and is drawn
   * anew as any stale section is.
   */
  private drawInPieces(entry: Entry): void {
    if (!this.latest || entry.drawn === this.latest || entry.failed || this.underWay(entry)) return;
    if (entry.near || (!entry.view && entry.load)) {
      this.draw(entry);
      return;
    }
    const drawing: Drawing = { snapshot: this.latest, pieces: null };
    entry.drawing = drawing;
    if (entry.view) {
      this.nextPiece(entry, drawing);
      return;
    }
    this.mountLive(entry);
    this.afterLayout(entry, () => this.nextPiece(entry, drawing));
  }

  /** `then` in the next task but one, with the section laid out in the task between. */
  private afterLayout(entry: Entry, then: () => void): void {
    nextTask(() => {
      layOutSkipped(entry.section);
      nextTask(then);
    });
  }

  private nextPiece(entry: Entry, drawing: Drawing): void {
    // Drawn whole since (it came near, flush()), or a newer snapshot came: stale again, drawn anew.
    if (entry.drawing !== drawing) return;
    if (this.latest !== drawing.snapshot) {
      entry.drawing = null;
      return;
    }
    const view = entry.view!;
    if (!view.pieces) {
      this.draw(entry); // whole, in this task
      nextTask(() => layOutSkipped(entry.section));
      return;
    }
    drawing.pieces ??= view.pieces(drawing.snapshot);
    if (!drawing.pieces.next().done) {
      this.afterLayout(entry, () => this.nextPiece(entry, drawing));
      return;
    }
    nextTask(() => layOutSkipped(entry.section));
    entry.drawing = null;
    entry.drawn = drawing.snapshot;
    this.wakeSettled();
  }

  /** Its drawing in pieces for the latest snapshot is under way. */
  private underWay(entry: Entry): boolean {
    return entry.drawing !== null && entry.drawing.snapshot === this.latest;
  }

  private wakeSettled(): void {
    if (this.settledWaiters.length > 0 && this.drawn) for (const resolve of this.settledWaiters.splice(0)) resolve();
  }

  private load(entry: Entry, load: () => Promise<boolean>): void {
    if (entry.loading) return;
    entry.loading = true;
    void load().then((ok) => {
      entry.loading = false;
      entry.load = null;
      entry.failed = !ok;
      // Drawn in a task of its own: steps whose code arrived together were all made live and drawn in
      // one microtask checkpoint, with the computation their arrival asked for (a 300 ms task on a
      // phone's CPU, tests/bench/page-walk.ts).
      if (ok) nextTask(() => this.drawInPieces(entry));
      else this.wakeSettled();
    });
  }

  /** Makes the live section and puts it where the prerendered copy was. */
  private mountLive(entry: Entry): void {
    const live = entry.mount!();
    this.observer?.unobserve(entry.section);
    entry.section.replaceWith(live.section);
    entry.section = live.section;
    entry.view = live.view;
    entry.mount = null;
    this.observer?.observe(live.section);
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
    const wait = this.changedAt + QUIET_MS - performance.now();
    if (wait > 0) {
      setTimeout(() => {
        this.idleQueued = false;
        this.queueIdle();
      }, wait);
      return;
    }
    idle(() => {
      this.idleQueued = false;
      this.drawOneStale();
    });
  }

  /**
   * One stale section per idle slice (in pieces where it has them), unless a change since asks to wait
   * again. A section whose code is on the way, or whose drawing in pieces is under way, is passed over.
   */
  private drawOneStale(): void {
    const waiting = (entry: Entry) => !entry.loading && !this.underWay(entry);
    const stale = this.firstStale(waiting);
    if (!stale) return;
    if (performance.now() - this.changedAt >= QUIET_MS) {
      this.drawInPieces(stale);
      if (!this.firstStale(waiting)) return;
    }
    this.queueIdle();
  }

  /** A section that does not show the latest snapshot (one whose code is on the way counts, one that failed does not). */
  private firstStale(also: (entry: Entry) => boolean = () => true): Entry | undefined {
    return this.entries.find((entry) => this.latest && entry.drawn !== this.latest && !entry.failed && also(entry));
  }
}
