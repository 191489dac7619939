// Builds the WebAssembly engine twice with emcmake: the SIMD build the page ships and a scalar
// build of the same code (parity tests and benchmarks), then copies both next to the engine
// wrapper, where Vite and Vitest pick them up. Each build is two modules (CMakeLists.txt): the core
// the page loads when it goes live and `<name>_later`, the kernels only the later steps draw. Last, it loads the fresh SIMD build in Node and writes
// the limits the C++ publishes (engineInfo().limits, trainingLimits()) to generated/limits.json:
// the page's settings clamp to them synchronously, before any engine exists (web/src/engine/limits.ts).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const generated = join(root, 'web', 'src', 'engine', 'generated');
// Debian's emcc finds its JS dependencies (acorn) only through NODE_PATH.
const env = { ...process.env, NODE_PATH: [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(':') };
const run = (command, args) => execFileSync(command, args, { cwd: root, stdio: 'inherit', env });

const variants = [
  { dir: 'build/wasm', simd: 'ON', name: 'attention_engine' },
  { dir: 'build/wasm-scalar', simd: 'OFF', name: 'attention_engine_scalar' },
];
mkdirSync(generated, { recursive: true });
for (const { dir, simd, name } of variants) {
  run('emcmake', ['cmake', '-S', '.', '-B', dir, '-DCMAKE_BUILD_TYPE=Release', `-DABH_SIMD=${simd}`]);
  run('cmake', ['--build', dir, '-j2']);
  for (const module of [name, `${name}_later`]) {
    for (const ext of ['mjs', 'wasm']) copyFileSync(join(root, dir, `${module}.${ext}`), join(generated, `${module}.${ext}`));
    copyFileSync(join(root, dir, `${module}.mjs.symbols`), join(generated, `${module}.symbols`));
  }
}

// The glue is built for web and worker; given the bytes, it runs in Node as well.
const { default: createAttentionEngine } = await import(pathToFileURL(join(generated, 'attention_engine.mjs')).href);
const engine = await createAttentionEngine({ wasmBinary: readFileSync(join(generated, 'attention_engine.wasm')) });
const limits = { engine: engine.engineInfo().limits, training: engine.trainingLimits() };
writeFileSync(join(generated, 'limits.json'), `${JSON.stringify(limits, null, 2)}\n`);
