// When a figure that shows the reader model may download it: once it has come near the viewport after
// the page settled, and stayed there a moment. A page opened at a later step draws step 1 at the top,
// then scrolls to that step once every step is drawn: only a figure still near after that downloads.
// Step 1's figure and the long-context step's answer panels both ask through one of these, so the
// weights are fetched by what the reader is looking at, never by a step merely going live.

/** How close to the viewport a figure must come before its model is downloaded. */
const NEAR_VIEWPORT = '600px 0px';
/** How long the figure must stay near before the download starts. */
const NEAR_DWELL_MS = 300;

export class ModelRequest {
  /** Near the viewport now (IntersectionObserver), and near since the page settled (so it may download). */
  private near = typeof IntersectionObserver !== 'function';
  private stayedNear = this.near;
  private waiting: boolean | null = null;

  /** needModel(causal): called when `element` is waiting for that model and near the viewport. */
  constructor(
    private readonly element: HTMLElement,
    private readonly needModel: (causal: boolean) => void,
  ) {
    if (this.near) return;
    new IntersectionObserver(
      (records) => {
        this.near = records[records.length - 1]!.isIntersecting;
        if (this.near) void this.requestWhenSettled();
        else this.stayedNear = false;
      },
      { rootMargin: NEAR_VIEWPORT },
    ).observe(element);
  }

  /** The model the figure waits for (the causal one or not), or null when it waits for none. */
  want(causal: boolean | null): void {
    this.waiting = causal;
    if (causal !== null && this.stayedNear) this.needModel(causal);
  }

  private async requestWhenSettled(): Promise<void> {
    const host = (this.element.getRootNode() as ShadowRoot).host as (Element & { updateComplete?: Promise<void> }) | undefined;
    await host?.updateComplete;
    await new Promise((resolve) => setTimeout(resolve, NEAR_DWELL_MS));
    if (!this.near) return;
    this.stayedNear = true;
    if (this.waiting !== null) this.needModel(this.waiting);
  }
}
