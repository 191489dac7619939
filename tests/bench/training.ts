// One training step (forward + backward + clipping + AdamW) of the default who-is-it model (2 layers
// x 2 heads, d_model 32, batch 32): native (build/native/abh_train --bench 1), SIMD wasm and scalar
// wasm, in interleaved rounds in a rotating order, as CPU time per step and as ratios to the SIMD
// build. Started by run.ts (`npm run bench`, skip with --no-training) with V8's --single-threaded, so
// the process's CPU time is the benchmark thread's; standalone:
//   node --single-threaded --import tsx tests/bench/training.ts [build/bench/training.json]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { AttentionEngine, createEngine } from '../../web/src/engine/engine';
import createScalarModule from '../../web/src/engine/generated/attention_engine_scalar.mjs';
import { Trainer } from '../../web/src/engine/training';

const root = resolve(import.meta.dirname, '..', '..');
const generated = join(root, 'web', 'src', 'engine', 'generated');
const out = process.argv[2] ?? join(root, 'build', 'bench', 'training.json');
const native = join(root, 'build', 'native', 'abh_train');
const ROUNDS = 9;
const STEPS = 40;
const log = (line: string) => console.error(`[training] ${line}`);

execFileSync('cmake', ['-S', '.', '-B', 'build/native', '-DCMAKE_BUILD_TYPE=Release'], { cwd: root, stdio: 'ignore' });
execFileSync('cmake', ['--build', 'build/native', '-j2', '--target', 'abh_train'], { cwd: root, stdio: 'ignore' });
if (!existsSync(native)) throw new Error(`no native trainer at ${native}`);

const simd = await createEngine({ wasmBinary: readFileSync(join(generated, 'attention_engine.wasm')) });
const scalar = new AttentionEngine(await createScalarModule({ wasmBinary: readFileSync(join(generated, 'attention_engine_scalar.wasm')) }));
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

// Each participant: one sample = STEPS steps, returns CPU ms per step.
const trainers = { simd: Trainer.create(simd, {}), scalar: Trainer.create(scalar, {}) };
trainers.simd.step(5);
trainers.scalar.step(5);
const wasmSample = (t: Trainer) => () => {
  const c0 = cpuMs();
  t.step(STEPS);
  return (cpuMs() - c0) / STEPS;
};
const participants: { id: string; label: string; sample: () => number }[] = [
  {
    id: 'native',
    label: 'native (g++ -O3, portable x86-64)',
    sample: () =>
      (JSON.parse(execFileSync(native, ['--bench', '1', '--steps', String(STEPS)], { encoding: 'utf8' })) as { cpuMsPerStep: number })
        .cpuMsPerStep,
  },
  { id: 'simd', label: 'ours, SIMD wasm (Node)', sample: wasmSample(trainers.simd) },
  { id: 'scalar', label: 'ours, scalar wasm (Node)', sample: wasmSample(trainers.scalar) },
];
const samples = new Map(participants.map((p) => [p.id, [] as number[]]));
for (let round = 0; round < ROUNDS; ++round)
  for (let i = 0; i < participants.length; ++i) {
    const p = participants[(round + i) % participants.length]!;
    samples.get(p.id)!.push(p.sample());
  }
trainers.simd.dispose();
trainers.scalar.dispose();

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const simdMs = median(samples.get('simd')!);
const results = participants.map((p) => {
  const ms = median(samples.get(p.id)!);
  return { id: p.id, label: p.label, cpuMsPerStep: ms, relativeToSimd: ms / simdMs, samples: samples.get(p.id)! };
});
const lines = [
  `Training step, who-is-it default model (2 layers x 2 heads, d_model 32, batch 32; forward + backward + AdamW),`,
  `median CPU ms per step over ${ROUNDS} interleaved rounds of ${STEPS} steps (target: SIMD wasm <= 2 ms):`,
  ...results.map((r) => `  ${r.label.padEnd(36)} ${r.cpuMsPerStep.toFixed(3).padStart(8)} ms   ${r.relativeToSimd.toFixed(2)}x SIMD`),
];
for (const line of lines) log(line);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ rounds: ROUNDS, stepsPerSample: STEPS, results, text: lines.join('\n') }, null, 1));
process.exit(0);
