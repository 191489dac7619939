// Loads the real .wasm builds in Node: Emscripten 3.1.6's ES6 glue is built for web/worker, so
// Node passes the bytes in instead of letting the glue fetch them.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AttentionEngine, createEngine, type RawEngineModule } from '../../web/src/engine/engine';
import createScalarModule from '../../web/src/engine/generated/attention_engine_scalar.mjs';
import createScalarLater from '../../web/src/engine/generated/attention_engine_scalar_later.mjs';
import { ReaderModel } from '../../web/src/engine/reader';
import { provideReaderModel } from '../../web/src/features/reader/model';
import { READER_MODELS } from '../../web/src/model/reader';

export const generatedDir = resolve(import.meta.dirname, '..', '..', 'web', 'src', 'engine', 'generated');

const bytesOf = (file: string) => readFileSync(resolve(generatedDir, file));

/**
 * The SIMD engine with both its modules loaded (`later: false`: the core alone, as the page has it before a
 * later step is drawn; loadLater() then takes the later module's bytes from disk).
 */
export function loadSimdEngine({ later = true } = {}): Promise<AttentionEngine> {
  return createEngine({ wasmBinary: bytesOf('attention_engine.wasm'), laterWasmBinary: bytesOf('attention_engine_later.wasm'), later });
}

export async function loadScalarEngine(): Promise<AttentionEngine> {
  const raw = await createScalarModule({ wasmBinary: bytesOf('attention_engine_scalar.wasm') });
  const later = bytesOf('attention_engine_scalar_later.wasm');
  const engine = new AttentionEngine(raw, undefined, () => Promise.resolve(() => createScalarLater({ wasmBinary: later })));
  await engine.loadLater();
  return engine;
}

/** Both builds by name, for the suites that run each check on each (`describe.each(ENGINE_BUILDS)`). */
export const ENGINE_BUILDS = [
  ['SIMD', loadSimdEngine],
  ['scalar', loadScalarEngine],
] as const;

/** The Emscripten module behind an engine, for tests of what the C++ publishes itself. */
export const rawOf = (engine: AttentionEngine): RawEngineModule => (engine as unknown as { raw: RawEngineModule }).raw;

const modelDir = resolve(import.meta.dirname, '..', '..', 'web', 'src', 'model');

/** The bytes of a shipped model file in web/src/model/ (`reader.bin`, `who-is-it.bin`, …). */
export const shippedWeights = (file: string): Uint8Array => new Uint8Array(readFileSync(resolve(modelDir, file)));

/** The alias table the page loads with both reader models (`reader-aliases.txt`). */
export const shippedReaderAliases = (): Uint8Array => shippedWeights('reader-aliases.txt');

/** One shipped reader model with the shipped alias table, as the page loads it. */
const shippedReader = (engine: AttentionEngine, file: string): ReaderModel => {
  const model = ReaderModel.fromWeights(engine, shippedWeights(file));
  model.useAliases(shippedReaderAliases());
  return model;
};

/** Step 1's two shipped reader models, loaded into `engine` with their alias table. */
export const loadReaderModels = (engine: AttentionEngine): Record<'bidirectional' | 'causal', ReaderModel> => ({
  bidirectional: shippedReader(engine, 'reader.bin'),
  causal: shippedReader(engine, 'reader-causal.bin'),
});

/**
 * Gives the page's reader slot of `engine` one shipped model (bidirectional, or causal) with the alias
 * table, as the page's download does, its flips found at once.
 */
export function provideShippedReader(engine: AttentionEngine, causal: boolean): void {
  const file = causal ? 'reader-causal.bin' : 'reader.bin';
  provideReaderModel(
    engine,
    causal,
    shippedWeights(file),
    causal ? READER_MODELS.causal : READER_MODELS.bidirectional,
    'at once',
    shippedReaderAliases(),
  );
}
