// A/B: engines from several builds in one process, interleaved; prints min and median per variant.
import { readFileSync } from 'node:fs';
import { AttentionEngine } from '../../../web/src/engine/engine';
async function load(dir: string, name = 'attention_engine') {
  const mod = await import(`${dir}/${name}.mjs`);
  const raw = await mod.default({ wasmBinary: readFileSync(`${dir}/${name}.wasm`) });
  return new AttentionEngine(raw);
}
const dirs = (process.env.AB ?? '/tmp/abh-base/build,/work/main/web/src/engine/generated').split(',');
const engines = await Promise.all(dirs.map((d) => load(d)));
const n = Number(process.argv[2] ?? 512), d = 64, heads = 1;
const what = (process.argv[3] ?? 'attention,flash,flashc').split(',');
const rnd = () => { const a = new Float32Array(n*d); for (let i=0;i<a.length;i++) a[i]=Math.random()*2-1; return {rows:n, cols:d, data:a}; };
const Q = rnd(), K = rnd(), V = rnd();
const bq = Number(process.env.BQ ?? 64), bk = Number(process.env.BK ?? 64);
const cases: Record<string, (e: AttentionEngine) => unknown> = {
  attention: (e) => e.attention(Q, K, V),
  flash: (e) => e.flashAttention(Q, K, V, { blockQ: bq, blockK: bk }),
  flashc: (e) => e.flashAttention(Q, K, V, { blockQ: bq, blockK: bk, causal: true }),
};
for (const w of what) {
  const times: number[][] = engines.map(() => []);
  for (let r = 0; r < Number(process.env.R ?? 30); r++)
    engines.forEach((e, k) => { const c = process.cpuUsage(); cases[w]!(e); const u = process.cpuUsage(c); times[k]!.push((u.user + u.system) / 1000); });
  const line = times.map((ts) => { ts.sort((a, b) => a - b); const flops = 4*n*n*d*heads*(w==='flashc'?0.5:1); return `min ${ts[0]!.toFixed(3)} med ${ts[ts.length>>1]!.toFixed(3)} (${(flops/ts[0]!/1e6).toFixed(1)} GF/s)`; });
  console.log(w.padEnd(10), line.join(' | '));
}
