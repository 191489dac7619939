import { loadEngine } from './engine/engine';

const status = document.getElementById('status')!;
loadEngine().then((engine) => {
  const s = engine.pipeline({ tokens: ['the', 'animal', 'it'], dModel: 8, heads: 2, seed: 1 });
  status.textContent = `Engine ready (SIMD: ${engine.info().simd}). n = ${s.n}, first weight ${s.weights.data[0].toFixed(2)}`;
});
