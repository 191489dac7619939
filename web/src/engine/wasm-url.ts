// Where this build's .wasm is, as resolved by whatever bundled this module. Its own tiny module so the
// page's first script can start the download without loading the engine wrapper (and the Emscripten
// glue) that parses it; a worker bundled apart from the page is sent this URL.
export function engineWasmUrl(): string {
  return new URL('./generated/attention_engine.wasm', import.meta.url).href;
}
