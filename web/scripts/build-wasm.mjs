// Builds the WebAssembly engine twice with emcmake: the SIMD build the page ships and a scalar
// build of the same code (parity tests and benchmarks), then copies both next to the engine
// wrapper, where Vite and Vitest pick them up.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  for (const ext of ['mjs', 'wasm']) copyFileSync(join(root, dir, `${name}.${ext}`), join(generated, `${name}.${ext}`));
  copyFileSync(join(root, dir, `${name}.mjs.symbols`), join(generated, `${name}.symbols`));
}
