// Downloading, compiling and starting one of the engine's wasm modules (engine.ts has two: the core and
// the later module). Every failure is an EngineError that says which and what to do: no WebAssembly or
// no SIMD, a failed download, a Content-Security-Policy without 'wasm-unsafe-eval', bytes that are not
// WebAssembly, a damaged file.
import type { EngineModuleOptions } from './attention_engine';
import { crashReason, EngineError, reasonOf } from './errors';

/**
 * The smallest module that uses a SIMD128 instruction (i8x16.splat, i8x16.popcnt): a browser that
 * validates it runs the engine's SIMD kernels. Validating compiles nothing, so no CSP applies.
 */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

/** Throws an EngineError saying what is missing, before anything is downloaded or compiled. */
export function requireWasmSimd(): void {
  if (typeof WebAssembly !== 'object' || typeof WebAssembly.validate !== 'function')
    throw new EngineError('this browser has no WebAssembly (or it is switched off), which the engine needs');
  if (!WebAssembly.validate(SIMD_PROBE))
    throw new EngineError(
      'this browser’s WebAssembly has no SIMD support, which the engine needs: any current Chrome, Edge, Firefox or Safari (16.4 or later) has it',
    );
}

async function download(url: string, name: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'same-origin' });
  } catch (error) {
    throw new EngineError(
      `the engine file ${name} could not be downloaded (${reasonOf(error)}): the network is offline, the page’s Content-Security-Policy (connect-src) blocks it, or another origin serves it without CORS headers`,
    );
  }
  if (!response.ok)
    throw new EngineError(
      `the engine file ${name} could not be downloaded: the server answered ${response.status} ${response.statusText}`.trimEnd(),
    );
  return response;
}

/**
 * Compiles while the bytes arrive when the server says application/wasm (streaming insists on it).
 * Any failure there compiles the bytes again the plain way, whose errors say what went wrong.
 */
async function compileResponse(response: Response, name: string): Promise<WebAssembly.Module> {
  const type = response.headers.get('content-type') ?? '';
  if (typeof WebAssembly.compileStreaming === 'function' && /^application\/wasm\b/i.test(type)) {
    const copy = response.clone();
    try {
      return await WebAssembly.compileStreaming(response);
    } catch {
      return compile(await copy.arrayBuffer(), name);
    }
  }
  return compile(await response.arrayBuffer(), name);
}

async function compile(bytes: ArrayBuffer | Uint8Array, name: string): Promise<WebAssembly.Module> {
  try {
    return await WebAssembly.compile(bytes as BufferSource);
  } catch (error) {
    const reason = reasonOf(error);
    if (/Content[- ]Security[- ]Policy|unsafe-eval/i.test(reason))
      throw new EngineError("this page’s Content-Security-Policy does not allow WebAssembly: add 'wasm-unsafe-eval' to its script-src");
    const view = new Uint8Array(
      bytes instanceof ArrayBuffer ? bytes : bytes.buffer,
      bytes instanceof ArrayBuffer ? 0 : bytes.byteOffset,
      Math.min(4, bytes.byteLength),
    );
    if (view.length < 4 || view[0] !== 0 || view[1] !== 0x61 || view[2] !== 0x73 || view[3] !== 0x6d)
      throw new EngineError(`the engine file ${name} is not WebAssembly: the server sent something else (${bytes.byteLength} bytes)`);
    throw new EngineError(`the engine file ${name} is damaged (${reason})`);
  }
}

export type Glue<Raw> = (options: EngineModuleOptions) => Promise<Raw>;

/** One instance of the compiled module, through Emscripten's glue (embind needs it). */
export function instantiateWith<Raw>(glue: Glue<Raw>, module: WebAssembly.Module): Promise<Raw> {
  return new Promise<Raw>((resolve, reject) => {
    const fail = (error: unknown) =>
      reject(error instanceof EngineError ? error : new EngineError(`the engine could not start (${crashReason(error)})`));
    glue({
      instantiateWasm: (imports, receive) => {
        WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module), fail);
        return {};
      },
      printErr: (text: string) => console.warn(`[attention engine] ${text}`),
    }).then(resolve, fail);
  });
}

/** Downloads (or takes the given bytes of) a .wasm and compiles it; every failure is an EngineError that says which. */
export async function compileFrom(url: string, bytes: ArrayBuffer | Uint8Array | undefined): Promise<WebAssembly.Module> {
  const name = url.slice(url.lastIndexOf('/') + 1);
  return bytes ? compile(bytes, name) : compileResponse(await download(url, name), name);
}
