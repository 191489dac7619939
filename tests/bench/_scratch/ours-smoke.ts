import { loadSimdEngine, loadScalarEngine } from '../../unit/load-engine';
const simd = await loadSimdEngine(); const scalar = await loadScalarEngine();
const n = Number(process.argv[2] ?? 512), d = 64;
const rnd = () => { const a = new Float32Array(n*d); for (let i=0;i<a.length;i++) a[i]=Math.random()*2-1; return {rows:n, cols:d, data:a}; };
const Q = rnd(), K = rnd(), V = rnd();
function time(name: string, f: () => unknown, reps = 20) {
  f(); const times=[]; for (let r=0;r<reps;r++){ const t=performance.now(); f(); times.push(performance.now()-t);} times.sort((a,b)=>a-b);
  const m = times[reps>>1]; console.log(name.padEnd(30), m.toFixed(3), 'ms', (4*n*n*d/m/1e6).toFixed(2), 'GFLOP/s');
}
for (const causal of [false, true]) {
  const mask = causal ? Uint8Array.from({length:n*n}, (_, i) => (i % n) <= Math.floor(i / n) ? 1 : 0) : undefined;
  time(`simd attention causal=${causal}`, () => simd.attention(Q, K, V, mask ? { mask } : {}));
  time(`simd flash causal=${causal}`, () => simd.flashAttention(Q, K, V, { blockQ: 64, blockK: 64, causal }));
  time(`scalar attention causal=${causal}`, () => scalar.attention(Q, K, V, mask ? { mask } : {}), 5);
  time(`scalar flash causal=${causal}`, () => scalar.flashAttention(Q, K, V, { blockQ: 64, blockK: 64, causal }), 5);
}
