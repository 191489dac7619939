// The throttled walk (issue #39, item 6): a phone-sized reader on a slow CPU. A cold load of the built
// walkthrough at 360 px with the renderer's CPU slowed 4× (CDP Emulation.setCPUThrottlingRate), the
// reader's first reach (a real pointer move) until the page is live, then a scroll from top to bottom
// with real mouse-wheel input. A Chromium trace of the whole walk gives every main-thread task
// (ThreadControllerImpl::RunTask), parse tasks included, with its wall and CPU time; the bytes come
// from the responses themselves, raw and gzipped (level 9, as a host would serve them compressed).
// After each walk, a cold load of the floor page (floorPage: the same head, the masthead alone) gives
// the browser's own share of a load at that moment, the baseline the walk's load is read against.
//
//   npx tsx tests/bench/page-walk.ts [--dist=dist] [--runs=3] [--throttle=4] [--width=360] [--json=build/bench/page-walk.json]
//
// Also run by `npm run bench`'s page section (run.ts). Measures only: nothing here asserts a time.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, serve } from '../browser/harness';
import { median } from './data';
import { flagTable } from './options';
import { mainThreadTasks, topOfTask, type TraceEvent } from './trace-events';

/** What a long task is (the Long Tasks API's threshold) and the limit on any one task. */
const LONG_TASK_MS = 50;
const TASK_LIMIT_MS = 100;
/** The limit on the walk's total blocking time. */
const BLOCKING_LIMIT_MS = 300;
const PHASES = ['load', 'live', 'scroll'] as const;
type Phase = (typeof PHASES)[number];
/** What the walk's bytes are, by the response's path. */
const KINDS = [
  'html',
  'css',
  'first JS',
  'live JS',
  'wasm',
  'weights',
  'lazy steps',
  'lazy weights',
  'later wasm',
  'step 1 model',
  'other',
] as const;
type Kind = (typeof KINDS)[number];

export interface TaskStats {
  count: number;
  longestMs: number;
  /** Σ (duration − 50 ms) over the tasks longer than 50 ms: Lighthouse's total blocking time. */
  blockingMs: number;
  over50: number;
  over100: number;
}

/**
 * Two clocks for each task: wall time (what a reader on this machine waits, neighbours included) and
 * the main thread's CPU time (the trace's tdur: the page's own work, throttling included, without the
 * moments another process held the core). On a shared machine the second is the one to compare runs by.
 */
export const CLOCKS = ['wall', 'cpu'] as const;
type Clock = (typeof CLOCKS)[number];

export interface LongTask {
  phase: Phase;
  ms: number;
  cpuMs: number;
  top: string;
  /** The navigation's commit (the task with CommitLoad): Chromium's, the floor page has one too. */
  commit: boolean;
}

export interface WalkRun {
  /** Per clock, per phase and over the whole walk. */
  tasks: Record<Clock, Record<Phase | 'walk', TaskStats>>;
  /** The tasks over 50 ms of wall time: phase, both durations and the events that took the most of it. */
  longTasks: LongTask[];
  /** The floor page's cold load, just after the walk (floorPage). */
  floor: { tasks: Record<Clock, TaskStats>; longTasks: LongTask[] };
  bytes: Record<Kind, { raw: number; gzip: number; files: number }>;
  /** Navigation -> data-ready after the reach, and the number of elements the document holds then. */
  liveMs: number;
  elements: number;
}

/**
 * The built scripts going live needs, read from the build itself: the static imports of what the page's
 * first script import()s (web/src/main.ts: page.ts). Any other script the walk fetches after the reach is
 * a chunk that a step fetches at its first drawing (elements/lazy-step.ts) or one only those share.
 */
function goLiveScripts(dist: string): Set<string> {
  const read = (name: string) => readFileSync(join(dist, 'assets', name), 'utf8');
  const staticImports = (code: string) => [...code.matchAll(/(?:from|import)\s*["'`]\.\/([\w.-]+\.js)["'`]/g)].map((m) => m[1]!);
  const dynamicImports = (code: string) => [...code.matchAll(/import\(\s*["'`]\.\/([\w.-]+\.js)["'`]\s*\)/g)].map((m) => m[1]!);
  const closure = (starts: string[]) => {
    const seen = new Set<string>();
    const todo = [...starts];
    while (todo.length > 0) {
      const name = todo.pop()!;
      if (seen.has(name)) continue;
      seen.add(name);
      todo.push(...staticImports(read(name)));
    }
    return seen;
  };
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const first = closure([...html.matchAll(/<script type="module"[^>]*src="\.\/assets\/([\w.-]+\.js)"/g)].map((m) => m[1]!));
  return closure([...first].flatMap((name) => dynamicImports(read(name))));
}

/**
 * Which kind of file a response is; step 1's reader model is counted apart ("before step 1's model").
 * Weights asked for once a lazy step's code was (`afterLazy`: the small model's, which the steps from
 * multi-head on fetch at their first drawing) are the lazy steps' weights, not the live part's.
 */
function kindOf(url: string, afterReach: boolean, goLive: Set<string>, afterLazy = false): Kind {
  const path = new URL(url).pathname;
  if (path.endsWith('.html') || path === '/') return 'html';
  if (path.endsWith('.css')) return 'css';
  if (path.endsWith('.js') && afterReach && !goLive.has(basename(path)) && /\/reader-[^/]*\.js$/.test(path)) return 'step 1 model'; // its records
  if (path.endsWith('.js')) return !afterReach ? 'first JS' : goLive.has(basename(path)) ? 'live JS' : 'lazy steps';
  // The engine's later module (its build name ends in _later: web/scripts/build-wasm.mjs) comes with the lazy steps that draw it.
  if (path.endsWith('.wasm')) return /_later[^/]*\.wasm$/.test(path) ? 'later wasm' : 'wasm';
  if (/reader[^/]*\.(bin|txt)$/.test(path)) return 'step 1 model'; // the weights and the alias table
  if (path.endsWith('.bin')) return afterLazy ? 'lazy weights' : 'weights';
  return 'other';
}

function taskStats(durations: number[]): TaskStats {
  const long = durations.filter((d) => d > LONG_TASK_MS);
  return {
    count: durations.length,
    longestMs: durations.length ? Math.max(...durations) : 0,
    blockingMs: long.reduce((sum, d) => sum + d - LONG_TASK_MS, 0),
    over50: long.length,
    over100: durations.filter((d) => d > TASK_LIMIT_MS).length,
  };
}

/**
 * The floor: the built page's own head (its styles, its first script) with a body of the masthead alone,
 * loaded cold like the walk. Its load is the browser's share of every load (the navigation's commit, the
 * blank page's teardown, a first frame with a heading and a paragraph), so the walk's load is read
 * against it: a baseline run in the same process, on the same machine at the same moment.
 */
export function floorPage(dist: string): string {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const head = html.slice(0, html.indexOf('<body'));
  const masthead = /<header class="masthead">[\s\S]*?<\/header>/.exec(html)?.[0];
  if (!head || !masthead)
    throw new Error(`${dist}/index.html has no <body> or no <header class="masthead">: the floor page is made from both`);
  return `${head}<body>\n${masthead}\n</body>\n</html>\n`;
}
const FLOOR_PATH = '/floor.html';

/** A fresh context (a cold cache) at the walk's size, its renderer slowed `throttle` times, traced. */
async function openThrottled(browser: Browser, throttle: number, width: number): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: 780 }, deviceScaleFactor: 2, isMobile: false, hasTouch: false });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
  await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'v8.execute', 'blink.user_timing'] });
  return { context, page };
}

const ms = (t: TraceEvent, clock: Clock) => (clock === 'wall' ? t.dur! : (t.tdur ?? t.dur!)) / 1000;

function longTasksOf(tasks: TraceEvent[], all: TraceEvent[], phaseOf: (ts: number) => Phase): LongTask[] {
  const commits = all.filter((e) => e.name === 'CommitLoad');
  return tasks
    .filter((t) => ms(t, 'wall') > LONG_TASK_MS)
    .map((t) => ({
      phase: phaseOf(t.ts),
      ms: ms(t, 'wall'),
      cpuMs: ms(t, 'cpu'),
      top: topOfTask(t, all, (e) => e.dur! / 1000),
      commit: commits.some((c) => c.ts >= t.ts && c.ts <= t.ts + t.dur!),
    }));
}

/** The floor page's cold load: the same wait after `load` as the walk's load phase. */
async function floorOnce(browser: Browser, url: string, throttle: number, width: number): Promise<WalkRun['floor']> {
  const { context, page } = await openThrottled(browser, throttle, width);
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForTimeout(1500);
  const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: TraceEvent[] };
  await context.close();
  const { tasks, all } = mainThreadTasks(trace.traceEvents);
  return {
    tasks: { wall: taskStats(tasks.map((t) => ms(t, 'wall'))), cpu: taskStats(tasks.map((t) => ms(t, 'cpu'))) },
    longTasks: longTasksOf(tasks, all, () => 'load'),
  };
}

async function walkOnce(
  browser: Browser,
  url: string,
  goLive: Set<string>,
  throttle: number,
  width: number,
): Promise<Omit<WalkRun, 'floor'>> {
  const { context, page } = await openThrottled(browser, throttle, width);
  const bytes = Object.fromEntries(KINDS.map((k) => [k, { raw: 0, gzip: 0, files: 0 }])) as WalkRun['bytes'];
  let reached = false;
  const bodies: Promise<void>[] = [];
  // Whether a lazy step's code had been asked for when each request went out.
  let lazyAsked = false;
  const askedAfterLazy = new Set<string>();
  page.on('request', (request) => {
    if (lazyAsked) askedAfterLazy.add(request.url());
    else if (kindOf(request.url(), reached, goLive) === 'lazy steps') lazyAsked = true;
  });
  page.on('response', (response) => {
    const kind = kindOf(response.url(), reached, goLive, askedAfterLazy.has(response.url()));
    bodies.push(
      response.body().then(
        (body) => {
          bytes[kind].raw += body.length;
          bytes[kind].gzip += gzipSync(body, { level: 9 }).length;
          bytes[kind].files += 1;
        },
        () => {}, // a redirect or an aborted request has no body
      ),
    );
  });
  const mark = (name: Phase) => page.evaluate((n) => console.timeStamp(`walk:${n}`), name);

  await mark('load').catch(() => {}); // before navigation: about:blank, harmless
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForTimeout(1500); // the parse's trailing tasks and the first paints
  await mark('live');
  reached = true;
  // The reader's first reach: a real pointer move over the page (web/src/main.ts starts the live part).
  await page.mouse.move(width / 2, 300);
  await page.mouse.move(width / 2 + 10, 320);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 120_000, polling: 100 });
  const liveMs = await page.evaluate(() => performance.now());
  await page.waitForTimeout(3000); // the sections left to idle time
  await mark('scroll');
  // Real wheel input, a screenful at a time with a reader's pause, until the bottom stops moving.
  let last = -1;
  for (let i = 0; i < 400; ++i) {
    await page.mouse.wheel(0, 600);
    await page.waitForTimeout(250);
    const y = await page.evaluate(() => Math.round(scrollY));
    if (y === last) break;
    last = y;
  }
  await page.waitForTimeout(1500);
  const elements = await page.evaluate(() => {
    let n = document.getElementsByTagName('*').length;
    for (const host of document.querySelectorAll('*')) if (host.shadowRoot) n += host.shadowRoot.querySelectorAll('*').length;
    return n;
  });
  const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: TraceEvent[] };
  await Promise.all(bodies);
  await context.close();

  const events = trace.traceEvents;
  const { tasks, all } = mainThreadTasks(events);
  const marks = new Map<string, number>();
  for (const e of events) {
    const message = e.name === 'TimeStamp' ? e.args?.data?.message : undefined;
    if (message?.startsWith('walk:')) marks.set(message.slice(5), e.ts);
  }
  const phaseOf = (ts: number): Phase =>
    ts >= (marks.get('scroll') ?? Infinity) ? 'scroll' : ts >= (marks.get('live') ?? Infinity) ? 'live' : 'load';
  const statsOf = (clock: Clock) => {
    const phases = Object.fromEntries(
      PHASES.map((p) => [p, taskStats(tasks.filter((t) => phaseOf(t.ts) === p).map((t) => ms(t, clock)))]),
    ) as Record<Phase, TaskStats>;
    return { ...phases, walk: taskStats(tasks.map((t) => ms(t, clock))) };
  };
  const longTasks = longTasksOf(tasks, all, phaseOf);
  return { tasks: { wall: statsOf('wall'), cpu: statsOf('cpu') }, longTasks, bytes, liveMs, elements };
}

export interface WalkResult {
  runs: WalkRun[];
  throttle: number;
  width: number;
  loadAverage: { before: number[]; after: number[] };
}

const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;

/** The walk's lines for a report: medians over the runs, and each run's numbers to show the noise. */
export function describeWalk(result: WalkResult): string[] {
  const { runs } = result;
  const med = (f: (r: WalkRun) => number) => median(runs.map(f));
  const each = (f: (r: WalkRun) => number) => runs.map((r) => f(r).toFixed(0)).join(' / ');
  const lines = [
    `throttled walk: ${result.width} px, CPU ${result.throttle}× slower, ${runs.length} runs (median, then each run); load average ${result.loadAverage.before[0]!.toFixed(2)} -> ${result.loadAverage.after[0]!.toFixed(2)}`,
  ];
  const rows = [...PHASES, 'walk', 'floor'] as const;
  for (const clock of CLOCKS) {
    for (const row of rows) {
      const s = (r: WalkRun) => (row === 'floor' ? r.floor.tasks[clock] : r.tasks[clock][row]);
      lines.push(
        `  ${clock.padEnd(4)} ${row.padEnd(6)} longest task ${med((r) => s(r).longestMs).toFixed(0)} ms (${each((r) => s(r).longestMs)}), ` +
          `blocking ${med((r) => s(r).blockingMs).toFixed(0)} ms (${each((r) => s(r).blockingMs)}), ` +
          `> 50 ms: ${med((r) => s(r).over50)} (${each((r) => s(r).over50)}), > 100 ms: ${med((r) => s(r).over100)} (${each((r) => s(r).over100)})`,
      );
    }
    const overBesidesCommit = (r: WalkRun) =>
      r.longTasks.filter((t) => !t.commit && (clock === 'wall' ? t.ms : t.cpuMs) > TASK_LIMIT_MS).length;
    const met = runs.filter((r) => overBesidesCommit(r) === 0 && r.tasks[clock].walk.blockingMs <= BLOCKING_LIMIT_MS).length;
    lines.push(
      `  ${clock.padEnd(4)} walk's tasks over ${TASK_LIMIT_MS} ms besides the navigation's commit: ${each(overBesidesCommit)}; ` +
        `walks with none and blocking ≤ ${BLOCKING_LIMIT_MS} ms: ${met} of ${runs.length}`,
    );
  }
  lines.push(
    `  live (navigation -> data-ready, reach at ~1.5 s): ${med((r) => r.liveMs).toFixed(0)} ms; elements after the walk: ${med((r) => r.elements)}`,
  );
  const first = runs[0]!;
  for (const kind of KINDS) {
    const b = first.bytes[kind];
    if (b.files)
      lines.push(
        `  ${kind.padEnd(12)} ${kib(b.gzip).padStart(10)} gzipped, ${kib(b.raw).padStart(10)} raw, ${b.files} file${b.files === 1 ? '' : 's'}`,
      );
  }
  const live = (['live JS', 'wasm', 'weights', 'css'] as const).reduce((s, k) => s + first.bytes[k].gzip, 0);
  lines.push(`  live part before step 1's model (live JS, CSS, wasm, weights): ${kib(live)} gzipped`);
  for (const [i, r] of runs.entries())
    for (const [floor, tasks] of [
      [false, r.longTasks],
      [true, r.floor.longTasks],
    ] as const)
      for (const t of tasks)
        lines.push(
          `  run ${i + 1} ${(floor ? 'floor' : t.phase).padEnd(6)} task ${t.ms.toFixed(0)} ms (CPU ${t.cpuMs.toFixed(0)} ms)${t.commit ? ', the commit' : ''}: ${t.top}`,
        );
  return lines;
}

export async function runThrottledWalk(
  browser: Browser,
  root: string,
  log: (line: string) => void,
  runs = 3,
  throttle = 4,
  width = 360,
): Promise<WalkResult> {
  const server = await serve({ root, routes: { [FLOOR_PATH]: { body: floorPage(root) } } });
  const goLive = goLiveScripts(root);
  const before = loadavg();
  const out: WalkRun[] = [];
  try {
    for (let i = 0; i < runs; ++i) {
      const walk = await walkOnce(browser, `${server.url}/index.html`, goLive, throttle, width);
      out.push({ ...walk, floor: await floorOnce(browser, `${server.url}${FLOOR_PATH}`, throttle, width) });
    }
  } finally {
    await server.close();
  }
  const result = { runs: out, throttle, width, loadAverage: { before, after: loadavg() } };
  for (const line of describeWalk(result)) log(line);
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = flagTable(process.argv.slice(2));
  const browser = await launchBrowser();
  try {
    const result = await runThrottledWalk(
      browser,
      resolve(args.dist ?? 'dist'),
      console.log,
      Number(args.runs ?? 3),
      Number(args.throttle ?? 4),
      Number(args.width ?? 360),
    );
    if (args.json) {
      mkdirSync(dirname(resolve(args.json)), { recursive: true });
      writeFileSync(resolve(args.json), JSON.stringify(result, null, 2));
    }
  } finally {
    await browser.close();
  }
}
