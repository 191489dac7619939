// Hand-written declaration of the raw Emscripten module bound in cpp/bindings/.
// Application code uses the typed wrapper in engine.ts, which throws instead of returning
// { error } and checks argument types before they reach embind.
import type { RawEngineModule, RawLaterModule } from './types';

export interface EngineModuleOptions {
  /** The .wasm bytes (Node, Vitest): skips fetching. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where the .wasm lives (browsers). */
  locateFile?: (path: string, prefix: string) => string;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
  onAbort?: (reason: unknown) => void;
  /** Instantiates the module itself (engine.ts: from a module compiled once, so a restart needs no download). */
  instantiateWasm?: (imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => object;
}

declare function createAttentionEngine(options?: EngineModuleOptions): Promise<RawEngineModule>;
export default createAttentionEngine;
/** The later module's glue (attention_engine_later.mjs): the same options, its own instance. */
export declare function createAttentionLater(options?: EngineModuleOptions): Promise<RawLaterModule>;
