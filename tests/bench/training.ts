// One training step (forward + backward + clipping + AdamW) of the default who-is-it model (2 layers
// x 2 heads, d_model 32, batch 32, 13 positions, vocabulary 51), timed in every way we have and every
// peer we could find, in the same interleaved rounds in a rotating order, as CPU time per step:
//   ours     native (build/bench-native/abh_train --bench 1), SIMD wasm and scalar wasm in Node, SIMD
//            wasm in Chromium (peers/training-page, the renderer main thread's CPU time over CDP);
//   peers    tfjs-core with autograd (tf.variableGrads, tf.train.adam; peers/tfjs-training.ts) on the
//            wasm backend (XNNPACK, one thread) in Node and in Chromium and on the plain JS cpu backend
//            in Node; PyTorch on one thread (peers/torch_training.py) where /usr/bin/python3 has torch.
// Every peer is checked to have our parameter count, and tfjs and PyTorch first train 300 steps on a
// learnable toy target, so that a wrong autograd graph would show as a loss that does not fall.
// Ratios are the peer's ms per step over ours (SIMD wasm in Node): how many times more steps per
// second ours runs. Started by run.ts (`npm run bench`, skip with --no-training) with V8's
// --single-threaded, so the process's CPU time is the benchmark thread's; standalone:
//   node --single-threaded --import tsx tests/bench/training.ts [build/bench/training.json]
//        [--no-browser] [--no-torch] [--no-tfjs-cpu] [--rounds=11] [--sample-ms=300]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { AttentionEngine, createEngine } from '../../web/src/engine/engine';
import createScalarModule from '../../web/src/engine/generated/attention_engine_scalar.mjs';
import { TRAINING_LIMITS } from '../../web/src/engine/limits';
import { Trainer } from '../../web/src/engine/training';
import { useTfjsWasmInNode } from './peers/tfjs-node';
import { batchMaker, tfjsTrainer, WHO_IS_IT_LENGTHS, type TfjsTrainer, type TrainingShape } from './peers/tfjs-training';

const root = resolve(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(`--${name}`);
const option = (name: string, fallback: number) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const generated = join(root, 'web', 'src', 'engine', 'generated');
const benchDir = join(root, 'build', 'bench');
const out = args.find((a) => !a.startsWith('--')) ?? join(benchDir, 'training.json');
const nativeDir = join(root, 'build', 'bench-native');
const native = join(nativeDir, 'abh_train');
const ROUNDS = option('rounds', 11);
const SAMPLE_MS = option('sample-ms', 300); // each sample's length, by calibrating its number of steps
const WARMUP_MS = 1500;
const SANITY_STEPS = 300;
const log = (line: string) => console.error(`[training] ${line}`);
const notes: string[] = [];
const note = (line: string) => {
  notes.push(line);
  log(line);
};
const load0 = loadavg();
// A participant in another process (PyTorch, the Chromium renderer) can die or hang, on a shared host
// from outside: every wait on one has a deadline, and a participant that fails is dropped with a note.
const withTimeout = async <T>(promise: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms / 1000} s`)), ms)),
  );
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
};

// ---- ours --------------------------------------------------------------------------------------------
// Its own Release build directory (run.ts configures the same one with -DABH_BENCH=ON for its kernel
// peer; the cache keeps that), so that nothing else building build/native races with it.
execFileSync('cmake', ['-S', '.', '-B', nativeDir, '-DCMAKE_BUILD_TYPE=Release'], { cwd: root, stdio: 'ignore' });
execFileSync('cmake', ['--build', nativeDir, '-j2', '--target', 'abh_train'], { cwd: root, stdio: 'ignore' });
if (!existsSync(native)) throw new Error(`no native trainer at ${native}`);

const simd = await createEngine({ wasmBinary: readFileSync(join(generated, 'attention_engine.wasm')) });
const scalar = new AttentionEngine(await createScalarModule({ wasmBinary: readFileSync(join(generated, 'attention_engine_scalar.wasm')) }));
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const trainers = { simd: Trainer.create(simd, {}), scalar: Trainer.create(scalar, {}) };
trainers.simd.step(5);
trainers.scalar.step(5);
const described = trainers.simd.describe();
const ourConfig = described.config;

// The batch's positions: who-is-it pads to its longest frame (tasks.cpp, kFrames); read from the source
// so that a new frame cannot leave the peers on another shape.
const frames = /kFrames\[\] = \{([\s\S]*?)\n\};/.exec(readFileSync(join(root, 'cpp', 'train', 'tasks.cpp'), 'utf8'))?.[1] ?? '';
const frameLengths = frames
  .split('\n')
  .filter((line) => line.trim().startsWith('{"')) // one frame a line: {"the", "{A}", "crossed", ...},
  .map((line) => (line.match(/"[^"]*"/g) ?? []).length);
if (ourConfig.task !== 'who-is-it' || frameLengths.join() !== WHO_IS_IT_LENGTHS.join())
  throw new Error(`who-is-it's frames changed (${frameLengths.join()}): update WHO_IS_IT_LENGTHS in peers/tfjs-training.ts`);
const shape: TrainingShape = {
  vocab: described.vocabulary.length,
  positions: TRAINING_LIMITS.maxPositions,
  sequenceLength: Math.max(...frameLengths),
  batch: ourConfig.batch,
  layers: ourConfig.layers,
  heads: ourConfig.heads,
  dModel: ourConfig.dModel,
  learningRate: ourConfig.learningRate,
  clip: ourConfig.clip,
};
if (
  ourConfig.mlp ||
  !ourConfig.layerNorm ||
  !ourConfig.scale ||
  described.causal ||
  ourConfig.optimizer !== 'adamw' ||
  ourConfig.weightDecay !== 0
)
  throw new Error(`the default training configuration changed (${JSON.stringify(ourConfig)}): update the peers`);
const parameterCount = described.parameterCount;
const sameCount = (who: string, count: number) => {
  if (count !== parameterCount) throw new Error(`${who} has ${count} parameters, ours ${parameterCount}: not the same model`);
};
log(
  `model: ${shape.layers} layers x ${shape.heads} heads, d_model ${shape.dModel}, vocabulary ${shape.vocab}, ` +
    `batch ${shape.batch} x ${shape.sequenceLength} positions, ${parameterCount} parameters`,
);

interface Participant {
  id: string;
  label: string;
  /** One sample of `steps` steps: CPU ms per step. */
  sample(steps: number): number | Promise<number>;
  steps?: number;
}
const wasmSample = (t: Trainer) => (steps: number) => {
  const c0 = cpuMs();
  t.step(steps);
  return (cpuMs() - c0) / steps;
};
const participants: Participant[] = [
  {
    id: 'native',
    label: 'ours, native (g++ -O3, portable x86-64)',
    sample: (steps) =>
      (JSON.parse(execFileSync(native, ['--bench', '1', '--steps', String(steps)], { encoding: 'utf8' })) as { cpuMsPerStep: number })
        .cpuMsPerStep,
  },
  { id: 'simd', label: 'ours, SIMD wasm (Node)', sample: wasmSample(trainers.simd) },
  { id: 'scalar', label: 'ours, scalar wasm (Node)', sample: wasmSample(trainers.scalar) },
];
const sanity: Record<string, number[]> = {};
const cleanups: (() => unknown)[] = [];

// ---- tfjs in Node ------------------------------------------------------------------------------------
let tfVersion = '';
try {
  const tf = await import('@tensorflow/tfjs-core');
  await import('@tensorflow/tfjs-backend-cpu');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  // tfjs-core's Node entry (a CommonJS bundle) registers no gradients, and its ES module files do not
  // load in Node as they are (directory imports): esbuild bundles register_all_gradients, which
  // registers into the same global registry and engine (tfjs keeps both on globalThis).
  const gradients = join(benchDir, 'tfjs-gradients.mjs');
  const { build } = await import('esbuild');
  await build({
    entryPoints: [require.resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: gradients,
    logLevel: 'warning',
  });
  await import(pathToFileURL(gradients).href);
  useTfjsWasmInNode(tf, wasm); // one thread, like every other participant
  tfVersion = wasm.version_wasm;
  const backends: { id: string; backend: string; label: string }[] = [
    { id: 'tfjs-wasm', backend: 'wasm', label: `tfjs-wasm ${tfVersion} (Node, 1 thread)` },
  ];
  if (!flag('no-tfjs-cpu')) backends.push({ id: 'tfjs-cpu', backend: 'cpu', label: `tfjs-cpu ${tfVersion} (Node, plain JS)` });
  for (const b of backends) {
    if (!(await tf.setBackend(b.backend))) throw new Error(`tf.setBackend("${b.backend}") failed`);
    await tf.ready();
    if (b.backend === 'wasm' && !(await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')))
      throw new Error('tfjs-backend-wasm did not pick its SIMD build');
    if (b.backend === 'wasm') {
      // The sanity run: the loss must fall on a target that attention can learn (the token at
      // position 1, read from another position). The cpu backend runs the same graph.
      const fresh = tfjsTrainer(tf, shape, 7, batchMaker(shape, 7, true));
      sanity[b.id] = Array.from({ length: 6 }, () => fresh.step(SANITY_STEPS / 6));
      fresh.dispose();
    }
    const trainer: TfjsTrainer = tfjsTrainer(tf, shape);
    sameCount(b.label, trainer.parameterCount);
    trainer.step(3);
    cleanups.push(() => trainer.dispose());
    participants.push({
      id: b.id,
      label: b.label,
      sample: async (steps) => {
        if (tf.getBackend() !== b.backend) await tf.setBackend(b.backend); // each trainer's tensors live on its own backend
        const c0 = cpuMs();
        trainer.step(steps);
        return (cpuMs() - c0) / steps;
      },
    });
  }
} catch (error) {
  note(`tfjs: skipped (${String(error).split('\n')[0]})`);
}

// ---- PyTorch, optional -------------------------------------------------------------------------------
const python = '/usr/bin/python3';
let torchVersion = '';
if (flag('no-torch')) note('PyTorch: skipped (--no-torch)');
else if (!existsSync(python)) note(`PyTorch: skipped (no ${python})`);
else {
  try {
    const child = spawn(python, [join(root, 'tests', 'bench', 'peers', 'torch_training.py'), JSON.stringify(shape)], {
      cwd: root,
      env: { ...process.env, OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = createInterface({ input: child.stdout });
    const waiting: ((line: string | null) => void)[] = [];
    lines.on('line', (line) => waiting.shift()?.(line));
    let exited: string | null = null;
    child.on('exit', (code, signal) => {
      exited = `the python process exited (${signal ?? `code ${code}`}): ${stderr.trim().split('\n').slice(-1)[0] ?? ''}`;
      for (const w of waiting.splice(0)) w(null);
    });
    child.on('error', (error) => (exited = String(error)));
    child.stdin.on('error', () => {}); // a dead process: reported by the next ask
    const ask = async <T>(command: string | null, timeoutMs = 120_000): Promise<T> => {
      if (exited) throw new Error(exited);
      const answer = new Promise<string | null>((done) => waiting.push(done));
      if (command) child.stdin.write(`${command}\n`);
      const line = await withTimeout(answer, timeoutMs, 'PyTorch');
      if (line === null) throw new Error(exited ?? 'the python process exited');
      return JSON.parse(line) as T;
    };
    const ready = await ask<{ torch: string; threads: number; parameterCount: number }>(null);
    torchVersion = ready.torch;
    sameCount(`PyTorch ${ready.torch}`, ready.parameterCount);
    sanity.torch = (await ask<{ losses: number[] }>(`sanity ${SANITY_STEPS}`)).losses;
    await ask(`run 3`);
    cleanups.push(() => {
      if (!exited) child.stdin.end('quit\n');
    });
    participants.push({
      id: 'torch',
      label: `PyTorch ${ready.torch} (CPU, ${ready.threads} thread)`,
      sample: async (steps) => (await ask<{ cpuMsPerStep: number }>(`run ${steps}`)).cpuMsPerStep,
    });
  } catch (error) {
    note(`PyTorch: skipped (${String(error).split('\n')[0].slice(0, 200)}); install Debian's python3-torch to compare with it`);
  }
}

// ---- Chromium ----------------------------------------------------------------------------------------
let chromiumVersion = '';
if (flag('no-browser')) note('Chromium: skipped (--no-browser)');
else {
  try {
    const { buildPage } = await import('./pages');
    const { launchBrowser, serve } = await import('../browser/harness');
    const pageDir = join(benchDir, 'training-page');
    await buildPage(join(root, 'tests', 'bench', 'peers', 'training-page'), pageDir, 'training benchmark');
    const server = await serve({ root: pageDir });
    cleanups.push(() => server.close());
    const browser = await launchBrowser();
    cleanups.push(() => browser.close());
    chromiumVersion = browser.version();
    const page = await browser.newPage();
    page.on('pageerror', (e) => log(`[chromium page error] ${e}`));
    page.on('crash', () => log('[chromium] the page crashed'));
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => document.documentElement.dataset.benchReady === 'true', null, { timeout: 60_000 });
    const info = await page.evaluate((s) => window.trainingBench.init(s), shape);
    sameCount('ours in Chromium', info.ours.parameterCount);
    // The renderer main thread's CPU time (CDP Performance.getMetrics ThreadTime). A read and a call
    // cost the renderer a little themselves: measured with an empty call and subtracted.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const threadMs = async () =>
      ((await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime')?.value ?? NaN) * 1000;
    const costs: number[] = [];
    for (let i = 0; i < 21; ++i) {
      const a = await threadMs();
      await page.evaluate(() => 0);
      costs.push((await threadMs()) - a);
    }
    const overheadMs = median(costs);
    const inPage = (call: 'ours' | 'tfjs') => async (steps: number) => {
      const a = await threadMs();
      await withTimeout(
        page.evaluate(([c, s]) => window.trainingBench[c](s), [call, steps] as const),
        120_000,
        'Chromium',
      );
      return ((await threadMs()) - a - overheadMs) / steps;
    };
    const version = /Chrome\/([\d.]+)/.exec(info.userAgent)?.[1] ?? '';
    participants.push({ id: 'chromium-simd', label: `ours, SIMD wasm (Chromium ${version.split('.')[0]})`, sample: inPage('ours') });
    if ('error' in info.tfjs) note(`tfjs-wasm in Chromium: skipped (${info.tfjs.error})`);
    else {
      sameCount('tfjs-wasm in Chromium', info.tfjs.parameterCount);
      participants.push({ id: 'chromium-tfjs-wasm', label: `tfjs-wasm ${info.tfjs.version} (Chromium, 1 thread)`, sample: inPage('tfjs') });
    }
  } catch (error) {
    note(`Chromium: skipped (${String(error).split('\n')[0]})`);
  }
}

// ---- the rounds --------------------------------------------------------------------------------------
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}
// Warm-up and steps per sample: samples of growing length until WARMUP_MS of work (JIT tiers, tfjs's
// first kernel calls), then as many steps as the last estimate says fill SAMPLE_MS.
const stepsFor = (msPerStep: number) => Math.max(1, Math.min(2000, Math.round(SAMPLE_MS / Math.max(msPerStep, 1e-3))));
const failed = new Set<string>();
const attempt = async (p: Participant, steps: number): Promise<number | null> => {
  try {
    return await p.sample(steps);
  } catch (error) {
    if (p.id === 'simd') throw error;
    failed.add(p.id);
    note(`${p.label}: dropped (${String(error).split('\n')[0]!.slice(0, 200)})`);
    return null;
  }
};
for (const p of participants) {
  let steps = p.id === 'native' ? 20 : 2;
  let estimate = await attempt(p, steps);
  let spent = 0;
  while (estimate !== null) {
    spent += estimate * steps;
    if (spent >= WARMUP_MS) break;
    steps = stepsFor(estimate);
    estimate = await attempt(p, steps);
  }
  if (estimate !== null) p.steps = stepsFor(estimate);
}
const samples = new Map(participants.map((p) => [p.id, [] as number[]]));
const t0 = performance.now();
for (let round = 0; round < ROUNDS; ++round)
  for (let i = 0; i < participants.length; ++i) {
    const p = participants[(round + i) % participants.length]!;
    if (failed.has(p.id)) continue;
    const ms = await attempt(p, p.steps!);
    if (ms !== null) samples.get(p.id)!.push(ms);
  }
const seconds = (performance.now() - t0) / 1000;
const load1 = loadavg();
trainers.simd.dispose();
trainers.scalar.dispose();
for (const cleanup of cleanups) await withTimeout(Promise.resolve(cleanup()), 30_000, 'cleanup').catch((error) => log(String(error)));

const simdMs = median(samples.get('simd')!);
const results = participants
  .filter((p) => !failed.has(p.id))
  .map((p) => {
    const ms = median(samples.get(p.id)!);
    return {
      id: p.id,
      label: p.label,
      cpuMsPerStep: ms,
      stepsPerSecond: 1000 / ms,
      /** The peer's ms per step over ours (SIMD wasm, Node): how many times more steps per second ours runs. */
      relativeToSimd: ms / simdMs,
      stepsPerSample: p.steps!,
      samples: samples.get(p.id)!,
    };
  });
const ratio = (id: string) => results.find((r) => r.id === id)?.relativeToSimd ?? null;
const targets = [
  { versus: 'tfjs-wasm', id: 'tfjs-wasm', atLeast: 5 },
  { versus: 'PyTorch', id: 'torch', atLeast: 4 },
].map((t) => ({ ...t, ratio: ratio(t.id), met: (ratio(t.id) ?? 0) >= t.atLeast }));
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
const lines = [
  `Training step, who-is-it default model (${shape.layers} layers x ${shape.heads} heads, d_model ${shape.dModel}, ` +
    `batch ${shape.batch} x ${shape.sequenceLength}, vocabulary ${shape.vocab}, ${parameterCount} parameters; ` +
    `forward + backward + clip + AdamW),`,
  `median CPU ms per step over ${ROUNDS} interleaved rounds of ~${SAMPLE_MS} ms samples, ${cpus().length} cores, ` +
    `load average ${load(load0)} before, ${load(load1)} after (${seconds.toFixed(0)} s):`,
  `  ${'participant'.padEnd(42)} ${'ms/step'.padStart(8)} ${'steps/s'.padStart(8)}   ours SIMD (Node) is`,
  ...results.map(
    (r) =>
      `  ${r.label.padEnd(42)} ${fmt(r.cpuMsPerStep).padStart(8)} ${fmt(r.stepsPerSecond).padStart(8)}   ` +
      (r.id === 'simd' ? '(ours)' : `${fmt(r.relativeToSimd)}x ${r.relativeToSimd >= 1 ? 'faster' : '(this one is faster)'}`),
  ),
  ...Object.entries(sanity).map(
    ([id, losses]) =>
      `  sanity, ${id}: loss on a learnable toy target every ${SANITY_STEPS / 6} steps: ${losses.map((l) => l.toFixed(3)).join(', ')}`,
  ),
  ...targets.map((t) =>
    t.ratio === null
      ? `  target ours >= ${t.atLeast}x ${t.versus}: not measured`
      : `  target ours >= ${t.atLeast}x ${t.versus}: ${fmt(t.ratio)}x, ${t.met ? 'met' : 'NOT met'}`,
  ),
  `  target SIMD wasm <= 2 ms per step: ${fmt(simdMs)} ms, ${simdMs <= 2 ? 'met' : 'NOT met'}`,
  ...notes.map((n) => `  note: ${n}`),
];
for (const line of lines) log(line);
for (const [id, losses] of Object.entries(sanity))
  if (!(losses[losses.length - 1]! < 0.25 * losses[0]!))
    log(`warning: the ${id} sanity run's loss did not fall: its autograd graph may be wrong`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  JSON.stringify(
    {
      shape,
      parameterCount,
      rounds: ROUNDS,
      sampleMs: SAMPLE_MS,
      loadAverage: { before: load0, after: load1 },
      versions: { node: process.version, tfjs: tfVersion, torch: torchVersion, chromium: chromiumVersion },
      results,
      targets,
      sanity,
      notes,
      text: lines.join('\n'),
    },
    null,
    1,
  ),
);
process.exit(0);
