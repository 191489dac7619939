import { readFileSync } from 'node:fs';
import { createEngine } from '../../../web/src/engine/engine';
import { makeInputs, head } from '../data';
const e = await createEngine({ wasmBinary: readFileSync('web/src/engine/generated/attention_engine.wasm') });
const s = { n: 512, heads: 8, d: 64, causal: false };
const inp = makeInputs(s);
const hs = Array.from({ length: 8 }, (_, h) => ({ Q: { rows: 512, cols: 64, data: head(inp.Q, s, h).slice() }, K: { rows: 512, cols: 64, data: head(inp.K, s, h).slice() }, V: { rows: 512, cols: 64, data: head(inp.V, s, h).slice() } }));
for (let r = 0; r < 5; r++) {
  const per: number[] = [];
  for (const h of hs) { const t = performance.now(); e.flashAttention(h.Q, h.K, h.V, { blockQ: 64, blockK: 64 }); per.push(performance.now() - t); }
  console.log(per.map((x) => x.toFixed(2)).join(' '));
}
