import * as ort from 'onnxruntime-web';
import { buildAttentionModel, additiveCausalMask } from '../peers/onnx-model.ts';
ort.env.wasm.numThreads = 1;
ort.env.wasm.proxy = false;
const h = 1, n = 512, d = 64;
for (const causal of [false, true]) {
const bytes = buildAttentionModel(h, n, d, causal);
const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
const rnd = () => { const a = new Float32Array(h*n*d); for (let i=0;i<a.length;i++) a[i]=Math.random()*2-1; return a; };
const feeds: Record<string, ort.Tensor> = { Q: new ort.Tensor('float32', rnd(), [h,n,d]), K: new ort.Tensor('float32', rnd(), [h,n,d]), V: new ort.Tensor('float32', rnd(), [h,n,d]) };
if (causal) feeds.mask = new ort.Tensor('float32', additiveCausalMask(n), [n,n]);
let out = await session.run(feeds);
const times=[];
for (let r=0;r<20;r++){ const t=performance.now(); out = await session.run(feeds); times.push(performance.now()-t);} 
times.sort((a,b)=>a-b);
console.log('ort causal', causal, 'median ms', times[10].toFixed(3), (4*n*n*d*h/times[10]/1e6).toFixed(2), 'GFLOP/s', out.O.dims);
}
