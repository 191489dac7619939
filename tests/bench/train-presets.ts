// "Train it yourself" in Chromium, as a reader runs it: for each of the three presets ("Who is “it”?",
// "Heads specialise", "Why scale") a fresh main page (dist/index.html#train), a click on the preset, a
// click on Start, and a wait for data-train-phase="finished". It reports, as medians over rounds:
//   time to target   what the page's status says: the training time until held-out accuracy first
//                    reached 99% ("after Y s of computing on your machine"), and the run's total time X
//                    ("Done: N steps in X s of computing"); "Heads specialise" never reaches 99%, so its final
//                    accuracy instead; "Why scale" runs a twin in a second worker, and the status waits
//                    for both, so the wall time from the Start click to "finished" covers both twins;
//   long tasks       main-thread tasks over 50 ms (PerformanceObserver 'longtask', not buffered) from
//                    just before the Start click to "finished": count, longest and sum; then the same
//                    observer for an equal idle period on the same page once training has ended, so a
//                    reader can tell tasks caused by training from the machine's background noise.
// Presets rotate in each round, so a noisy neighbour slows all of them alike. Nothing here asserts a
// time. Started by run.ts after the training step (skip with --no-presets); standalone:
//   node --import tsx tests/bench/train-presets.ts [build/bench/train-presets.json] [--rounds=5]
// It serves dist/ as it is (run `npm run build:site` first if dist/ is missing or stale), or DIST_DIR:
// run.ts builds the site into build/bench/site and passes that.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { collectErrors, distDir, launchBrowser, serve, settled } from '../browser/harness';
import { KEEP_NAMES } from './latency';
import { markdownTable } from './report';

const root = resolve(import.meta.dirname, '..', '..');
const args = process.argv.slice(2);
const option = (name: string, fallback: number) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const out = args.find((a) => !a.startsWith('--')) ?? join(root, 'build', 'bench', 'train-presets.json');
const ROUNDS = option('rounds', 5);
const RUN_TIMEOUT_MS = 120_000;
const log = (line: string) => console.error(`[train-presets] ${line}`);

const PRESETS = [
  { id: 'who-is-it', label: 'Who is “it”?' },
  { id: 'heads', label: 'Heads specialise' },
  { id: 'scale', label: 'Why scale' },
] as const;
type PresetId = (typeof PRESETS)[number]['id'];

interface LongTasks {
  count: number;
  /** The longest task, ms (0 when there was none). */
  maxMs: number;
  totalMs: number;
  /** Every task: start (ms after the observer began) and duration. */
  tasks: { startMs: number; durationMs: number }[];
  /** Long Animation Frames over 50 ms in the same window, with the script that took longest in each. */
  frames: { startMs: number; durationMs: number; blockingMs: number; script: string }[];
}

interface Sample {
  preset: PresetId;
  round: number;
  status: string;
  steps: number;
  /** "Done: N steps in X" (the main run's training time, as the page reports it). */
  totalMs: number;
  /** "after Y of computing", or null: "It never reached 99%". */
  targetMs: number | null;
  targetStep: number | null;
  /** Held-out accuracy at the end, 0..1. */
  accuracy: number;
  /** From the Start click to data-train-phase="finished" (both twins for "Why scale"), performance.now(). */
  wallMs: number;
  findings: string[];
  training: LongTasks;
  idle: LongTasks;
  errors: string[];
}

const median = (values: number[]): number | null => {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** "612 ms", "1.05 s", "12.3 s" → ms. */
const toMs = (value: string, unit: string) => Number(value) * (unit === 's' ? 1000 : 1);

function parseStatus(status: string) {
  const done = /Done: (\d+) steps in ([\d.]+) (ms|s) of computing, ([\d.]+)% held-out accuracy\./.exec(status);
  if (!done) throw new Error(`the status does not say the run is done: “${status}”`);
  const reached = /reached 99% held-out accuracy at step (\d+), after ([\d.]+) (ms|s) of computing/.exec(status);
  if (!reached && !/never reached 99%/.test(status)) throw new Error(`the status says neither when nor never: “${status}”`);
  return {
    steps: Number(done[1]),
    totalMs: toMs(done[2], done[3]),
    accuracy: Number(done[4]) / 100,
    targetStep: reached ? Number(reached[1]) : null,
    targetMs: reached ? toMs(reached[2], reached[3]) : null,
  };
}

// ---- in the page --------------------------------------------------------------------------------------
// One window of observation: long tasks and long animation frames from now until stop() is called.
// Installed with page.evaluate, so it is plain browser code (no closures over Node values).
function installObservers(): void {
  type Window_ = { __presetObs?: { stop: () => unknown } };
  const w = window as unknown as Window_;
  const t0 = performance.now();
  const tasks: { startMs: number; durationMs: number }[] = [];
  const frames: { startMs: number; durationMs: number; blockingMs: number; script: string }[] = [];
  const longTasks = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) tasks.push({ startMs: e.startTime - t0, durationMs: e.duration });
  });
  longTasks.observe({ type: 'longtask', buffered: false });
  let loaf: PerformanceObserver | null = null;
  if (PerformanceObserver.supportedEntryTypes.includes('long-animation-frame')) {
    loaf = new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & {
        blockingDuration: number;
        scripts: {
          duration: number;
          invoker: string;
          sourceURL: string;
          sourceFunctionName: string;
          forcedStyleAndLayoutDuration: number;
        }[];
      })[]) {
        if (e.duration <= 50) continue;
        const top = [...e.scripts].sort((a, b) => b.duration - a.duration)[0];
        const script = top
          ? `${top.invoker || '?'} ${top.sourceFunctionName || ''} ${top.sourceURL.split('/').at(-1) ?? ''} ${Math.round(top.duration)} ms (forced style and layout ${Math.round(top.forcedStyleAndLayoutDuration)} ms)`
          : 'no script (style, layout, paint)';
        frames.push({ startMs: e.startTime - t0, durationMs: e.duration, blockingMs: e.blockingDuration, script });
      }
    });
    loaf.observe({ type: 'long-animation-frame', buffered: false });
  }
  w.__presetObs = {
    stop: () => {
      for (const e of longTasks.takeRecords()) tasks.push({ startMs: e.startTime - t0, durationMs: e.duration });
      longTasks.disconnect();
      loaf?.disconnect();
      return { tasks, frames };
    },
  };
}

async function observe(page: Page): Promise<void> {
  await page.evaluate(installObservers);
}

async function stopObserving(page: Page): Promise<LongTasks> {
  // Two frames first, so that a task that just ended has been reported to the observer.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const { tasks, frames } = await page.evaluate(
    () =>
      (window as unknown as { __presetObs: { stop: () => unknown } }).__presetObs.stop() as {
        tasks: LongTasks['tasks'];
        frames: LongTasks['frames'];
      },
  );
  return {
    count: tasks.length,
    maxMs: Math.max(0, ...tasks.map((t) => t.durationMs)),
    totalMs: tasks.reduce((sum, t) => sum + t.durationMs, 0),
    tasks,
    frames,
  };
}

async function runOnce(browser: Browser, url: string, preset: (typeof PRESETS)[number], round: number): Promise<Sample> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = collectErrors(page);
  await page.addInitScript(KEEP_NAMES);
  try {
    await page.goto(`${url}/index.html#train`);
    await settled(page);
    const button = page.getByRole('button', { name: preset.label, exact: true });
    await button.click();
    await page.locator(`attention-walkthrough button.train-experiment[data-experiment="${preset.id}"][aria-pressed="true"]`).waitFor();
    await settled(page);
    const body = page.locator('attention-walkthrough [data-train-phase]');
    if ((await body.getAttribute('data-train-phase')) !== 'idle') throw new Error('the run is not idle before Start');
    // The wall clock: from the click event (document, capture phase, before the step's own handler) to
    // the mutation that sets data-train-phase="finished".
    await body.evaluate((el) => {
      const w = window as unknown as { __presetWall: Promise<number> };
      w.__presetWall = new Promise<number>((resolve) => {
        let start = 0;
        document.addEventListener('click', () => (start ||= performance.now()), { capture: true, once: true });
        new MutationObserver((_, mo) => {
          if (el.getAttribute('data-train-phase') === 'finished' || el.getAttribute('data-train-phase') === 'stopped') {
            mo.disconnect();
            resolve(performance.now() - start);
          }
        }).observe(el, { attributes: true, attributeFilter: ['data-train-phase'] });
      });
    });
    await observe(page);
    await page.getByRole('button', { name: 'Start' }).click();
    const wallMs = await page.evaluate(() => (window as unknown as { __presetWall: Promise<number> }).__presetWall);
    const training = await stopObserving(page);
    const phase = await body.getAttribute('data-train-phase');
    const status = await page.locator('attention-walkthrough .train-status').innerText();
    if (phase !== 'finished') throw new Error(`the run stopped: “${status}”`);
    const findings = await page.locator('attention-walkthrough .train-findings li').allInnerTexts();
    // The baseline: the same page, idle now that training has ended, for as long as training took.
    await settled(page);
    await observe(page);
    await page.waitForTimeout(wallMs);
    const idle = await stopObserving(page);
    return { preset: preset.id, round, status, ...parseStatus(status), wallMs, findings, training, idle, errors };
  } finally {
    await page.close();
  }
}

// ---- the run ------------------------------------------------------------------------------------------
const load0 = loadavg();
const t0 = performance.now();
const server = await serve();
const browser = await launchBrowser();
const chromium = browser.version();
const samples: Sample[] = [];
const failures: string[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < PRESETS.length; i++) {
      const preset = PRESETS[(i + round) % PRESETS.length];
      try {
        const timeout = new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`no finish in ${RUN_TIMEOUT_MS / 1000} s`)), RUN_TIMEOUT_MS).unref(),
        );
        const sample = await Promise.race([runOnce(browser, server.url, preset, round), timeout]);
        samples.push(sample);
        log(
          `round ${round + 1}/${ROUNDS} ${preset.label}: ${sample.status} | wall ${Math.round(sample.wallMs)} ms | ` +
            `long tasks training ${sample.training.count} (max ${Math.round(sample.training.maxMs)} ms), idle ${sample.idle.count} (max ${Math.round(sample.idle.maxMs)} ms) | load ${loadavg()[0].toFixed(2)}`,
        );
        if (sample.errors.length) log(`  page errors: ${sample.errors.join(' | ')}`);
      } catch (error) {
        failures.push(`round ${round + 1} ${preset.label}: ${String(error).split('\n')[0]}`);
        log(failures.at(-1)!);
      }
    }
  }
} finally {
  await browser.close();
  await server.close();
}
const load1 = loadavg();

// ---- summary ------------------------------------------------------------------------------------------
const summary = PRESETS.map((preset) => {
  const own = samples.filter((s) => s.preset === preset.id);
  const reached = own.filter((s) => s.targetMs !== null);
  const tasks = (pick: (s: Sample) => LongTasks) => ({
    count: median(own.map((s) => pick(s).count)),
    maxMs: median(own.map((s) => pick(s).maxMs)),
    totalMs: median(own.map((s) => pick(s).totalMs)),
    worstMs: Math.max(0, ...own.map((s) => pick(s).maxMs)),
    over50: own.reduce((sum, s) => sum + pick(s).count, 0),
  });
  return {
    preset: preset.id,
    label: preset.label,
    rounds: own.length,
    steps: own[0]?.steps ?? null,
    reachedTarget: `${reached.length} of ${own.length}`,
    targetMs: median(reached.map((s) => s.targetMs!)),
    targetStep: median(reached.map((s) => s.targetStep!)),
    totalMs: median(own.map((s) => s.totalMs)),
    wallMs: median(own.map((s) => s.wallMs)),
    accuracy: median(own.map((s) => s.accuracy)),
    training: tasks((s) => s.training),
    idle: tasks((s) => s.idle),
  };
});

const ms = (v: number | null) => (v === null ? '–' : v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${Math.round(v)} ms`);
const num = (v: number | null) => (v === null ? '–' : String(Math.round(v * 10) / 10));
const rows = summary.map((s) => [
  `${s.label} (${s.steps ?? '?'} steps)`,
  s.targetMs === null
    ? `never (${s.reachedTarget}); final ${((s.accuracy ?? 0) * 100).toFixed(1)}%`
    : `${ms(s.targetMs)} (step ${num(s.targetStep)})`,
  ms(s.totalMs),
  ms(s.wallMs),
  `${num(s.training.count)} / ${ms(s.training.maxMs)} (worst ${ms(s.training.worstMs)})`,
  `${num(s.idle.count)} / ${ms(s.idle.maxMs)} (worst ${ms(s.idle.worstMs)})`,
]);
const anyOver50 = samples.some((s) => s.training.count > 0);
const text = [
  `### Presets in Chromium ${chromium} (train-presets.ts, median of ${ROUNDS} rounds)`,
  '',
  markdownTable(
    [
      'preset',
      'time to 99% held-out (step)',
      'training time (status)',
      'Start → finished (wall)',
      'long tasks training: count / max',
      'long tasks idle: count / max',
    ],
    rows,
  ),
  '',
  `Long tasks are main-thread tasks over 50 ms; "idle" is the same page for as long again after training ended. ` +
    `${anyOver50 ? 'Some run had' : 'No run had'} a main-thread task over 50 ms during training` +
    (anyOver50
      ? ` (${samples.reduce((n, s) => n + s.training.count, 0)} in ${samples.length} runs; idle: ${samples.reduce((n, s) => n + s.idle.count, 0)}).`
      : '.') +
    ` Load average (1 min) ${load0[0].toFixed(2)} before, ${load1[0].toFixed(2)} after; ${cpus().length} CPUs.` +
    (failures.length ? `\nFailed runs: ${failures.join('; ')}` : ''),
].join('\n');

mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  JSON.stringify(
    {
      date: new Date().toISOString(),
      chromium,
      node: process.version,
      nproc: cpus().length,
      loadavg: { before: load0, after: load1 },
      site: distDir,
      rounds: ROUNDS,
      seconds: (performance.now() - t0) / 1000,
      summary,
      samples,
      failures,
      text,
    },
    null,
    1,
  ),
);
console.log(text);
log(`results: ${out}`);
process.exit(failures.length && !samples.length ? 1 : 0);
