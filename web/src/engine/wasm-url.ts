// Where this build's .wasm files are, as resolved by whatever bundled this module. Its own tiny module so
// the page's first script can start the download without loading the engine wrapper (and the Emscripten
// glue) that parses it; a worker bundled apart from the page is sent these URLs.
export function engineWasmUrl(): string {
  return new URL('./generated/attention_engine.wasm', import.meta.url).href;
}

/** The later module (the tiled and long-context kernels), fetched when a step that draws them first needs it. */
export function laterWasmUrl(): string {
  return new URL('./generated/attention_engine_later.wasm', import.meta.url).href;
}
