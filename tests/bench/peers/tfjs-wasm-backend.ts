// tfjs-backend-wasm made ready in a bench page (the attention page and the training page): its wasm
// files served beside the page, one thread like every other participant, and its SIMD build or an error.
import type * as TfNamespace from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

/** Throws when the backend cannot be set or did not pick its SIMD build. */
export async function useTfjsWasmBackend(tf: typeof TfNamespace): Promise<void> {
  setWasmPaths({
    'tfjs-backend-wasm.wasm': './tfjs-backend-wasm.wasm',
    'tfjs-backend-wasm-simd.wasm': './tfjs-backend-wasm-simd.wasm',
    'tfjs-backend-wasm-threaded-simd.wasm': './tfjs-backend-wasm-threaded-simd.wasm',
  });
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (!(await tf.setBackend('wasm'))) throw new Error('tf.setBackend("wasm") failed');
  await tf.ready();
  if (!(await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'))) throw new Error('tfjs-backend-wasm did not pick its SIMD build');
}
