// tfjs's wasm backend in Node (node-main.ts, training.ts): its .wasm files from the installed package,
// and one thread, like every other participant.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as TfNamespace from '@tensorflow/tfjs-core';
import type * as TfWasmNamespace from '@tensorflow/tfjs-backend-wasm';

export function useTfjsWasmInNode(tf: typeof TfNamespace, wasm: typeof TfWasmNamespace): void {
  const require = createRequire(import.meta.url);
  const dist = join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist');
  wasm.setWasmPaths({
    'tfjs-backend-wasm.wasm': join(dist, 'tfjs-backend-wasm.wasm'),
    'tfjs-backend-wasm-simd.wasm': join(dist, 'tfjs-backend-wasm-simd.wasm'),
    'tfjs-backend-wasm-threaded-simd.wasm': join(dist, 'tfjs-backend-wasm-threaded-simd.wasm'),
  });
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
}
