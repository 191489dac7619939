// "Run it on my machine": times a suite of kernels (cost-plan.ts: the flash step's naive and
// tiled attention, or the long-context step's full, flash, window, sparse and linear attention) in the
// reader's browser through the page's timing service (timing-service.ts: a Web Worker, so the
// page never freezes), and plots time and memory against n on log-log axes with the fitted slopes.
// Nothing runs until the reader presses Run; Cancel stops the run. Every number on the charts is also
// in the table below them (the text equivalent). The figure starts no thread and no engine itself: it
// only sees the TimingService. What the numbers mean is the step's: it passes its reading in.
//
// Length (~600 lines): the run's state drives both charts, the table and the controls of three suites
// (the flash step's, the long-context step's, the KV cache's decode), and nothing outside this figure
// uses any of them; each step passes its words and reading in rather than keeping a copy of the run.
//
// Test hook (not part of the embed API, no attribute or URL parameter): a `data-max-n` attribute on
// this figure's own element (inside the shadow root) caps the largest n of the next run, e.g. 1024,
// so a browser test finishes in seconds: root.querySelector('.flash-run').dataset.maxN = '1024'.
import { tokenCountLabel } from './cost-model';
import { MIN_TIMED_MS } from './timed-call';
import { columnHeads } from '../../ui/data-table';
import { el, replaceChildren, setText } from '../../ui/dom';
import { bytes, count } from '../../ui/format';
import { LogLogChart, type ChartTick } from '../../ui/line-chart';
import { scrollRegion } from '../../ui/scroll-region';
import {
  COST_BLOCK,
  COST_BUDGET_BYTES,
  COST_D,
  COST_MAX_N,
  COST_SUITES,
  clampMaxN,
  engineGroup,
  fitLogLogSlope,
  measuredRatio,
  naiveMatrixBytes,
  planCost,
  skipReason,
  tiledScratchFloats,
  type CostItem,
  type CostKernel,
  type CostMeasurement,
  type CostRun,
  type CostRunEvent,
  type CostSuiteId,
  type DecodeShape,
  type EngineGroup,
  type SlopeFit,
  type TimingService,
} from './cost-plan';

/** 0.42 ms, 12.3 ms, 1.52 s: three significant figures, never NaN. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms === 0) return '< 0.1 ms';
  if (ms < 0.1) return `${(ms * 1000).toPrecision(3)} µs`;
  if (ms >= 1e6) return `${count(Number((ms / 1000).toPrecision(3)))} s`;
  if (ms >= 1000) return `${(ms / 1000).toPrecision(3)} s`;
  if (ms >= 1) return `${ms.toPrecision(3)} ms`;
  return `${ms.toFixed(2)} ms`;
}

/** Axis labels for powers of ten: 0.1 ms, 1 ms, 100 ms, 1 s, 10 s. */
function msTick(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toPrecision(3))} s` : `${Number(ms.toPrecision(3))} ms`;
}

/** Each kernel in the legend and the table's header. */
export const KERNEL_WORDS: Record<CostKernel, string> = {
  naive: 'naive (holds n × n)',
  tiled: `tiled (${COST_BLOCK} × ${COST_BLOCK} tiles)`,
  window: 'sliding window',
  global: 'window + global',
  strided: 'window + stride',
  linear: 'linear attention',
  cached: 'with the cache, multi-head',
  grouped: 'with the cache, fewer KV heads',
  recompute: 'recomputing all t tokens',
};

/** The run as the step's reading sees it. */
export interface CostRunState {
  suite: CostSuiteId;
  plan: readonly CostItem[];
  measured: readonly CostMeasurement[];
  /** Each kernel's time points, [n, ms], and their fitted slope from FIT_MIN_N on. */
  times: Record<CostKernel, [number, number][]>;
  fits: Record<CostKernel, SlopeFit | null>;
  budgetBytes: number;
  /** The decode suite's heads, as the run used them. */
  decode?: DecodeShape;
}

export interface CostRunOptions {
  /** Which kernels and sizes (the flash step's when absent). */
  suite?: CostSuiteId;
  /** The section's id and heading, and the sentence under it. */
  id?: string;
  title?: string;
  intro?: string;
  /** Each kernel's name in the legend, the table and the status line (KERNEL_WORDS when absent). */
  words?: Partial<Record<CostKernel, string>>;
  /** What the measured numbers say, under the fitted slopes (the flash step's when absent). */
  reading?: (state: CostRunState) => (Node | null)[];
  /** The charts' x axis and the time chart's caption; the size's letter in the table and the fit ('n' when absent). */
  xLabel?: string;
  symbol?: string;
  timeCaption?: string;
  /** Draw and table each engine's memory (default true). */
  memory?: boolean;
  /** The decode suite's heads, read when Run is pressed. */
  decode?: () => DecodeShape;
}

type Phase = 'idle' | 'starting' | 'running' | 'done' | 'cancelled' | 'failed';

function powerTicks(lo: number, hi: number, base: number, label: (v: number) => string): ChartTick[] {
  const ticks: ChartTick[] = [];
  if (!(lo > 0) || !(hi > 0)) return ticks;
  for (let v = base ** Math.floor(Math.log(lo) / Math.log(base) + 1e-9); v <= hi * 1.0001; v *= base)
    if (v >= lo * 0.9999) ticks.push({ value: v, label: label(v) });
  // A narrow range (e.g. memory from 16 to 27 MiB) may hold one power or none: label the largest value too.
  if (ticks.length < 2 && hi > lo * 1.2) ticks.push({ value: hi, label: label(hi) });
  if (ticks.length === 0) ticks.push({ value: lo, label: label(lo) });
  return ticks;
}

export class CostRunFigure {
  readonly element: HTMLElement;
  private readonly run: HTMLButtonElement;
  private readonly cancel: HTMLButtonElement;
  private readonly progress: HTMLProgressElement;
  private readonly status: HTMLElement;
  private readonly results: HTMLElement;
  private readonly timeChart: LogLogChart;
  private readonly memoryChart: LogLogChart;
  /** Whether engine memory is drawn and tabled (the decode suite's engines barely leave their start). */
  private readonly withMemory: boolean;
  private readonly symbol: string;
  private readonly decodeShape: (() => DecodeShape) | undefined;
  /** The decode shape of the run shown. */
  private decode: DecodeShape | undefined;
  private readonly reading: HTMLElement;
  private readonly table: HTMLTableElement;
  /** The run in progress, if any. */
  private measurement: CostRun | null = null;
  private phase: Phase = 'idle';
  private plan: CostItem[] = [];
  private measured: CostMeasurement[] = [];
  private current: CostItem | null = null;
  private startedAt = 0;
  /** The pending redraw's animation frame, if one is requested (requestDraw). */
  private drawFrame: number | null = null;
  /**
   * The share of the run measured, waiting for the redraw: the bar moves with the table, so it never
   * shows a size the table does not have yet.
   */
  private measuredShare: number | null = null;
  private readonly suite: CostSuiteId;
  private readonly kernels: readonly CostKernel[];
  /** Legend words for each kernel; `names` are the shorter ones of the table, the slopes and the status line. */
  private readonly words: Record<CostKernel, string>;
  private readonly names: Record<CostKernel, string>;
  private readonly readingOf: (state: CostRunState) => (Node | null)[];

  /**
   * @param timing  the page's timing service; without one, Run says the measurement is not offered here.
   * @param options  the suite and the step's words for it; the flash step's when absent.
   */
  constructor(
    private readonly timing: TimingService | undefined,
    options: CostRunOptions = {},
  ) {
    this.suite = options.suite ?? 'flash';
    this.kernels = COST_SUITES[this.suite].kernels;
    this.words = { ...KERNEL_WORDS, ...options.words };
    this.names = options.words
      ? this.words
      : (Object.fromEntries(Object.keys(KERNEL_WORDS).map((k) => [k, k])) as Record<CostKernel, string>);
    this.readingOf = options.reading ?? flashReading;
    const id = options.id ?? 'flash-run';
    const xLabel = options.xLabel ?? 'tokens n (log scale)';
    this.timeChart = new LogLogChart({ xLabel, yLabel: 'time per call' });
    this.memoryChart = new LogLogChart({ xLabel, yLabel: 'engine memory' });
    this.withMemory = options.memory ?? true;
    this.symbol = options.symbol ?? 'n';
    this.decodeShape = options.decode;
    this.run = el('button', { type: 'button', class: 'button flash-run-start' }, 'Run');
    this.cancel = el('button', { type: 'button', class: 'button quiet flash-run-cancel', disabled: true }, 'Cancel');
    this.progress = el('progress', { class: 'flash-run-progress', max: 1, value: 0, 'aria-label': 'Measurement progress' });
    this.status = el(
      'p',
      { class: 'flash-run-status', role: 'status', 'aria-live': 'polite' },
      'Not run yet; it takes seconds to minutes.',
    );
    this.reading = el('div', { class: 'flash-run-reading' });
    this.table = el('table', { class: 'data-table flash-run-table' });
    this.results = el(
      'div',
      { class: 'flash-run-results', hidden: true },
      el(
        'div',
        { class: 'figure-row flash-run-charts' },
        el(
          'figure',
          { class: 'figure flash-run-chart' },
          this.timeChart.element,
          el('figcaption', {}, options.timeCaption ?? 'Fastest call against n, log-log: n² is a slope of 2.'),
        ),
        this.withMemory
          ? el(
              'figure',
              { class: 'figure flash-run-chart' },
              this.memoryChart.element,
              el('figcaption', {}, 'Peak WebAssembly memory per kernel, with its 16 MiB start and naive’s n × n matrix.'),
            )
          : null,
      ),
      this.reading,
      scrollRegion({ label: 'Measured times and memory, as a table', className: 'matrix-scroll' }, this.table),
    );

    this.element = el(
      'section',
      { class: `flash-run ${id}`, id, 'aria-labelledby': `${id}-title` },
      el('h3', { id: `${id}-title` }, options.title ?? 'Run it on my machine'),
      el(
        'p',
        {},
        options.intro ??
          `Run times both methods here: one head, d = ${COST_D}, n = 128 to ${tokenCountLabel(this.naiveLimit(COST_MAX_N))} (naive, within ${bytes(COST_BUDGET_BYTES)}) or ${tokenCountLabel(COST_MAX_N)} (tiled).`,
      ),
      el('div', { class: 'flash-run-bar' }, this.run, this.cancel, this.progress),
      this.status,
      this.results,
    );

    this.run.addEventListener('click', () => this.start());
    this.cancel.addEventListener('click', () => this.stop('cancelled'));
  }

  /** Largest n the naive kernel is measured at, for a plan up to maxN. */
  private naiveLimit(maxN: number): number {
    return Math.max(
      0,
      ...planCost({ maxN })
        .filter((item) => item.kernel === 'naive')
        .map((item) => item.n),
    );
  }

  /** What has been measured so far (tests, curious readers). */
  get measurements(): readonly CostMeasurement[] {
    return this.measured;
  }

  private get budgetBytes(): number {
    return COST_BUDGET_BYTES;
  }

  private start(): void {
    if (this.measurement) return;
    const maxN = this.element.dataset.maxN ? clampMaxN(Number(this.element.dataset.maxN), COST_SUITES[this.suite]) : undefined;
    const budgetBytes = this.budgetBytes;
    if (!this.timing) {
      this.fail('This page does not offer the measurement. It runs on the walkthrough’s own page.');
      return;
    }
    try {
      this.decode = this.decodeShape?.();
      this.measurement = this.timing.start({ maxN, suite: this.suite, budgetBytes, decode: this.decode }, (event) => this.onEvent(event));
    } catch (error) {
      // A page whose Content-Security-Policy forbids workers, or a script served from another origin.
      this.fail(
        `This page does not allow the background thread the measurement needs (${error instanceof Error ? error.message : String(error)}). ` +
          'It runs on the walkthrough’s own page.',
      );
      return;
    }
    // Events arrive from the worker, asynchronously: the run's state is in place before the first.
    this.plan = planCost({ suite: this.suite, maxN, budgetBytes });
    this.measured = [];
    this.current = null;
    this.startedAt = performance.now();
    this.phase = 'starting';
    this.run.disabled = true;
    this.cancel.disabled = false;
    this.measuredShare = null;
    this.progress.value = 0;
    this.progress.removeAttribute('value'); // indeterminate while the engines start
    setText(
      this.status,
      `Starting ${new Set(this.kernels.map(engineGroup)).size === 1 ? 'an engine' : 'two engines'} in a background thread…`,
    );
    this.draw();
  }

  private onEvent(message: CostRunEvent): void {
    if (!this.measurement) return;
    switch (message.type) {
      case 'unavailable':
        this.fail(`The measurement could not start in this browser (${message.message}). It runs on the walkthrough’s own page.`);
        return;
      case 'started':
        this.phase = 'running';
        this.plan = message.plan;
        this.progress.value = 0;
        break;
      case 'measuring':
        // Only the status line and the one cell change: no redraw of the charts and the table.
        this.current = message.item;
        setText(
          this.status,
          `Measuring n = ${count(message.item.n)}, ${this.names[message.item.kernel]} ` +
            `(${message.item.reps} timed call${message.item.reps === 1 ? '' : 's'})… ${message.index + 1} of ${this.plan.length}.`,
        );
        this.markBusy(message.item);
        return;
      case 'measured':
        this.measured.push(message.result);
        this.measuredShare = message.workTotal > 0 ? message.workDone / message.workTotal : 1;
        this.current = null;
        this.requestDraw();
        return;
      case 'done':
        this.measuredShare = 1;
        this.stop('done');
        return;
      case 'error':
        this.fail(
          `The measurement stopped${message.item ? ` at n = ${count(message.item.n)} (${this.names[message.item.kernel]})` : ''}: ${message.message}. The sizes measured before it stay below.`,
        );
        return;
    }
    this.requestDraw();
  }

  /** The table cell of the item being measured says so (the table is redrawn only when a result arrives). */
  private markBusy(item: CostItem): void {
    const cell = this.table.querySelector(`tr[data-n="${item.n}"] td[data-kernel="${item.kernel}"]`);
    if (cell && !cell.hasAttribute('data-ms')) setText(cell, 'measuring…');
  }

  /**
   * Redraws at the next frame, at most once per frame however many results arrived: the charts, the
   * table and the reading are rebuilt whole, and a burst of the small sizes' results (milliseconds
   * apart) would otherwise rebuild them once each, each with a layout of the page. A hidden tab draws
   * nothing until it is shown; the end of a run draws at once (finish), so the final state never waits.
   */
  private requestDraw(): void {
    if (this.drawFrame !== null) return;
    this.drawFrame = requestAnimationFrame(() => {
      this.drawFrame = null;
      this.draw();
    });
  }

  private stop(phase: 'done' | 'cancelled'): void {
    if (!this.measurement) return;
    this.measurement.stop();
    this.measurement = null;
    this.phase = phase;
    const seconds = (performance.now() - this.startedAt) / 1000;
    const last = this.measured[this.measured.length - 1];
    setText(
      this.status,
      phase === 'done'
        ? `Done: ${this.measured.length} measurements in ${seconds.toFixed(0)} s.`
        : `Cancelled${this.current ? ` while measuring n = ${count(this.current.n)} (${this.names[this.current.kernel]})` : ''}. ` +
            (last
              ? `The ${this.measured.length} measurement${this.measured.length === 1 ? '' : 's'} made before it stay below.`
              : 'Nothing was measured.'),
    );
    this.current = null;
    this.finish();
  }

  private fail(text: string): void {
    this.measurement?.stop();
    this.measurement = null;
    this.phase = 'failed';
    this.current = null;
    setText(this.status, text);
    this.finish();
  }

  private finish(): void {
    this.run.disabled = false;
    setText(this.run, 'Run again');
    this.cancel.disabled = true;
    if (!this.progress.hasAttribute('value')) this.progress.value = 0;
    this.draw();
  }

  private points(kernel: CostKernel): [number, number][] {
    return this.measured.filter((m) => m.kernel === kernel).map((m) => [m.n, m.ms]);
  }

  /** Each engine's memory after each n: the largest any of its kernels left (a high-water mark). */
  private memoryPoints(group: EngineGroup): [number, number][] {
    const byN = new Map<number, number>();
    for (const m of this.measured) if (engineGroup(m.kernel) === group) byN.set(m.n, Math.max(byN.get(m.n) ?? 0, m.memoryBytes));
    return [...byN];
  }

  /** The engines of this suite with the kernels each runs: "naive", "tiled" or "flash, window, …". */
  private get groups(): { group: EngineGroup; words: string }[] {
    const groups = [...new Set(this.shownKernels.map(engineGroup))];
    return groups.map((group) => {
      const kernels = this.shownKernels.filter((kernel) => engineGroup(kernel) === group);
      return { group, words: kernels.length === 1 ? this.names[kernels[0]] : 'shared' };
    });
  }

  /** The suite's kernels in the table's order: full attention first, as the one the others are read against. */
  private get shownKernels(): CostKernel[] {
    return (Object.keys(KERNEL_WORDS) as CostKernel[]).filter((kernel) => this.kernels.includes(kernel));
  }

  private state(): CostRunState {
    const times = {} as Record<CostKernel, [number, number][]>;
    const fits = {} as Record<CostKernel, SlopeFit | null>;
    for (const kernel of this.shownKernels) {
      times[kernel] = this.points(kernel);
      fits[kernel] = fitLogLogSlope(times[kernel], COST_SUITES[this.suite].fitMinN);
    }
    return { suite: this.suite, plan: this.plan, measured: this.measured, times, fits, budgetBytes: this.budgetBytes, decode: this.decode };
  }

  private draw(): void {
    if (this.drawFrame !== null) cancelAnimationFrame(this.drawFrame);
    this.drawFrame = null;
    this.element.dataset.phase = this.phase;
    if (this.measuredShare !== null) this.progress.value = this.measuredShare;
    this.measuredShare = null;
    const sizes = [...new Set(this.plan.map((item) => item.n))];
    this.results.hidden = this.measured.length === 0 && sizes.length === 0;
    if (this.results.hidden) return;

    const state = this.state();
    const kernels = this.shownKernels;

    // The table: the chart's text equivalent, one row per n, filled in as results arrive.
    const cell = (kernel: CostKernel, n: number) => {
      const m = this.measured.find((x) => x.kernel === kernel && x.n === n);
      const planned = this.plan.some((item) => item.kernel === kernel && item.n === n);
      const busy = this.current?.kernel === kernel && this.current.n === n;
      const reason = skipReason(kernel, n, state.budgetBytes);
      const text = m
        ? formatMs(m.ms)
        : !planned && reason === 'memory'
          ? `over the ${bytes(state.budgetBytes)} budget`
          : !planned && reason === 'time'
            ? 'not timed (n² work)'
            : busy
              ? 'measuring…'
              : this.measurement
                ? '…'
                : '—';
      return el('td', { class: m ? 'num' : 'num flash-run-empty', 'data-kernel': kernel, 'data-ms': m ? m.ms : null }, text);
    };
    const memoryCell = (group: EngineGroup, n: number) => {
      const bytesAt = this.memoryPoints(group).find(([at]) => at === n)?.[1];
      return el(
        'td',
        { class: bytesAt === undefined ? 'num flash-run-empty' : 'num', 'data-group': group },
        bytesAt === undefined ? '—' : bytes(bytesAt),
      );
    };
    const groups = this.withMemory ? this.groups : [];
    // The n × n matrix and the tile are what full attention and FlashAttention hold: shown beside them only.
    const holdings = kernels.includes('naive') || kernels.includes('tiled');
    patchTable(
      this.table,
      el(
        'caption',
        {},
        `Measured in this browser: time of one call (the fastest of the timed calls, each repeating the call until it lasts ${MIN_TIMED_MS} ms)${this.withMemory ? ', and engine memory,' : ''} for d = ${COST_D}`,
      ),
      columnHeads([
        `${this.symbol === 'n' ? 'tokens' : 'token'} ${this.symbol}`,
        ...kernels.map((kernel) => `${this.names[kernel]} time`),
        ...groups.map(({ words }) => `${words} engine memory`),
        holdings && 'n × n matrix (4n² bytes)',
        holdings && `one ${COST_BLOCK} × ${COST_BLOCK} tile + m, l`,
      ]),
      el(
        'tbody',
        {},
        ...sizes.map((n) =>
          el(
            'tr',
            { 'data-n': n },
            el('th', { scope: 'row' }, tokenCountLabel(n)),
            ...kernels.map((kernel) => cell(kernel, n)),
            ...groups.map(({ group }) => memoryCell(group, n)),
            holdings ? el('td', { class: 'num' }, bytes(naiveMatrixBytes(n))) : null,
            holdings ? el('td', { class: 'num' }, bytes(4 * tiledScratchFloats(n, COST_BLOCK))) : null,
          ),
        ),
      ),
    );

    const fitMinN = COST_SUITES[this.suite].fitMinN;
    const slopeText = (fit: SlopeFit | null) => (fit ? `slope ${fit.slope.toFixed(2)}` : `slope: needs two sizes from ${fitMinN} on`);
    const slopeData = Object.fromEntries(kernels.map((kernel) => [`data-${kernel}-slope`, state.fits[kernel]?.slope.toFixed(3) ?? null]));
    replaceChildren(
      this.reading,
      el(
        'p',
        { class: 'flash-run-slope', ...slopeData },
        `Fitted by least squares on the log-log points from ${this.symbol} = ${fitMinN} on: ` +
          kernels.map((kernel) => `${this.names[kernel]} time ${slopeText(state.fits[kernel])}`).join(', ') +
          `. A slope of 2 means the time grows like ${this.symbol}², a slope of 1 like ${this.symbol}.`,
      ),
      ...this.readingOf(state),
    );

    if (this.measured.length === 0) return;
    const allTimes = this.measured.map((m) => m.ms).filter((y) => y > 0);
    const allMemory = this.measured.map((m) => m.memoryBytes);
    const xTicks = powerTicks(Math.min(...sizes), Math.max(...sizes), sizes.length > 8 ? 4 : 2, tokenCountLabel);
    this.timeChart.update({
      series: kernels.map((kernel) => ({
        label: `${this.words[kernel]}: ${slopeText(state.fits[kernel])}`,
        className: `series-${kernel}`,
        points: state.times[kernel],
        markers: true,
      })),
      xTicks,
      yTicks: allTimes.length ? powerTicks(Math.min(...allTimes), Math.max(...allTimes), 10, msTick) : [],
      description:
        'Log-log chart of the measured time per call against n: ' +
        kernels.map((kernel) => `${this.words[kernel]} ${state.times[kernel].length} sizes (${slopeText(state.fits[kernel])})`).join(', ') +
        '. The table below lists every point.',
    });
    if (!this.withMemory) return;
    const peak = (group: EngineGroup) => Math.max(0, ...this.memoryPoints(group).map(([, y]) => y));
    this.memoryChart.update({
      series: groups.map(({ group, words }) => ({
        label: group === 'naive' ? this.words.naive : words === 'shared' ? `one engine for the others` : this.words[words as CostKernel],
        className: `series-${group === 'naive' ? 'naive' : 'tiled'}`,
        points: this.memoryPoints(group),
        markers: true,
      })),
      xTicks,
      yTicks: powerTicks(
        Math.min(...allMemory),
        Math.max(...allMemory),
        Math.max(...allMemory) / Math.min(...allMemory) < 16 ? 2 : 4,
        bytes,
      ),
      description:
        'Log-log chart of each engine’s memory against n: ' +
        groups.map(({ group, words }) => `${words} up to ${peak(group) ? bytes(peak(group)) : 'nothing yet'}`).join(', ') +
        '. The table below lists every point.',
    });
  }
}

/**
 * Puts the new table in place of the old one's contents, touching only the cells that differ when the
 * two have the same rows and cells: a result changes one or two cells of the table, and a rebuilt
 * table would be restyled and laid out whole on every result of a run.
 */
function patchTable(table: HTMLTableElement, ...children: HTMLElement[]): void {
  const next = el('table', {}, ...children);
  const before = table.querySelectorAll('caption, th, td');
  const after = next.querySelectorAll('caption, th, td');
  const sameShape =
    before.length === after.length &&
    table.rows.length === next.rows.length &&
    Array.prototype.every.call(
      table.rows,
      (row: HTMLTableRowElement, i: number) => row.cells.length === next.rows[i].cells.length && row.dataset.n === next.rows[i].dataset.n,
    );
  if (!sameShape) {
    table.replaceChildren(...next.childNodes);
    return;
  }
  after.forEach((cell, i) => {
    if (!cell.isEqualNode(before[i])) before[i].replaceWith(cell);
  });
}

/** The flash step's reading: the 2k -> 8k ratio next to the article's ×16, and what each engine held. */
function flashReading({ times, measured }: CostRunState): (Node | null)[] {
  const ratio = (points: [number, number][]) => measuredRatio(points, 2048, 8192);
  const naiveRatio = ratio(times.naive);
  const tiledRatio = ratio(times.tiled);
  const sizes = [...new Set(measured.map((m) => m.n))];
  const largest = sizes.length ? Math.max(...sizes) : 0;
  const ratioText =
    naiveRatio !== null || tiledRatio !== null
      ? `From 2k to 8k tokens, four times the context: ${naiveRatio !== null ? `naive ×${naiveRatio.toFixed(1)}` : 'naive not measured'}, ` +
        `${tiledRatio !== null ? `tiled ×${tiledRatio.toFixed(1)}` : 'tiled not measured'} on this machine. The article’s count: ×16.`
      : `The 2k → 8k ratio (the article’s ×16) appears once both sizes are measured${largest && largest < 8192 ? `; this run has reached ${tokenCountLabel(largest)}` : ''}.`;
  const peak = (kernel: CostKernel) => {
    const list = measured.filter((m) => m.kernel === kernel);
    return list.length ? list[list.length - 1] : null;
  };
  const naivePeak = peak('naive');
  const tiledPeak = peak('tiled');
  return [
    el('p', {}, 'Both methods do all n² dot products, tiles or not.'),
    el('p', { class: 'flash-run-ratio' }, ratioText),
    naivePeak || tiledPeak
      ? el(
          'p',
          { class: 'flash-run-memory' },
          (naivePeak
            ? `Memory: the naive engine reached ${bytes(naivePeak.memoryBytes)} at n = ${tokenCountLabel(naivePeak.n)}, where its n × n matrix alone is ${bytes(naiveMatrixBytes(naivePeak.n))}. `
            : '') +
            (tiledPeak
              ? `The tiled engine reached ${bytes(tiledPeak.memoryBytes)} at n = ${tokenCountLabel(tiledPeak.n)}: Q, K, V and the output (${bytes(4 * 4 * tiledPeak.n * COST_D)} together) plus a tile of ${bytes(4 * tiledScratchFloats(tiledPeak.n, COST_BLOCK))}.`
              : ''),
        )
      : null,
  ];
}
