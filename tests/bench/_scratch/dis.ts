// run flash + attention a few times so that code is compiled; used with --print-wasm-code-function-index
import { loadSimdEngine } from '../../unit/load-engine';
const e = await loadSimdEngine();
const n = 256, d = 64;
const rnd = () => { const a = new Float32Array(n*d); for (let i=0;i<a.length;i++) a[i]=Math.random()*2-1; return {rows:n, cols:d, data:a}; };
const Q = rnd(), K = rnd(), V = rnd();
for (let i = 0; i < 3; i++) { e.flashAttention(Q, K, V, { blockQ: 64, blockK: 64 }); e.attention(Q, K, V); }
