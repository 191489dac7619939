import { readFileSync } from 'node:fs';
const { instance } = await WebAssembly.instantiate(readFileSync(new URL('./roof.wasm', import.meta.url)), {});
const e = instance.exports as any; e.roof_init();
const res: number[] = [];
for (let r = 0; r < 40; r++) { const passes = 5000; const c = process.cpuUsage(); e.roof_run(passes); const u = process.cpuUsage(c); res.push(passes*4096/((u.user+u.system)/1000)/1e6); }
res.sort((a,b)=>b-a); console.log('roof max', res[0]!.toFixed(1), 'median', res[20]!.toFixed(1), 'GFLOP/s');
