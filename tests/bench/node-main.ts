// The Node process of the benchmark (started by run.ts): loads every participant from local files,
// runs the suite, writes its results as JSON to the path given as the first argument.
//   node --import tsx tests/bench/node-main.ts build/bench/node.json [--quick]
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AttentionEngine, createEngine } from '../../web/src/engine/engine';
import createScalarModule from '../../web/src/engine/generated/attention_engine_scalar.mjs';
import createScalarLater from '../../web/src/engine/generated/attention_engine_scalar_later.mjs';
import { selectedShapes } from './options';
import { loadRoof } from './peers/roof';
import { useTfjsWasmInNode } from './peers/tfjs-node';
import { runEnvironment, type Loaded } from './setup';

const root = resolve(import.meta.dirname, '..', '..');
const generated = join(root, 'web', 'src', 'engine', 'generated');
const out = process.argv[2] ?? join(root, 'build', 'bench', 'node.json');
const log = (line: string) => console.error(`[node] ${line}`);

const bytes = (name: string) => readFileSync(join(generated, `${name}.wasm`));
const simd = await createEngine({ wasmBinary: bytes('attention_engine'), laterWasmBinary: bytes('attention_engine_later') });
const scalar = new AttentionEngine(await createScalarModule({ wasmBinary: bytes('attention_engine_scalar') }), undefined, () =>
  Promise.resolve(() => createScalarLater({ wasmBinary: bytes('attention_engine_scalar_later') })),
);
await scalar.loadLater();
const roof = await loadRoof(readFileSync(join(root, 'build', 'bench', 'roof_probe.wasm')));

const loaded: Loaded = { simd, scalar, ort: null, tf: null, tfVersion: '', roof };
try {
  loaded.ort = await import('onnxruntime-web');
} catch (error) {
  loaded.ortError = String(error);
}
try {
  const tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  useTfjsWasmInNode(tf, wasm); // one thread, like every other participant
  if (!(await tf.setBackend('wasm'))) throw new Error('tf.setBackend("wasm") failed');
  await tf.ready();
  if (!(await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'))) throw new Error('tfjs-backend-wasm did not pick its SIMD build');
  loaded.tf = tf;
  loaded.tfVersion = wasm.version_wasm;
} catch (error) {
  loaded.tfError = String(error);
}

// CPU time: unlike wall time it leaves out the moments another process held the core (the host is
// shared). run.ts starts this process with V8's --single-threaded, so the process's CPU time is the
// benchmark thread's (no concurrent GC or compiler threads; onnxruntime-web and tfjs use one thread).
const cpuClock = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const result = await runEnvironment('Node', process.version, loaded, { shapes: selectedShapes(process.argv), cpuClock, log });
writeFileSync(out, JSON.stringify(result, null, 1));
log(`done in ${result.seconds.toFixed(0)} s -> ${out}`);
process.exit(0);
