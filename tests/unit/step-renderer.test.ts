// The step renderer's schedule: sections in view are drawn with the change; the others wait until
// the settings have been still for QUIET_MS and are then drawn one per idle slice, so a burst of
// changes (a held arrow key) draws the off-screen sections once, for the last settings only; the first
// drawing over a prerendered page draws what is in view one section per task from the top and the rest
// without a quiet period; a section off screen whose view has pieces is drawn one piece per task and
// counts as drawn only after its last; a section drawn off screen is laid out a task after its mount and
// after each piece; a snapshot that repeats the last with only step 1's reader model read again redraws only
// the sections that show that model; and
// settled(), which the elements' updateComplete waits on, resolves only once nothing is stale.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { StepRenderer } from '../../web/src/step-renderer';
import { drawnInPieces } from '../../web/src/steps/shared/pieces';
import type { Snapshot } from '../../web/src/snapshot';

/** An IntersectionObserver the test drives: `show(section)` reports it near the viewport. */
class StubObserver {
  static last: StubObserver | null = null;
  constructor(private readonly callback: (records: IntersectionObserverEntry[]) => void) {
    StubObserver.last = this;
  }
  readonly observed = new Set<object>();
  observe(target: object): void {
    this.observed.add(target);
  }
  unobserve(target: object): void {
    this.observed.delete(target);
  }
  disconnect(): void {}
  show(target: object, isIntersecting = true): void {
    this.callback([{ target, isIntersecting } as unknown as IntersectionObserverEntry]);
  }
}

/** Idle callbacks the test runs one at a time, like idle slices. */
let idleQueue: (() => void)[] = [];
const runIdleSlice = () => idleQueue.shift()?.();
/** Tasks posted with scheduler.postTask, run one at a time. */
let taskQueue: (() => void)[] = [];
const runTask = () => taskQueue.shift()?.();

function setup(count: number) {
  const drawnWith: Snapshot[][] = Array.from({ length: count }, () => []);
  const sections = drawnWith.map((log) => ({
    section: {} as HTMLElement,
    view: { render: (snapshot: Snapshot) => log.push(snapshot) },
  }));
  const renderer = new StepRenderer(sections);
  return { renderer, drawnWith, sections, observer: StubObserver.last! };
}

const snapshot = (id: number) => ({ id }) as unknown as Snapshot;

beforeEach(() => {
  vi.useFakeTimers();
  idleQueue = [];
  taskQueue = [];
  vi.stubGlobal('IntersectionObserver', StubObserver);
  vi.stubGlobal('scheduler', { postTask: (callback: () => void) => Promise.resolve(taskQueue.push(callback)) });
  vi.stubGlobal('requestIdleCallback', (callback: () => void) => idleQueue.push(callback));
  vi.stubGlobal('innerHeight', 800);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('StepRenderer', () => {
  test('a section in view is drawn with the change; the others only after the quiet period, one per idle slice', () => {
    const { renderer, drawnWith, sections, observer } = setup(3);
    observer.show(sections[0].section);
    const first = snapshot(1);
    renderer.render(first);
    expect(drawnWith.map((log) => log.length)).toEqual([1, 0, 0]);
    expect(renderer.drawn).toBe(false);

    vi.advanceTimersByTime(200);
    expect(idleQueue).toHaveLength(0); // still inside the quiet period: nothing queued for idle time
    vi.advanceTimersByTime(60);
    expect(idleQueue).toHaveLength(1);
    runIdleSlice();
    expect(drawnWith.map((log) => log.length)).toEqual([1, 1, 0]);
    runIdleSlice();
    expect(drawnWith.map((log) => log.length)).toEqual([1, 1, 1]);
    expect(drawnWith[2][0]).toBe(first);
    expect(renderer.drawn).toBe(true);
    expect(idleQueue).toHaveLength(0);
  });

  test('a burst of changes draws the off-screen sections once, with the last snapshot', () => {
    const { renderer, drawnWith, sections, observer } = setup(2);
    observer.show(sections[0].section);
    for (let i = 1; i <= 10; i++) {
      renderer.render(snapshot(i));
      vi.advanceTimersByTime(100);
    }
    expect(drawnWith[0]).toHaveLength(10);
    expect(drawnWith[1]).toHaveLength(0);
    vi.advanceTimersByTime(300);
    while (idleQueue.length > 0) runIdleSlice();
    expect(drawnWith[1].map((s) => (s as unknown as { id: number }).id)).toEqual([10]);
  });

  test('a change during the idle drawing stops it until the settings are still again', () => {
    const { renderer, drawnWith } = setup(3);
    renderer.render(snapshot(1));
    vi.advanceTimersByTime(300);
    runIdleSlice();
    expect(drawnWith.map((log) => log.length)).toEqual([1, 0, 0]);
    renderer.render(snapshot(2));
    runIdleSlice(); // the slice queued before the change: it must not draw
    expect(drawnWith.map((log) => log.length)).toEqual([1, 0, 0]);
    vi.advanceTimersByTime(300);
    while (idleQueue.length > 0) runIdleSlice();
    expect(drawnWith.map((log) => log.map((s) => (s as unknown as { id: number }).id))).toEqual([[1, 2], [2], [2]]);
  });

  test('settled() resolves when the idle drawing has drawn the last stale section, for the latest snapshot', async () => {
    const { renderer, drawnWith, sections, observer } = setup(3);
    await renderer.settled(); // nothing to draw yet: at once
    observer.show(sections[0].section);
    renderer.render(snapshot(1));
    let settledAt: number[] | null = null;
    const waiting = renderer.settled().then(() => {
      settledAt = drawnWith.map((log) => log.length);
    });
    vi.advanceTimersByTime(300);
    runIdleSlice();
    await Promise.resolve();
    expect(settledAt).toBeNull(); // one off-screen section is still stale
    renderer.render(snapshot(2)); // a change meanwhile: now the promise waits for snapshot 2 everywhere
    vi.advanceTimersByTime(300);
    while (idleQueue.length > 0) runIdleSlice();
    await waiting;
    expect(settledAt).toEqual([2, 2, 1]);
    expect(drawnWith.map((log) => (log.at(-1) as unknown as { id: number }).id)).toEqual([2, 2, 2]);
    expect(renderer.drawn).toBe(true);
    await renderer.settled(); // and again at once, with nothing stale
  });

  test('settled() also resolves when a scroll or flush() draws the last stale sections', async () => {
    const { renderer, sections, observer } = setup(2);
    renderer.render(snapshot(1));
    let done = false;
    const waiting = renderer.settled().then(() => {
      done = true;
    });
    observer.show(sections[1].section);
    await Promise.resolve();
    expect(done).toBe(false);
    renderer.flush();
    await waiting;
    expect(done).toBe(true);
  });

  test('a section scrolled into view is drawn at once, quiet period or not; flush() draws the rest', () => {
    const { renderer, drawnWith, sections, observer } = setup(3);
    renderer.render(snapshot(1));
    observer.show(sections[2].section);
    expect(drawnWith.map((log) => log.length)).toEqual([0, 0, 1]);
    renderer.flush();
    expect(drawnWith.map((log) => log.length)).toEqual([1, 1, 1]);
    expect(renderer.drawn).toBe(true);
  });

  test('over a prerendered page, the first drawing draws the top sections through the viewport one per task, then the rest in idle slices at once', async () => {
    const { renderer, drawnWith, sections } = setup(4);
    // Sections 900 px apart in a 800 px window: the first two start within the viewport and its 600 px margin.
    sections.forEach(({ section }, i) => Object.assign(section, { getBoundingClientRect: () => ({ top: i * 900 }) }));
    vi.stubGlobal('innerHeight', 800);
    const first = snapshot(1);
    renderer.renderFromTop(first);
    expect(drawnWith.map((log) => log.length)).toEqual([0, 0, 0, 0]);
    let done = false;
    const waiting = renderer.settled().then(() => {
      done = true;
    });
    runTask();
    expect(drawnWith.map((log) => log.length)).toEqual([1, 0, 0, 0]);
    expect(idleQueue).toHaveLength(0);
    runTask();
    expect(drawnWith.map((log) => log.length)).toEqual([1, 1, 0, 0]);
    runTask(); // the last task hands the rest to idle time
    expect(taskQueue).toHaveLength(0);
    expect(idleQueue).toHaveLength(1); // no quiet period to wait out: nothing has changed yet
    runIdleSlice();
    expect(drawnWith.map((log) => log.length)).toEqual([1, 1, 1, 0]);
    runIdleSlice();
    await waiting;
    expect(done).toBe(true);
    expect(drawnWith.every((log) => log.length === 1 && log[0] === first)).toBe(true);
  });

  test('a change during the first drawing stops its tasks: the new snapshot is drawn as any change is', () => {
    const { renderer, drawnWith, sections } = setup(3);
    sections.forEach(({ section }) => Object.assign(section, { getBoundingClientRect: () => ({ top: 0 }) }));
    vi.stubGlobal('innerHeight', 800);
    renderer.renderFromTop(snapshot(1));
    runTask();
    renderer.render(snapshot(2));
    while (taskQueue.length > 0) runTask();
    expect(drawnWith.map((log) => log.length)).toEqual([1, 0, 0]);
    vi.advanceTimersByTime(300);
    while (idleQueue.length > 0) runIdleSlice();
    expect(drawnWith.map((log) => log.map((s) => (s as unknown as { id: number }).id))).toEqual([[1, 2], [2], [2]]);
  });

  test('a prerendered copy stays until its first drawing, which mounts the live section in its place and observes it instead', () => {
    // A parent that records which child is where, like the section's place in the page.
    const page: object[] = [];
    const copies = [0, 1].map((i) => {
      const copy = {
        getBoundingClientRect: () => ({ top: i * 2000 }),
        replaceWith: (live: object) => page.splice(page.indexOf(copy), 1, live),
      };
      page.push(copy);
      return copy as unknown as HTMLElement;
    });
    const mounted: number[] = [];
    const drawn: [number, Snapshot][] = [];
    const laidOut: number[] = [];
    const live = [0, 1].map((i) => ({
      section: {
        live: i,
        getBoundingClientRect: () => ({ top: 2000 * (i + 1) }),
        lastElementChild: { getBoundingClientRect: () => laidOut.push(i) },
      } as unknown as HTMLElement,
      view: { render: (s: Snapshot) => drawn.push([i, s]) },
    }));
    const renderer = new StepRenderer(
      copies.map((section, i) => ({
        section,
        mount: () => {
          mounted.push(i);
          return live[i];
        },
      })),
    );
    const observer = StubObserver.last!;
    vi.stubGlobal('innerHeight', 800);
    const first = snapshot(1);
    renderer.renderFromTop(first);
    expect(mounted).toEqual([]);
    runTask();
    expect(mounted).toEqual([0]);
    expect(page).toEqual([live[0].section, copies[1]]);
    expect(observer.observed).toEqual(new Set([live[0].section, copies[1]]));
    expect(drawn).toEqual([[0, first]]);
    expect(renderer.drawn).toBe(false);
    runIdleSlice();
    expect(mounted).toEqual([0, 1]);
    expect(page).toEqual([live[0].section, live[1].section]);
    expect(observer.observed).toEqual(new Set([live[0].section, live[1].section]));
    // Off screen, the section is made live in one task, laid out in the next, drawn in the one after and
    // laid out again; the one drawn near the viewport is left to the browser's own layout.
    expect(drawn).toEqual([[0, first]]);
    expect(renderer.drawn).toBe(false);
    runTask();
    expect(laidOut).toEqual([1]);
    expect(drawn).toEqual([[0, first]]);
    runTask();
    expect(renderer.drawn).toBe(true);
    runTask();
    expect(laidOut).toEqual([1, 1]);
    expect(taskQueue).toHaveLength(0);
    // Later drawings reuse the live sections.
    const second = snapshot(2);
    renderer.render(second);
    renderer.flush();
    expect(mounted).toEqual([0, 1]);
    expect(drawn).toEqual([
      [0, first],
      [1, first],
      [0, second],
      [1, second],
    ]);
  });

  /** Two sections over a prerendered page: a plain one, then one whose code comes when `arrive(ok)` is called. */
  function lazySetup() {
    const page: object[] = [];
    const copies = [0, 1].map(() => {
      const copy = { replaceWith: (live: object) => page.splice(page.indexOf(copy), 1, live) };
      page.push(copy);
      return copy as unknown as HTMLElement;
    });
    const drawn: [number, number][] = [];
    const mounted: number[] = [];
    const live = [0, 1].map((i) => ({
      section: { live: i, getBoundingClientRect: () => ({ top: 2000 * (i + 1) }) } as unknown as HTMLElement,
      view: { render: (s: Snapshot) => drawn.push([i, (s as unknown as { id: number }).id]) },
    }));
    const mount = (i: number) => () => {
      mounted.push(i);
      return live[i];
    };
    let loads = 0;
    let arrive: (ok: boolean) => void = () => {};
    const renderer = new StepRenderer([
      { section: copies[0], mount: mount(0) },
      {
        section: copies[1],
        mount: mount(1),
        load: () => {
          loads += 1;
          return new Promise<boolean>((resolve) => (arrive = resolve));
        },
      },
    ]);
    return { renderer, page, copies, live, drawn, mounted, loads: () => loads, arrive: (ok: boolean) => arrive(ok) };
  }

  test('a section whose code comes apart keeps its copy until the code is here, then is mounted and drawn with the latest snapshot', async () => {
    const { renderer, page, copies, live, drawn, mounted, loads, arrive } = lazySetup();
    renderer.renderAll(snapshot(1));
    expect(loads()).toBe(1);
    expect(mounted).toEqual([0]);
    expect(page).toEqual([live[0].section, copies[1]]);
    expect(renderer.loading).toBe(true);
    expect(renderer.drawn).toBe(false); // the copy is stale until its live section shows the snapshot
    let done = false;
    const waiting = renderer.settled().then(() => {
      done = true;
    });
    renderer.render(snapshot(2)); // a change while the code is on the way: asked for once, drawn once
    renderer.flush();
    expect(loads()).toBe(1);
    await Promise.resolve();
    expect(done).toBe(false);
    arrive(true);
    // Mounted in a task of its own, not in the microtask that hears of the code, and drawn in the next.
    for (let i = 0; i < 10 && taskQueue.length === 0; i++) await Promise.resolve();
    expect(mounted).toEqual([0]);
    expect(taskQueue).toHaveLength(1);
    runTask();
    expect(mounted).toEqual([0, 1]);
    expect(drawn).toEqual([
      [0, 1],
      [0, 2],
    ]);
    runTask(); // its first layout
    expect(renderer.drawn).toBe(false);
    runTask();
    await waiting;
    expect(mounted).toEqual([0, 1]);
    expect(page).toEqual([live[0].section, live[1].section]);
    expect(drawn).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
    expect(renderer.loading).toBe(false);
    expect(renderer.drawn).toBe(true);
  });

  test('a section whose code could not load keeps what it shows for good, and is no longer waited for', async () => {
    const { renderer, page, copies, live, mounted, loads, arrive } = lazySetup();
    renderer.renderAll(snapshot(1));
    const waiting = renderer.settled();
    arrive(false);
    await waiting;
    expect(mounted).toEqual([0]);
    expect(page).toEqual([live[0].section, copies[1]]);
    renderer.render(snapshot(2));
    renderer.flush();
    expect(loads()).toBe(1);
    expect(page).toEqual([live[0].section, copies[1]]);
    expect(renderer.drawn).toBe(true);
  });

  test('the idle drawing goes on past a section whose code is on the way', () => {
    const { renderer, mounted, loads } = lazySetup();
    // Nothing near the viewport: both sections are left to idle slices.
    renderer.render(snapshot(1));
    vi.advanceTimersByTime(300);
    runIdleSlice();
    expect(mounted).toEqual([0]);
    runIdleSlice();
    expect(loads()).toBe(1);
    expect(idleQueue).toHaveLength(0); // no slice spins on the section that waits for its code
  });

  /** A prerendered copy whose live view draws three pieces, logging `[piece, snapshot id]` as each is drawn. */
  function piecesSetup(top = 5000) {
    const page: object[] = [];
    const copy = { replaceWith: (live: object) => page.splice(page.indexOf(copy), 1, live) };
    page.push(copy);
    const pieces: [string, number][] = [];
    let mounts = 0;
    const view = drawnInPieces(function* (s) {
      const id = (s as unknown as { id: number }).id;
      for (const piece of ['words', 'maps', 'table']) {
        pieces.push([piece, id]);
        if (piece !== 'table') yield;
      }
    });
    const layOut = () => pieces.push(['layout', 0]);
    // Below the viewport (a section above it is not laid out by the renderer).
    const section = { live: true, getBoundingClientRect: () => ({ top }), lastElementChild: { getBoundingClientRect: layOut } };
    const live = { section: section as unknown as HTMLElement, view };
    const renderer = new StepRenderer([
      {
        section: copy as unknown as HTMLElement,
        mount: () => {
          mounts += 1;
          return live;
        },
      },
    ]);
    return { renderer, page, copy, live, pieces, mounts: () => mounts, observer: StubObserver.last! };
  }

  test('a section off screen with pieces is mounted in one task, drawn one piece per task, laid out in a task after each, and drawn only after its last', async () => {
    const { renderer, page, live, pieces, mounts } = piecesSetup();
    let done = false;
    renderer.render(snapshot(1));
    const waiting = renderer.settled().then(() => {
      done = true;
    });
    vi.advanceTimersByTime(300);
    runIdleSlice();
    expect(mounts()).toBe(1);
    expect(page).toEqual([live.section]);
    expect(pieces).toEqual([]); // the mount was this task's work
    runTask();
    expect(pieces).toEqual([['layout', 0]]);
    runTask();
    expect(pieces).toEqual([
      ['layout', 0],
      ['words', 1],
    ]);
    runTask();
    runTask();
    expect(pieces.slice(2)).toEqual([
      ['layout', 0],
      ['maps', 1],
    ]);
    expect(renderer.drawn).toBe(false);
    expect(idleQueue).toHaveLength(0); // no idle slice starts it again while it is under way
    await Promise.resolve();
    expect(done).toBe(false);
    runTask();
    runTask();
    expect(pieces.map(([piece]) => piece)).toEqual(['layout', 'words', 'layout', 'maps', 'layout', 'table']);
    expect(renderer.drawn).toBe(true);
    await waiting;
    runTask();
    expect(pieces.at(-1)).toEqual(['layout', 0]);
    expect(taskQueue).toHaveLength(0);
    expect(mounts()).toBe(1);
  });

  test('a section above the viewport is drawn in pieces but not laid out: its height must not change over the reader', () => {
    const { renderer, pieces } = piecesSetup(-3000);
    renderer.render(snapshot(1));
    vi.advanceTimersByTime(300);
    runIdleSlice();
    while (taskQueue.length > 0) runTask();
    expect(pieces.map(([piece]) => piece)).toEqual(['words', 'maps', 'table']);
    expect(renderer.drawn).toBe(true);
  });

  test('a newer snapshot stops a drawing in pieces, which starts again for it; nearing the viewport draws it whole at once', () => {
    const { renderer, live, pieces, observer } = piecesSetup();
    renderer.render(snapshot(1));
    vi.advanceTimersByTime(300);
    runIdleSlice();
    runTask();
    runTask();
    expect(pieces).toEqual([
      ['layout', 0],
      ['words', 1],
    ]);
    renderer.render(snapshot(2));
    runTask(); // the old drawing's layout, then its next task: it stops without drawing
    runTask();
    expect(pieces.slice(2)).toEqual([['layout', 0]]);
    expect(taskQueue).toHaveLength(0);
    expect(renderer.drawn).toBe(false);
    vi.advanceTimersByTime(300);
    runIdleSlice();
    expect(pieces.slice(3)).toEqual([['words', 2]]);
    observer.show(live.section); // scrolled near mid-drawing: the rest at once, whole
    expect(pieces.slice(3)).toEqual([
      ['words', 2],
      ['words', 2],
      ['maps', 2],
      ['table', 2],
    ]);
    expect(renderer.drawn).toBe(true);
    runTask(); // the superseded drawing's layout, and then its next task draws nothing more
    runTask();
    expect(pieces.slice(7)).toEqual([['layout', 0]]);
    expect(taskQueue).toHaveLength(0);
  });

  test('a snapshot repeating the last with one part new (the reader model) redraws only the sections that show that part', () => {
    const drawnWith: Snapshot[][] = [[], [], [], []];
    // Sections 0 and 2 show the reader model, 3 the later kernels' figures; 0 and 1 are in view.
    const parts = [['reader'], [], ['reader', 'later'], ['later']] as const;
    const sections = drawnWith.map((log, i) => ({
      section: {} as HTMLElement,
      view: { render: (s: Snapshot) => log.push(s) },
      shows: parts[i],
    }));
    const renderer = new StepRenderer(sections);
    const observer = StubObserver.last!;
    observer.show(sections[0].section);
    observer.show(sections[1].section);
    const first = snapshot(1);
    renderer.render(first);
    vi.advanceTimersByTime(300);
    while (idleQueue.length > 0) runIdleSlice();
    expect(drawnWith.map((log) => log.length)).toEqual([1, 1, 1, 1]);

    const read = snapshot(2);
    renderer.render(read, { of: first, part: 'reader' });
    expect(drawnWith.map((log) => log.length)).toEqual([2, 1, 1, 1]); // in view and showing the model: now
    expect(renderer.drawn).toBe(false); // section 2 shows the model, off screen: in idle time
    vi.advanceTimersByTime(300);
    while (idleQueue.length > 0) runIdleSlice();
    expect(drawnWith.map((log) => log.map((s) => (s as unknown as { id: number }).id))).toEqual([[1, 2], [1], [1, 2], [1]]);
    expect(renderer.drawn).toBe(true);

    // The later module: only the sections that show its figures.
    renderer.render(snapshot(3), { of: read, part: 'later' });
    vi.advanceTimersByTime(300);
    while (idleQueue.length > 0) runIdleSlice();
    expect(drawnWith.map((log) => log.map((s) => (s as unknown as { id: number }).id))).toEqual([[1, 2], [1], [1, 2, 3], [1, 3]]);

    // A snapshot computed anew (no `repeats`) is stale everywhere, as before.
    renderer.render(snapshot(4));
    vi.advanceTimersByTime(300);
    while (idleQueue.length > 0) runIdleSlice();
    expect(drawnWith.map((log) => log.length)).toEqual([3, 2, 4, 3]);
  });

  test('a repeat that comes while a section is still stale leaves it stale: it is drawn with the repeat', () => {
    const drawnWith: Snapshot[][] = [[], []];
    const sections = drawnWith.map((log) => ({ section: {} as HTMLElement, view: { render: (s: Snapshot) => log.push(s) } }));
    const renderer = new StepRenderer(sections);
    StubObserver.last!.show(sections[0].section);
    const first = snapshot(1);
    renderer.render(first);
    const read = snapshot(2);
    renderer.render(read, { of: first, part: 'reader' });
    vi.advanceTimersByTime(300);
    while (idleQueue.length > 0) runIdleSlice();
    // Section 0 drew the first and keeps it; section 1 never drew the first, so it draws the repeat.
    expect(drawnWith.map((log) => log.map((s) => (s as unknown as { id: number }).id))).toEqual([[1], [2]]);
    expect(renderer.drawn).toBe(true);
  });
});
