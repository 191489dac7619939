// Step 1's reader model (issue 38), timed: answering a 40-word sentence in Node and in Chromium: the answer
// on screen, and the reading complete with the page's "which words flip the answer" (reader-timing.ts), and one training
// step natively (tests/bench/native/reader_train_bench.cpp; the reader trainer is not in the wasm
// engine, the page never trains this model). Started by run.ts (`npm run bench`, skip with
// --no-reader) with V8's --single-threaded, so the process's CPU time is the benchmark thread's;
// standalone:
//   node --single-threaded --import tsx tests/bench/reader.ts [build/bench/reader.json] [--no-browser] [--no-native]
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launchBrowser } from '../browser/harness';
import { createEngine } from '../../web/src/engine/engine';
import { GUESS_BELOW } from '../../web/src/features/reader/answer';
import { buildBenchPage, buildSite, runReaderBenchPage } from './browser';
import { measureReaderPainted, type ReaderPainted } from './reader-painted';
import { measureReader, READER_MODELS, READER_WORDS, type ReaderTiming } from './reader-timing';

const root = resolve(import.meta.dirname, '..', '..');
const args = process.argv.slice(2);
const out = args.find((a) => !a.startsWith('--')) ?? join(root, 'build', 'bench', 'reader.json');
const log = (line: string) => console.error(`[reader] ${line}`);

/** The bar for answering a 40-word sentence. */
export const READER_ANSWER_TARGET_MS = 10;

interface NativeTrainStep {
  causal: boolean;
  layers: number;
  heads: number;
  dModel: number;
  batch: number;
  parameters: number;
  vocabulary: number;
  msPerStep: number;
  p10: number;
  p90: number;
}

const environments: { name: string; timings: ReaderTiming[] }[] = [];
const errors: string[] = [];
let painted: (ReaderPainted & { browser: string }) | null = null;

const engine = await createEngine({ wasmBinary: readFileSync(join(root, 'web', 'src', 'engine', 'generated', 'attention_engine.wasm')) });
const models = READER_MODELS.map(({ label, file }) => ({
  label,
  bytes: new Uint8Array(readFileSync(join(root, 'web', 'src', 'model', file))),
}));
const cpuClock = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
environments.push({ name: `Node ${process.version}`, timings: await measureReader(engine, models, { cpuClock, log }) });

if (!args.includes('--no-browser')) {
  const browser = await launchBrowser();
  try {
    log('building the bench page (build/bench/page)');
    if (!existsSync(join(root, 'build', 'bench', 'roof_probe.wasm')))
      execFileSync(
        'emcc',
        ['tests/bench/roof/roof_probe.cpp', '-O3', '-msimd128', '--no-entry', '-o', join(root, 'build', 'bench', 'roof_probe.wasm')],
        {
          cwd: root,
          stdio: 'inherit',
        },
      );
    await buildBenchPage();
    environments.push({ name: `Chromium ${browser.version()}`, timings: await runReaderBenchPage(browser, log) });
    log('building the walkthrough (build/bench/site) for the answer as painted');
    await buildSite();
    painted = { browser: `Chromium ${browser.version()}`, ...(await measureReaderPainted(browser)) };
    log(
      `answer painted: median ${painted.paintedMedianMs.toFixed(1)} ms, p95 ${painted.paintedP95Ms.toFixed(1)} ms over ${painted.edits} edits`,
    );
  } catch (error) {
    errors.push(`chromium: ${String(error).slice(0, 300)}`);
  } finally {
    await browser.close();
  }
}

const training: NativeTrainStep[] = [];
if (!args.includes('--no-native')) {
  try {
    const dir = join(root, 'build', 'bench-native');
    log('building abh_bench_reader_train (build/bench-native, Release, portable)');
    execFileSync('cmake', ['-S', '.', '-B', dir, '-DCMAKE_BUILD_TYPE=Release', '-DABH_BENCH=ON'], { cwd: root, stdio: 'ignore' });
    execFileSync('cmake', ['--build', dir, '-j2', '--target', 'abh_bench_reader_train'], { cwd: root, stdio: 'ignore' });
    for (const causal of [0, 1])
      training.push(
        JSON.parse(
          execFileSync(join(dir, 'abh_bench_reader_train'), ['--causal', String(causal)], { encoding: 'utf8' }),
        ) as NativeTrainStep,
      );
  } catch (error) {
    errors.push(`native training step: ${String(error).slice(0, 300)}`);
  }
}

const f = (ms: number) => (ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const lines = [
  `### Step 1's reader model: a ${READER_WORDS.length}-word sentence (median CPU ms per call; target ≤ ${READER_ANSWER_TARGET_MS} ms)`,
  '',
  '| environment | model | one forward pass | answer on screen (model runs) | met | reading complete, with flips (model runs) | the answer |',
  '| --- | --- | --- | --- | --- | --- | --- |',
];
for (const { name, timings } of environments)
  for (const t of timings) {
    const met = (ms: number) => (ms <= READER_ANSWER_TARGET_MS ? 'yes' : 'no');
    const said =
      t.answer.word === null
        ? 'none'
        : `${t.answer.word} ${(100 * t.answer.probability).toFixed(0)}%${t.answer.probability < GUESS_BELOW ? ' (guessing)' : ''}, ${t.answer.flips} flips`;
    lines.push(
      `| ${name} | ${t.model} | ${f(t.forwardPass.medianMs)} | ${f(t.answerOnScreen.medianMs)} (${t.answer.runsOnScreen}) | ${met(t.answerOnScreen.medianMs)} | ${f(t.readingComplete.medianMs)} (${t.answer.runsComplete}) | ${said} |`,
    );
  }
if (painted)
  lines.push(
    '',
    `| in the walkthrough (${painted.browser}, wall ms): edit of the ${READER_WORDS.length}-word sentence to … | median | p95 | met | answers shown |`,
    '| --- | --- | --- | --- | --- |',
    `| … the snapshot with its answer drawn | ${f(painted.drawnMedianMs)} | | | |`,
    `| … the frame that shows the answer painted (${painted.edits} edits) | ${f(painted.paintedMedianMs)} | ${f(painted.paintedP95Ms)} | ${painted.paintedMedianMs <= READER_ANSWER_TARGET_MS ? 'yes' : 'no'} | ${painted.answers.join(' / ')} |`,
  );
if (training.length) {
  lines.push(
    '',
    '| training step, native (g++ -O3, portable x86-64) | parameters | batch | CPU ms / step (p10–p90) |',
    '| --- | --- | --- | --- |',
  );
  for (const t of training)
    lines.push(
      `| ${t.causal ? 'causal' : 'bidirectional'}: ${t.layers} layers × ${t.heads} heads, d_model ${t.dModel}, MLP, vocabulary ${t.vocabulary} | ${t.parameters.toLocaleString('en')} | ${t.batch} | ${f(t.msPerStep)} (${f(t.p10)}–${f(t.p90)}) |`,
    );
}
for (const e of errors) lines.push('', `error: ${e}`);
const text = lines.join('\n');
writeFileSync(out, JSON.stringify({ environments, painted, training, errors, text }, null, 1));
console.log(text);
process.exit(errors.length ? 1 : 0);
