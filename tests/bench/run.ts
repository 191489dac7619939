// `npm run bench`: the whole benchmark, one process per environment, results in build/bench/.
//
//   npm run bench                      every shape (n = 4 .. 4096, h = 1 and 8, causal off and on)
//   npm run bench -- --quick           n = 64 and 512 only
//   npm run bench -- --n=512,1024      these n only
//   flags: --no-native  --no-node  --no-browser  --no-page (skip the walkthrough latency, first load,
//          throttled phone walk and the main-thread tasks of the long-context step's runs)
//          --reuse-native  --reuse-node  (take that environment's results from the last run in build/bench/)
//          --no-training (skip training: ours native, SIMD wasm in Node and Chromium, scalar wasm, tfjs-wasm,
//          tfjs-cpu and PyTorch when installed; tests/bench/training.ts)
//          --no-long-context (skip the long-context kernels against onnxruntime-web's GroupQueryAttention and
//          plain graphs, Node; tests/bench/long-context.ts; --quick makes it small)
//          --no-reader (skip step 1's reader model: answer time in Node and Chromium, native training step;
//          tests/bench/reader.ts)
//          --no-presets (skip the three "Train it yourself" presets in the walkthrough in Chromium: time to
//          99% held-out accuracy and main-thread long tasks; tests/bench/train-presets.ts; --no-browser
//          skips it too)
//
// Steps: builds the wasm engines if they are missing (node web/scripts/build-wasm.mjs), the SIMD roof
// probe (emcc), the native peer (CMake, -DABH_BENCH=ON, -O3 -march=native) and runs it; runs the Node
// suite in a child process (node-main.ts) and the training step (training.ts); builds the site with Vite
// and runs the training presets in it in Chromium (train-presets.ts); builds the bench page (and the site,
// if not yet) with Vite and runs the Chromium suite and the page measurements (browser.ts); then prints
// the tables and writes build/bench/results.json, results.md and chart.svg.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { launchBrowser } from '../browser/harness';
import { benchDir, buildBenchPage, buildSite, runBenchPage, runFirstLoad, runLatency, siteDir } from './browser';
import { describeWalk, runThrottledWalk } from './page-walk';
import { describeLongContextTasks, runLongContextTasks } from './long-context-tasks';
import { chartSvg, fullText, verdicts, type BenchReport, type NativeResult } from './report';
import type { EnvironmentResult } from './setup';

const root = resolve(import.meta.dirname, '..', '..');
const args = process.argv.slice(2);
const suiteArgs = args.filter((a) => a === '--quick' || a.startsWith('--n='));
const log = (line: string) => console.error(line);
const t0 = performance.now();
mkdirSync(benchDir, { recursive: true });

const env = { ...process.env, NODE_PATH: [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(':') };
const run = (command: string, commandArgs: string[]) =>
  execFileSync(command, commandArgs, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env });

const report: BenchReport = {
  machine: {
    nproc: cpus().length,
    cpu: /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown',
    node: process.version,
    chromium: '',
    date: new Date().toISOString().slice(0, 10),
  },
  environments: [],
  native: null,
  latency: [],
  firstLoad: null,
  errors: [],
  seconds: 0,
};

/**
 * Runs tests/bench/`script` in a Node process of its own (V8's --single-threaded unless told otherwise),
 * which writes its result to `out` (removed first, so no earlier run's result stands in) and takes `args`
 * after it. Its exit status.
 */
function runInNode(script: string, out: string, args: string[], { singleThreaded = true, env = process.env } = {}): number | null {
  rmSync(out, { force: true });
  const node = [...(singleThreaded ? ['--single-threaded'] : []), '--import', 'tsx'];
  return spawnSync(process.execPath, [...node, `tests/bench/${script}`, out, ...args], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env,
  }).status;
}

/**
 * The report's section from a bench of its own (runInNode), whose result holds the section's `text`:
 * '' when it wrote none. A failure goes to report.errors; a run that fails after writing its result
 * (reader.ts when one part failed, train-presets.ts when every preset did) keeps its text.
 */
function sectionFrom(label: string, script: string, out: string, args: string[], options?: Parameters<typeof runInNode>[3]): string {
  const status = runInNode(script, out, args, options);
  if (status !== 0) report.errors.push(`${label} exited with ${status}`);
  return existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as { text: string }).text : '';
}

try {
  report.machine.nproc = Number(execFileSync('nproc', { encoding: 'utf8' }).trim()) || report.machine.nproc;
} catch {
  // os.cpus() stays
}

// ---- builds ------------------------------------------------------------------------------------------
const generated = join(root, 'web', 'src', 'engine', 'generated');
const modules = ['attention_engine', 'attention_engine_scalar'].flatMap((name) => [`${name}.wasm`, `${name}_later.wasm`]);
if (!modules.every((f) => existsSync(join(generated, f)))) {
  log('[bench] building the wasm engines (node web/scripts/build-wasm.mjs)');
  run('node', ['web/scripts/build-wasm.mjs']);
}
log('[bench] building the SIMD roof probe');
run('emcc', ['tests/bench/roof/roof_probe.cpp', '-O3', '-msimd128', '--no-entry', '-o', join(benchDir, 'roof_probe.wasm')]);

// ---- native ------------------------------------------------------------------------------------------
if (args.includes('--reuse-native') && existsSync(join(benchDir, 'native.json'))) {
  report.native = JSON.parse(readFileSync(join(benchDir, 'native.json'), 'utf8')) as NativeResult;
} else if (!args.includes('--no-native')) {
  try {
    log('[bench] building the native peer (build/bench-native, -DABH_BENCH=ON)');
    run('cmake', ['-S', '.', '-B', 'build/bench-native', '-DCMAKE_BUILD_TYPE=Release', '-DABH_BENCH=ON']);
    run('cmake', ['--build', 'build/bench-native', '-j2', '--target', 'abh_bench_native']);
    const out = spawnSync(join(root, 'build', 'bench-native', 'abh_bench_native'), suiteArgs, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 64 << 20,
    });
    if (out.status !== 0) throw new Error(`abh_bench_native exited with ${out.status}`);
    report.native = JSON.parse(out.stdout) as NativeResult;
    writeFileSync(join(benchDir, 'native.json'), out.stdout);
  } catch (error) {
    report.errors.push(`native: ${String(error)}`);
  }
}

// ---- Node --------------------------------------------------------------------------------------------
if (args.includes('--reuse-node') && existsSync(join(benchDir, 'node.json'))) {
  report.environments.push(JSON.parse(readFileSync(join(benchDir, 'node.json'), 'utf8')) as EnvironmentResult);
} else if (!args.includes('--no-node')) {
  const out = join(benchDir, 'node.json');
  const status = runInNode('node-main.ts', out, suiteArgs);
  if (status === 0) report.environments.push(JSON.parse(readFileSync(out, 'utf8')) as EnvironmentResult);
  else report.errors.push(`node: the Node process exited with ${status}`);
}

// ---- training step (tests/bench/training.ts) ------------------------------------------------------------
let trainingText = '';
if (!args.includes('--no-training')) {
  const passed = args.filter((arg) => arg === '--no-browser' || arg === '--no-torch');
  trainingText = sectionFrom('training: the training benchmark', 'training.ts', join(benchDir, 'training.json'), passed);
}

// ---- long-context kernels against onnxruntime-web (tests/bench/long-context.ts) -------------------------
let longContextText = '';
if (!args.includes('--no-long-context')) {
  const passed = args.filter((arg) => arg === '--quick');
  longContextText = sectionFrom('long-context: the long-context benchmark', 'long-context.ts', join(benchDir, 'long-context.json'), passed);
}

// ---- step 1's reader model: answer time in Node and Chromium, native training step (tests/bench/reader.ts)
let readerText = '';
if (!args.includes('--no-reader')) {
  const passed = args.filter((arg) => arg === '--no-browser' || arg === '--no-native');
  readerText = sectionFrom('reader: the reader benchmark', 'reader.ts', join(benchDir, 'reader.json'), passed);
}

// ---- the training presets in the walkthrough, in Chromium (tests/bench/train-presets.ts) ----------------
let presetsText = '';
let walkText = '';
let tasksText = '';
let siteBuilt = false;
if (!args.includes('--no-presets') && !args.includes('--no-browser')) {
  try {
    log('[bench] building the site (build/bench/site)');
    await buildSite();
    siteBuilt = true;
    presetsText = sectionFrom('presets: the training presets benchmark', 'train-presets.ts', join(benchDir, 'train-presets.json'), [], {
      singleThreaded: false,
      env: { ...process.env, DIST_DIR: siteDir },
    });
  } catch (error) {
    report.errors.push(`presets: ${String(error)}`);
  }
}

// ---- Chromium ----------------------------------------------------------------------------------------
if (!args.includes('--no-browser')) {
  let browser: Awaited<ReturnType<typeof launchBrowser>> | null = null;
  try {
    log('[bench] building the bench page (build/bench/page)');
    await buildBenchPage();
    browser = await launchBrowser();
    report.machine.chromium = browser.version();
    try {
      report.environments.push(await runBenchPage(browser, suiteArgs, log));
    } catch (error) {
      // A browser that went away (crash, or killed from outside on a shared host): one more try.
      log(`[bench] the Chromium run failed (${String(error).split('\n')[0]}); trying once more with a new browser`);
      await browser.close().catch(() => {});
      browser = await launchBrowser();
      report.environments.push(await runBenchPage(browser, suiteArgs, log));
    }
    if (!args.includes('--no-page')) {
      if (!siteBuilt) {
        log('[bench] building the site (build/bench/site)');
        await buildSite();
      }
      report.latency = await runLatency(browser, log);
      report.firstLoad = await runFirstLoad(browser, log);
      // The phone walk (page-walk.ts): kept in its own file and printed after the tables.
      const walk = await runThrottledWalk(browser, siteDir, log);
      writeFileSync(join(benchDir, 'page-walk.json'), JSON.stringify(walk, null, 2));
      walkText = describeWalk(walk).join('\n');
      // Issue 40's bar for the long-context step's runs: main-thread tasks from Run to the end (long-context-tasks.ts).
      tasksText = describeLongContextTasks(await runLongContextTasks(browser, siteDir, log)).join('\n');
    }
  } catch (error) {
    report.errors.push(`chromium: ${String(error instanceof Error ? (error.stack ?? error.message) : error).slice(0, 500)}`);
  } finally {
    await browser?.close();
  }
}

// ---- report ------------------------------------------------------------------------------------------
report.seconds = (performance.now() - t0) / 1000;
const text = [fullText(report), trainingText, longContextText, readerText, presetsText, walkText, tasksText].filter(Boolean).join('\n\n');
console.log(text);
console.log(`\n(${report.seconds.toFixed(0)} s)`);
writeFileSync(join(benchDir, 'results.json'), JSON.stringify({ ...report, verdicts: verdicts(report) }, null, 1));
writeFileSync(join(benchDir, 'results.md'), `${text}\n`);
writeFileSync(join(benchDir, 'chart.svg'), chartSvg(report));
console.log(`results: ${join('build', 'bench', 'results.json')}, results.md, chart.svg`);
process.exit(report.errors.length ? 1 : 0);
