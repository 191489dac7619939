import { readFileSync } from 'node:fs';
import { createEngine } from '../../../web/src/engine/engine';
const e = await createEngine({ wasmBinary: readFileSync('web/src/engine/generated/attention_engine.wasm') });
const n = Number(process.argv[2] ?? 4), dModel = Number(process.argv[3] ?? 8);
const tokens = Array.from({ length: n }, (_, i) => `w${i}`);
const cfg = { tokens, dModel, heads: 8, causal: false, scale: true, seed: 1 };
for (let i = 0; i < 2000; i++) e.pipeline(cfg);
const t = performance.now(); for (let i = 0; i < 2000; i++) e.pipeline(cfg); console.log(((performance.now() - t) / 2000 * 1000).toFixed(1), 'us per call');
