import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { resolve } from 'node:path';
const dir = resolve('node_modules/@tensorflow/tfjs-backend-wasm/dist') + '/';
setWasmPaths({ 'tfjs-backend-wasm.wasm': dir + 'tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm': dir + 'tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm-threaded-simd.wasm': dir + 'tfjs-backend-wasm-threaded-simd.wasm' });
tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
await tf.setBackend('wasm');
await tf.ready();
console.log('backend', tf.getBackend(), 'simd', await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'), 'mt', await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'));
const h = 1, n = 512, d = 64;
const rnd = () => { const a = new Float32Array(h*n*d); for (let i=0;i<a.length;i++) a[i]=Math.random()*2-1; return a; };
const Q = tf.tensor3d(rnd(), [h,n,d]), K = tf.tensor3d(rnd(), [h,n,d]), V = tf.tensor3d(rnd(), [h,n,d]);
const run = () => tf.tidy(() => tf.matMul(tf.softmax(tf.mul(tf.matMul(Q, K, false, true), 1/Math.sqrt(d))), V));
let o = run(); o.dataSync(); o.dispose();
const times=[];
for (let r=0;r<20;r++){ const t=performance.now(); const o = run(); o.dataSync(); o.dispose(); times.push(performance.now()-t);} 
times.sort((a,b)=>a-b);
console.log('tfjs median ms', times[10].toFixed(3), (4*n*n*d*h/times[10]/1e6).toFixed(2), 'GFLOP/s', tf.memory().numTensors);
