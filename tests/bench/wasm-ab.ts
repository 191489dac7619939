// Two builds of the engine side by side in one Node process, for a change of compiler or linker flags:
// the same calls on the same inputs, alternating A and B sample by sample (so a noisy neighbour slows
// both alike), median CPU time per call and the ratio B ÷ A. Each build is a directory holding
// attention_engine.mjs and .wasm and the later module's attention_engine_later.mjs and .wasm (a
// `cmake --build` directory of the wasm targets; a build from before the split has the first pair only).
//   node --single-threaded --import tsx tests/bench/wasm-ab.ts <dir A> <dir B> [--rounds=15] [--sample-ms=40]
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AttentionEngine, type Matrix, type RawLaterModule } from '../../web/src/engine/engine';
import { linearAttention, sparseAttention } from '../../web/src/engine/long-context';
import { Trainer } from '../../web/src/engine/training';

const [dirA, dirB] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
if (!dirA || !dirB) throw new Error('usage: wasm-ab.ts <dir A> <dir B> [--rounds=15] [--sample-ms=40]');
const flag = (name: string, fallback: number) =>
  Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const rounds = flag('rounds', 15);
const sampleMs = flag('sample-ms', 40);

/** One module of a build: its glue, given its .wasm's bytes. */
async function instantiate<Raw>(dir: string, name: string): Promise<Raw> {
  const { default: create } = (await import(pathToFileURL(resolve(dir, `${name}.mjs`)).href)) as {
    default: (options: object) => Promise<Raw>;
  };
  return create({ wasmBinary: readFileSync(join(resolve(dir), `${name}.wasm`)) });
}

async function load(dir: string): Promise<AttentionEngine> {
  type Parameters = ConstructorParameters<typeof AttentionEngine>;
  const core = await instantiate<Parameters[0]>(dir, 'attention_engine');
  // A build from before the split (one module) serves as both: it binds the later kernels too.
  const split = existsSync(resolve(dir, 'attention_engine_later.wasm'));
  const later: NonNullable<Parameters[2]> = () =>
    Promise.resolve(() => (split ? instantiate(dir, 'attention_engine_later') : Promise.resolve(core as unknown as RawLaterModule)));
  const engine = new AttentionEngine(core, undefined, later);
  await engine.loadLater();
  return engine;
}

let seed = 1;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
const matrix = (rows: number, cols: number): Matrix => ({ rows, cols, data: Float32Array.from({ length: rows * cols }, random) });
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** name -> a call on one engine, prepared once per engine. */
type Case = [name: string, prepare: (engine: AttentionEngine) => () => unknown];
const flashInputs = (n: number, heads: number) => [matrix(n, 64 * heads), matrix(n, 64 * heads), matrix(n, 64 * heads)] as const;
const cases: Case[] = [
  ...([64, 512, 2048] as const).map((n): Case => {
    const [Q, K, V] = flashInputs(n, 1);
    return [`flash n=${n} h=1`, (e) => () => e.flashAttention(Q, K, V, { blockQ: 64, blockK: 64 })];
  }),
  ...([64, 512] as const).map((n): Case => {
    const [Q, K, V] = flashInputs(n, 8);
    return [`flash n=${n} h=8 causal`, (e) => () => e.multiHeadFlashAttention(Q, K, V, { blockQ: 64, blockK: 64, heads: 8, causal: true })];
  }),
  ...([64, 512] as const).map((n): Case => {
    const [Q, K, V] = flashInputs(n, 1);
    return [`naive n=${n}`, (e) => () => e.attention(Q, K, V)];
  }),
  ...(
    [
      [16, 8],
      [64, 64],
      [16, 512],
    ] as const
  ).map(([n, dModel]): Case => {
    const tokens = Array.from({ length: n }, (_, i) => `w${i}`);
    return [
      `pipeline n=${n} d_model=${dModel} h=8`,
      (e) => () => e.pipeline({ tokens, dModel, heads: 8, causal: false, scale: true, seed: 1 }),
    ];
  }),
  ((): Case => {
    const [Q, K, V] = flashInputs(1024, 1);
    return ['sliding window n=1024', (e) => () => sparseAttention(e, Q, K, V, { window: 64 })];
  })(),
  ((): Case => {
    const [Q, K, V] = flashInputs(1024, 1);
    return ['linear attention n=1024', (e) => () => linearAttention(e, Q, K, V)];
  })(),
  ['dot-product samples, d_k 64 × 4000 (step 4)', (e) => () => e.dotProductSamples(64, 4000, 1)],
  [
    'training step (who-is-it)',
    (e) => {
      const trainer = Trainer.create(e, {});
      return () => trainer.step(1);
    },
  ],
];

const [a, b] = [await load(dirA), await load(dirB)];
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
console.log(`A = ${dirA}\nB = ${dirB}\n${rounds} rounds, samples of >= ${sampleMs} ms CPU\n`);
console.log('case'.padEnd(46), 'A ms/call'.padStart(10), 'B ms/call'.padStart(10), 'B ÷ A'.padStart(7));
for (const [name, prepare] of cases) {
  const runs = [prepare(a), prepare(b)];
  // Calls per sample, from a short warm-up of A.
  let calls = 1;
  for (;;) {
    const t0 = cpuMs();
    for (let i = 0; i < calls; ++i) runs[0]!();
    if (cpuMs() - t0 >= sampleMs / 4) break;
    calls *= 2;
  }
  calls *= 4;
  const times: number[][] = [[], []];
  for (let round = 0; round < rounds; ++round)
    for (const which of round % 2 ? [1, 0] : [0, 1]) {
      const t0 = cpuMs();
      for (let i = 0; i < calls; ++i) runs[which]!();
      times[which]!.push((cpuMs() - t0) / calls);
    }
  const [ma, mb] = [median(times[0]!), median(times[1]!)];
  console.log(name.padEnd(46), ma.toFixed(4).padStart(10), mb.toFixed(4).padStart(10), `${(mb / ma).toFixed(2)}×`.padStart(7));
}
process.exit(0);
